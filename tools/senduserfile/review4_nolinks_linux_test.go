//go:build linux

package senduserfile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestOpenSourceNoLinksDotDotRename: the shortcut's real path is the path
// as written, cleaned lexically, so the file it opens must be the one that
// lexical path names. A ".." is taken by the kernel from wherever the
// directory before it is at that moment: while another process moves that
// directory (a rename, no link anywhere), the kernel's ".." lands in its
// new parent, and the file opened is one the real path does not name (the
// deny-list check and the outbox's name then judge another file than the
// one copied). Here a/b is moved to c/b and back while the hook opens
// a/b/x/.../../f: each file the shortcut returns must be a/f, never c/f.
func TestOpenSourceNoLinksDotDotRename(t *testing.T) {
	if !canTellNoLinks {
		t.Skip("no openat2 shortcut here")
	}
	dir := t.TempDir()
	for _, d := range []string{"a", "c"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "a", "f"), []byte("PLAIN"), 0o644)
	os.WriteFile(filepath.Join(dir, "c", "f"), []byte("SECRET"), 0o644)
	// A deep directory under b, so that the walk spends long below b.
	const depth = 24
	deep := filepath.Join(dir, "a", "b")
	for range depth {
		deep = filepath.Join(deep, "d")
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "a", "b") + strings.Repeat("/d", depth) + strings.Repeat("/..", depth+1) + "/f"
	want := filepath.Join(dir, "a", "f")
	var wantSt syscall.Stat_t
	if err := syscall.Stat(want, &wantSt); err != nil {
		t.Fatal(err)
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		from, to := filepath.Join(dir, "a", "b"), filepath.Join(dir, "c", "b")
		for !stop.Load() {
			if syscall.Rename(from, to) == nil {
				syscall.Rename(to, from)
			}
		}
	}()
	deadline := time.Now().Add(1500 * time.Millisecond)
	opened, wrong := 0, 0
	for time.Now().Before(deadline) && wrong == 0 {
		f, real, ok := openSourceNoLinks(p)
		if !ok {
			continue
		}
		opened++
		var st syscall.Stat_t
		err := syscall.Fstat(int(f.Fd()), &st)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if real != want {
			t.Fatalf("real path %q, want %q", real, want)
		}
		if st.Dev != wantSt.Dev || st.Ino != wantSt.Ino {
			wrong++
		}
	}
	stop.Store(true)
	wg.Wait()
	// Whatever the fallback then does, the shortcut must never hand back
	// a file its real path does not name.
	if wrong > 0 {
		t.Errorf("the shortcut opened c/f while its real path says %s (%d opened)", want, opened)
	}
	t.Logf("%d opened by the shortcut", opened)
}

// TestHasDotDot: only a whole ".." component counts.
func TestHasDotDot(t *testing.T) {
	for p, want := range map[string]bool{
		"/a/b": false, "/a/../b": true, "/a/..": true, "..": true, "../a": true, "/..": true,
		"/a/...": false, "/a/..b": false, "/a/b..": false, "/a/./b": false, "/a//b/": false, "": false, "/a/../": true,
	} {
		if got := hasDotDot(p); got != want {
			t.Errorf("hasDotDot(%q) = %v, want %v", p, got, want)
		}
	}
}
