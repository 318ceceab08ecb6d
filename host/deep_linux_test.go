//go:build linux

package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/host/jail"
)

// TestDeepPathDescriptors: a resolution holds at most jail.MaxHeldDirs
// descriptors of its own however deep the path. 64 concurrent Stat calls
// on 1,500-level paths (through a link, which takes the walk; with ".."
// past the ring, which re-derives parents) all succeed with the soft
// RLIMIT_NOFILE at the usual default of 1024, and each path resolves
// alone within a limit of the descriptors already open plus MaxHeldDirs
// and a few.
func TestDeepPathDescriptors(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	d1400 := strings.Repeat("d/", 1400)
	d1500 := strings.Repeat("d/", 1500)
	if err := os.MkdirAll(filepath.Join(ws, "t", d1500), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "t", d1500, "f"), []byte("deep"), 0o644)
	os.WriteFile(filepath.Join(ws, "t", d1400, "f"), []byte("less deep"), 0o644)
	os.Symlink("t", filepath.Join(ws, "lt"))
	h := newHost(t, host.Config{WorkspaceRoot: ws})
	paths := map[string]string{
		"lt/" + d1500 + "f": filepath.Join(ws, "t", d1500, "f"), // a link first
		"t/" + d1400 + strings.Repeat("../", 20) + strings.Repeat("d/", 20) + "f": filepath.Join(ws, "t", d1400, "f"), // ".." past the ring
		"lt/" + d1400 + "f": filepath.Join(ws, "t", d1400, "f"),
		"t/" + d1500 + "f":  filepath.Join(ws, "t", d1500, "f"), // plain
	}

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if old.Max < 1024 {
		t.Skipf("hard RLIMIT_NOFILE %d is below the usual default", old.Max)
	}
	setSoft := func(n uint64) {
		t.Helper()
		lim := old
		lim.Cur = n
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Error(err)
		}
	}()

	// The usual default soft limit, unless what other tests left open
	// (inotify descriptors of walk caches, say) already takes a share that
	// 64 bounded resolutions would not fit beside: then exactly that much.
	base := countFds(t)
	soft := uint64(1024)
	if need := uint64(base + 64*(jail.MaxHeldDirs+2)); need > soft {
		soft = need
	}
	t.Logf("%d descriptors open before; soft limit %d", base, soft)
	setSoft(soft)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	for range 64 {
		wg.Go(func() {
			for p, want := range paths {
				st, err := h.Stat(bg, "", p)
				if err != nil || st.Path != want {
					mu.Lock()
					if failed++; failed < 5 {
						t.Errorf("Stat(%d-level path): %q, %v", strings.Count(p, "/"), st.Path, err)
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if failed > 0 {
		t.Fatalf("%d of %d Stat calls failed", failed, 64*len(paths))
	}

	// Alone, within the descriptors open now plus the bound and a few.
	open := countFds(t)
	setSoft(uint64(open + jail.MaxHeldDirs + 3))
	for p, want := range paths {
		if st, err := h.Stat(bg, "", p); err != nil || st.Path != want {
			t.Errorf("Stat(%d-level path) with %d descriptors free: %q, %v", strings.Count(p, "/"), jail.MaxHeldDirs+3, st.Path, err)
		}
		if r, err := h.ReadFile(bg, "", p); err != nil || r.Path != want {
			t.Errorf("ReadFile(%d-level path) with %d descriptors free: %q, %v", strings.Count(p, "/"), jail.MaxHeldDirs+3, r.Path, err)
		}
	}
	setSoft(old.Cur)
	if n := countFds(t); n > open+2 {
		t.Errorf("%d descriptors open after the calls, %d before", n, open)
	}
}

// countFds counts this process's open descriptors.
func countFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents) - 1 // ReadDir's own
}
