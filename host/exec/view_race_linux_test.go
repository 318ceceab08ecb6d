package exec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestViewProtectedSwapRace: while sandboxed commands plant hooks, a
// goroutine outside keeps swapping the repository's hooks directory with
// a link to a directory outside the roots (RENAME_EXCHANGE), so each
// view is built with either in place: a protected path is bound only
// when it is reached with no link on the way, and no run may write into
// the outside directory. (What the check after a run decides while
// another process renames directories under it is that process's doing:
// the plants a command makes by renaming within its own run are
// TestViewProtectedParentSwapped's.)
func TestViewProtectedSwapRace(t *testing.T) {
	if testing.Short() {
		t.Skip("race test: skipped under -short")
	}
	f := newSBFixture(t)
	requireView(t)
	outside := filepath.Join(f.base, "outside")
	must(t, os.MkdirAll(filepath.Join(outside, "hooks"), 0o755))
	gitDir := filepath.Join(f.ws, ".git")
	must(t, os.Symlink(filepath.Join(outside, "hooks"), filepath.Join(gitDir, "hooks-link")))

	var stop atomic.Bool
	var wg sync.WaitGroup
	var swaps atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		p := [2]string{filepath.Join(gitDir, "hooks"), filepath.Join(gitDir, "hooks-link")}
		for i := 0; !stop.Load(); i++ {
			if unix.Renameat2(unix.AT_FDCWD, p[0], unix.AT_FDCWD, p[1], unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
				time.Sleep(time.Duration(i%7) * 100 * time.Microsecond)
				unix.Renameat2(unix.AT_FDCWD, p[0], unix.AT_FDCWD, p[1], unix.RENAME_EXCHANGE)
			}
		}
	}()
	deadline := time.Now().Add(8 * time.Second)
	runs := 0
	unsafe := 0
	for ; runs < 40 && time.Now().Before(deadline); runs++ {
		cmd := plant(".git/hooks/pre-commit") + "; " + plant(".git/hooks-link/post-checkout") + "; true"
		_, err := f.r.Exec(t.Context(), f.request(cmd, f.sandbox(), "MARK="+f.mark()))
		switch {
		case errors.Is(err, ErrUnsafeWorkspace):
			// The swapper moved a directory under the check: it says
			// so, and keeps its journal for the next run.
			unsafe++
		case err != nil:
			t.Fatalf("run %d: %v", runs, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d runs, %d swaps, %d reported an unsafe workspace", runs, swaps.Load(), unsafe)
	ents, _ := os.ReadDir(filepath.Join(outside, "hooks"))
	var planted []string
	for _, e := range ents {
		planted = append(planted, e.Name())
	}
	if len(planted) != 0 {
		t.Errorf("runs wrote outside the roots (%d runs): %s", runs, strings.Join(planted, ", "))
	}
}
