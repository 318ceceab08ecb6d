//go:build linux

package host_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host"
)

// TestRaceSwapDirWithSymlink swaps a directory inside the workspace with a
// symbolic link to outside (renameat2 RENAME_EXCHANGE, atomically) as fast
// as it can, while readers, writers and stats go through the swapped name.
// Reads must never return outside content and writes must never land
// outside.
func TestRaceSwapDirWithSymlink(t *testing.T) {
	if testing.Short() {
		t.Skip("race test: skipped under -short")
	}
	dir := t.TempDir()
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(ws, "sw"), 0o755)
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(ws, "sw", "f"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(out, "f"), []byte("OUTSIDE"), 0o644)
	os.WriteFile(filepath.Join(out, "outside-marker"), []byte("OUTSIDE"), 0o644)
	os.Symlink(out, filepath.Join(ws, "swl"))
	// A second, deeper swap: ws/deep/sw <-> ws/deep/swl -> ../../out
	os.MkdirAll(filepath.Join(ws, "deep", "sw"), 0o755)
	os.WriteFile(filepath.Join(ws, "deep", "sw", "f"), []byte("inside"), 0o644)
	os.Symlink("../../out", filepath.Join(ws, "deep", "swl"))

	h := newHost(t, host.Config{WorkspaceRoot: ws})
	wsfd, err := unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(wsfd)

	var swaps atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(wsfd, "sw", wsfd, "swl", unix.RENAME_EXCHANGE); err != nil {
				t.Error(err)
				return
			}
			unix.Renameat2(wsfd, "deep/sw", wsfd, "deep/swl", unix.RENAME_EXCHANGE)
			swaps.Add(1)
		}
	})
	var reads, refused atomic.Int64
	for g := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				for _, p := range []string{"sw/f", "deep/sw/f", "sw/../sw/f"} {
					r, err := h.ReadFile(bg, "", p)
					if err == nil && r.Contents != "inside" {
						t.Errorf("read %s returned %q from %s", p, r.Contents, r.Path)
					}
					if err == nil && !strings.HasPrefix(r.Path, ws+"/") {
						t.Errorf("read %s resolved to %s", p, r.Path)
					}
					if err != nil {
						refused.Add(1)
					}
					reads.Add(1)
					if st, err := h.Stat(bg, "", p); err == nil && !strings.HasPrefix(st.Path, ws+"/") {
						t.Errorf("stat %s resolved to %s", p, st.Path)
					}
				}
				for _, p := range []string{"sw", "deep/sw"} {
					entries, _ := h.Walk(bg, "", p, host.WalkOptions{NoIgnore: true, Hidden: true})
					for _, e := range entries {
						if strings.Contains(e.Path, "outside-marker") || !strings.HasPrefix(e.Path, ws+"/") {
							t.Errorf("walk %s listed %s", p, e.Path)
						}
					}
				}
				name := []string{"sw/w", "deep/sw/w"}[i%2]
				if _, err := h.WriteFile(bg, "", name, []byte("written")); err == nil {
					// fine: it landed inside
				}
				h.CreateDir(bg, "", "sw/d"+string(rune('a'+g)), false, true)
			}
		})
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && swaps.Load() < 20000 {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	t.Logf("%d swaps, %d reads (%d refused)", swaps.Load(), reads.Load(), refused.Load())
	if swaps.Load() < 1000 {
		t.Errorf("only %d swaps: the test did not race", swaps.Load())
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != "f" && e.Name() != "outside-marker" {
			t.Errorf("something landed outside: %s", e.Name())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "f")); !bytes.Equal(b, []byte("OUTSIDE")) {
		t.Errorf("outside file changed: %q", b)
	}
}
