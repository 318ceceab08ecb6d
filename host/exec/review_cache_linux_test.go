package exec

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSandboxCacheRaceWithLinks: while another goroutine keeps
// exchanging .agent-harness, and sandbox-cache inside it, with symbolic
// links to the home directory (RENAME_EXCHANGE, as a concurrent command
// could), workspaceCache makes nothing outside the workspace: the home
// directory stays as it was, it returns either "" or the cache's path
// beneath the root, it leaves no temporary .gitignore behind and no
// descriptor open.
func TestSandboxCacheRaceWithLinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	must(t, os.MkdirAll(filepath.Join(home, ".cache"), 0o755))
	must(t, os.WriteFile(filepath.Join(home, ".profile"), []byte("# profile\n"), 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	git := osexec.Command("git", "init", "-q", ws)
	git.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	harness := filepath.Join(ws, ".agent-harness")
	must(t, os.MkdirAll(filepath.Join(harness, "sandbox-cache"), 0o700))
	must(t, os.Symlink(home, filepath.Join(ws, ".agent-harness.link")))
	must(t, os.Symlink(home, filepath.Join(harness, "sandbox-cache.link")))
	// The inner swap works on the directory itself (its descriptor),
	// wherever the outer swap has put it.
	inner, err := unix.Open(harness, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	must(t, err)
	defer unix.Close(inner)
	outer, err := unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	must(t, err)
	defer unix.Close(outer)

	root, err := os.Open(ws)
	must(t, err)
	defer root.Close()
	before := homeTree(t, home)
	fdsBefore := countFds(t)

	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if err := unix.Renameat2(outer, ".agent-harness", outer, ".agent-harness.link", unix.RENAME_EXCHANGE); err != nil {
				t.Error(err)
				return
			}
			if err := unix.Renameat2(inner, "sandbox-cache", inner, "sandbox-cache.link", unix.RENAME_EXCHANGE); err != nil {
				t.Error(err)
				return
			}
			swaps.Add(1)
		}
	}()
	// git's answer, asked once: the loop below is about the links.
	inWorkTree := gitWorkTree(t)(ws)
	if !inWorkTree {
		t.Fatalf("git says %s is in no work tree", ws)
	}
	workTree := func(string) bool { return inWorkTree }
	want := filepath.Join(ws, CacheDir)
	n := 3000
	if testing.Short() {
		n = 500
	}
	made := 0
	for i := 0; i < n; i++ {
		switch got := workspaceCache(root, ws, workTree); got {
		case "":
		case want:
			made++
		default:
			t.Fatalf("workspaceCache = %q, want %q or empty", got, want)
		}
		if i%100 == 0 {
			// Now and then the .gitignore is missing again, so that it
			// is written under the swaps too.
			unix.Unlinkat(inner, "sandbox-cache/.gitignore", 0)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d calls, %d made the cache, %d swaps", n, made, swaps.Load())
	if after := homeTree(t, home); after != before {
		t.Errorf("the home directory changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".gitignore.tmp-") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
	if got := countFds(t); got != fdsBefore {
		t.Errorf("%d descriptors open after the calls, %d before", got, fdsBefore)
	}
}

// countFds counts this process's open descriptors.
func countFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	must(t, err)
	return len(ents)
}
