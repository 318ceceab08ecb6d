package exec

import (
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
// a link to a directory outside the roots (RENAME_EXCHANGE), so the view
// is built, and the check runs, with either in place. The view binds a protected path only when it is
// reached with no link on the way, and the check after each run undoes
// what it finds: no run may write into the outside directory, and no
// hook may stay.
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
	for ; runs < 40 && time.Now().Before(deadline); runs++ {
		f.run(t, plant(".git/hooks/pre-commit")+"; "+plant(".git/hooks-link/post-checkout")+"; true", "MARK="+f.mark())
	}
	stop.Store(true)
	wg.Wait()
	if swaps.Load() == 0 || runs < 5 {
		t.Fatalf("the race was not exercised: %d swaps, %d runs", swaps.Load(), runs)
	}
	// The check after a run may have met the link at .git/hooks and put
	// a directory back there, leaving the swapped-out directory at
	// hooks-link: take whatever is at hooks-link out of the way.
	if st, err := os.Lstat(filepath.Join(gitDir, "hooks-link")); err == nil && st.Mode()&os.ModeSymlink == 0 {
		t.Logf("hooks-link is a %v after the runs", st.Mode().Type())
	}
	ents, _ := os.ReadDir(filepath.Join(outside, "hooks"))
	var planted []string
	for _, e := range ents {
		planted = append(planted, e.Name())
	}
	if len(planted) != 0 {
		t.Errorf("runs wrote outside the roots (%d runs): %s", runs, strings.Join(planted, ", "))
	}
	os.RemoveAll(filepath.Join(gitDir, "hooks-link"))
	absent(t, filepath.Join(gitDir, "hooks", "pre-commit"))
	absent(t, filepath.Join(gitDir, "hooks", "post-checkout"))
	if out, err := f.gitTry(f.ws, []string{"MARK=" + f.mark()}, "commit", "-q", "--allow-empty", "-m", "after"); err != nil {
		t.Errorf("git commit after the runs: %v\n%s", err, out)
	}
	notRun(t, f)
}
