//go:build linux

package host_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
)

// TestFacadeRaceSwapDirWithSymlink runs the operations of
// files_facade.go, with and without NoFollow, through a directory that
// another goroutine keeps exchanging with a link to outside. Nothing may
// be read from, written to, touched or removed outside.
func TestFacadeRaceSwapDirWithSymlink(t *testing.T) {
	if testing.Short() {
		t.Skip("race test: skipped under -short")
	}
	dir := t.TempDir()
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(ws, "sw", "tree", "sub"), 0o755)
	os.MkdirAll(filepath.Join(out, "tree", "sub"), 0o755)
	os.WriteFile(filepath.Join(ws, "sw", "f"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(out, "f"), []byte("OUTSIDE"), 0o644)
	os.WriteFile(filepath.Join(out, "tree", "sub", "keep"), []byte("OUTSIDE"), 0o644)
	old := time.Unix(1e9, 0)
	os.Chtimes(filepath.Join(out, "f"), old, old)
	os.Symlink(out, filepath.Join(ws, "swl"))
	h := newHost(t, host.Config{WorkspaceRoot: ws})
	swaps, stop := startSwapping(t, ws, [2]string{"sw", "swl"})
	defer stop()

	var wg sync.WaitGroup
	done := make(chan struct{})
	var ops, refused atomic.Int64
	for g := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				o := host.Options{NoFollow: (i+g)%2 == 0}
				check := func(err error) {
					ops.Add(1)
					if err != nil {
						refused.Add(1)
					}
				}
				if f, st, err := h.OpenFile(bg, "", "sw/f"); err == nil {
					b, _ := io.ReadAll(f)
					f.Close()
					if string(b) != "inside" || !strings.HasPrefix(st.Path, ws+"/") {
						t.Errorf("OpenFile returned %q from %s", b, st.Path)
					}
					check(nil)
				} else {
					check(err)
				}
				_, err := h.WriteFrom(bg, "", "sw/w", strings.NewReader("written"), o)
				check(err)
				_, err = h.MakeDir(bg, "", "sw/d", o)
				check(err)
				ents, err := h.ReadDir(bg, "", "sw", o)
				for _, e := range ents {
					if !strings.HasPrefix(e.Path, ws+"/") {
						t.Errorf("ReadDir listed %s", e.Path)
					}
				}
				check(err)
				check(h.Touch(bg, "", "sw/f", time.Now(), o))
				check(h.RemoveTree(bg, "", "sw/tree/sub", o))
				os.MkdirAll(filepath.Join(ws, "sw", "tree", "sub"), 0o755) // by path: may land in out/ (a test-only write)
			}
		})
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && swaps() < 20000 {
		time.Sleep(10 * time.Millisecond)
	}
	close(done)
	wg.Wait()
	n := stop()
	t.Logf("%d swaps, %d operations (%d refused)", n, ops.Load(), refused.Load())
	if n < 1000 {
		t.Errorf("only %d swaps: the test did not race", n)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != "f" && e.Name() != "tree" {
			t.Errorf("something landed outside: %s", e.Name())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "f")); !bytes.Equal(b, []byte("OUTSIDE")) {
		t.Errorf("outside file changed: %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(out, "f")); !fi.ModTime().Equal(old) {
		t.Errorf("outside file touched: %v", fi.ModTime())
	}
	if b, _ := os.ReadFile(filepath.Join(out, "tree", "sub", "keep")); !bytes.Equal(b, []byte("OUTSIDE")) {
		t.Errorf("outside tree removed: %q", b)
	}
}
