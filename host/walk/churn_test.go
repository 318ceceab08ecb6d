package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
)

// churnTree makes n directories d00..d(n-1), each with a file and a
// subdirectory holding another.
func churnTree(t *testing.T, e *gitEnv, n int) {
	for i := 0; i < n; i++ {
		e.make(fmt.Sprintf("d%02d/f", i), fmt.Sprintf("d%02d/sub/g", i))
	}
}

// TestChurnSkipped: a directory that vanishes, becomes a file or becomes a
// symbolic link between the listing of its parent and its own open is
// skipped, not an error of the walk, and told to OnSkip; everything else
// is listed.
func TestChurnSkipped(t *testing.T) {
	for _, how := range []string{"removed", "file", "symlink"} {
		t.Run(how, func(t *testing.T) {
			e := newGitEnv(t, false)
			churnTree(t, e, 6)
			c := e.cache()
			victim := filepath.Join(e.repo, "d03")
			c.openHook = func(p string) error {
				if p != victim {
					return nil
				}
				must(t, os.RemoveAll(victim))
				switch how {
				case "file":
					must(t, os.WriteFile(victim, nil, 0o644))
				case "symlink":
					must(t, os.Symlink(filepath.Join(e.repo, "d04"), victim))
				}
				return nil
			}
			var mu sync.Mutex
			var skipped []string
			files, _, err := walkRel(t, c, e.repo, Options{OnSkip: func(p string, err error) {
				mu.Lock()
				skipped = append(skipped, p)
				mu.Unlock()
			}})
			if err != nil {
				t.Fatalf("walk with a directory %s mid-walk: %v", how, err)
			}
			if !slices.Equal(skipped, []string{victim}) {
				t.Errorf("skipped %q, want just %s", skipped, victim)
			}
			if slices.Contains(files, "d03/f") || !slices.Contains(files, "d05/sub/g") {
				t.Errorf("files %q", files)
			}
		})
	}
}

// TestOutOfDescriptors: opens that fail with EMFILE are retried after a
// pause, and a directory that still cannot be opened is walked at the end,
// reopened from the root: the walk lists everything and reports nothing.
func TestOutOfDescriptors(t *testing.T) {
	e := newGitEnv(t, false)
	churnTree(t, e, 8)
	want, _, err := walkRel(t, e.cache(), e.repo, Options{})
	must(t, err)
	for _, fails := range []int{2, fdRetries + 3, 1 << 30} {
		t.Run(fmt.Sprint("fails=", fails), func(t *testing.T) {
			c := e.cache()
			var mu sync.Mutex
			tries := map[string]int{}
			c.openHook = func(p string) error {
				mu.Lock()
				defer mu.Unlock()
				tries[p]++
				if filepath.Base(filepath.Dir(p)) == "d02" || filepath.Base(p) == "d05" {
					if tries[p] <= fails {
						return &os.PathError{Op: "open", Path: p, Err: syscall.EMFILE}
					}
				}
				return nil
			}
			got, _, err := walkRel(t, c, e.repo, Options{})
			if fails == 1<<30 {
				// Never a descriptor: reported, the rest listed.
				if err == nil || !outOfFDs(err) {
					t.Fatalf("err = %v, want EMFILE reported", err)
				}
				return
			}
			must(t, err)
			if d := diff(want, got); d != "" {
				t.Fatalf("with EMFILE %d times:\n%s", fails, d)
			}
		})
	}
}

// TestWalkCancelledQuickly: a cancelled context stops a walk at once.
func TestWalkCancelledQuickly(t *testing.T) {
	e := newGitEnv(t, false)
	churnTree(t, e, 20)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := e.cache().Walk(ctx, e.repo, Options{MaxEntries: 1 << 20}, func(Entry) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if err != context.Canceled || n > 10 {
		t.Fatalf("err %v after %d entries", err, n)
	}
}
