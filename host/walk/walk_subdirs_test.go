package walk

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestWalkManySubdirsBounded: an unlimited walk of a directory of 20,000
// subdirectories (each holding a file, every third one ignored) lists what
// git lists, while holding at most maxPendingSubdirs of them (and one part
// of the directory) to enter at once. Before, it held all of them until the directory's last entry was
// read (a million subdirectories: about 100 MiB). Not parallel: it sets
// pendingHook.
func TestWalkManySubdirsBounded(t *testing.T) {
	const n = 20000
	e := newGitEnv(t, false)
	e.write(".gitignore", "*.tmp\n")
	d := e.abs("d")
	must(t, os.Mkdir(d, 0o755))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 4 {
				sub := filepath.Join(d, fmt.Sprintf("s%05d", i))
				name := "f"
				if i%3 == 0 {
					name = "f.tmp"
				}
				if err := os.Mkdir(sub, 0o755); err != nil {
					t.Error(err)
					return
				}
				if err := os.WriteFile(filepath.Join(sub, name), nil, 0o644); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var mu sync.Mutex
	most := 0
	pendingHook = func(k int) {
		mu.Lock()
		most = max(most, k)
		mu.Unlock()
	}
	defer func() { pendingHook = nil }()
	c := e.cache()
	defer c.Close()
	files, _, err := walkRel(t, c, e.repo, Options{Hidden: true})
	must(t, err)
	out := strings.Split(strings.TrimSuffix(string(e.git(e.repo, "ls-files", "-co", "--exclude-standard")), "\n"), "\n")
	slices.Sort(out)
	slices.Sort(files)
	if dd := diff(out, files); dd != "" {
		t.Errorf("the walk's files differ from git ls-files -co --exclude-standard: %s", dd)
	}
	// One part of a directory (at most some 1,400 entries) may pass the
	// bound before it is looked at.
	if most > maxPendingSubdirs+2048 || most == 0 {
		t.Errorf("the walk held %d subdirectories of one directory at once, want at most %d and a part", most, maxPendingSubdirs)
	}
	t.Logf("at most %d subdirectories held at once; %d files", most, len(files))
}
