//go:build linux

package host_test

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/gittest"
)

// TestRaceSwapIgnoreFastPath swaps a directory of the workspace with a
// link to outside (renameat2 RENAME_EXCHANGE) as fast as it can while
// IsPathIgnored and CheckIgnore, warm (the inotify fast path, jail.PlainRel)
// and cold, ask about a path through it. The outside directory's
// .gitignore ignores that path: an answer "ignored" would mean it was
// consulted. Every answer must be "not ignored" or an escape.
func TestRaceSwapIgnoreFastPath(t *testing.T) {
	if testing.Short() {
		t.Skip("race test: skipped under -short")
	}
	g := gittest.New(t)
	g.Setenv(t)
	dir := filepath.Dir(g.Home)
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(ws, "sw", "sub"), 0o755)
	os.MkdirAll(filepath.Join(out, "sub"), 0o755)
	g.Init(t, ws)
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(out, ".gitignore"), []byte("*.txt\n"), 0o644)
	os.WriteFile(filepath.Join(out, "sub", ".gitignore"), []byte("*.txt\n"), 0o644)
	os.Symlink(out, filepath.Join(ws, "swl"))
	h := newHost(t, host.Config{WorkspaceRoot: ws, Home: g.Home})
	paths := []string{"sw/x.txt", "sw/sub/y.txt", "sw/sub/", "sw/x.log"}
	for range 3 { // warm: the watches are set up
		for _, p := range paths {
			h.IsPathIgnored(bg, "", p)
		}
	}
	swaps, stopSwapping := startSwapping(t, ws, [2]string{"sw", "swl"})
	defer stopSwapping()
	check := func(p string, ignored bool, err error) {
		// A resolution that meets the swap half-way may fail (a link
		// where a directory was, and the reverse); it must not answer.
		if err != nil && !errors.Is(err, host.ErrEscape) && !errors.Is(err, os.ErrNotExist) &&
			!errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, syscall.ELOOP) {
			t.Errorf("%s: unexpected error %v", p, err)
		}
		if err == nil && ignored && p != "sw/x.log" {
			t.Errorf("%s: ignored, by the outside directory's .gitignore", p)
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, p := range paths {
					ig, err := h.IsPathIgnored(bg, "", p)
					check(p, ig, err)
				}
				res, err := h.CheckIgnore(bg, "", paths, host.CheckIgnoreOptions{})
				if err != nil {
					t.Error(err)
				}
				for i, r := range res {
					check(paths[i], r.Ignored, r.Err)
				}
			}
		})
	}
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) && swaps() < 20000 {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if n := stopSwapping(); n < 100 {
		t.Errorf("only %d swaps: the test did not race", n)
	}
}
