//go:build linux

package walk

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestFollow: with Follow, a link to a directory inside the jail's roots
// is entered (its files listed under the link's name), one that leads out
// is listed as a file, and a link back to a directory above it is a loop,
// skipped and told to OnSkip with ErrLoop; without Follow nothing is
// entered.
func TestFollow(t *testing.T) {
	e := newGitEnv(t, false)
	e.make("real/a.go", "real/sub/b.go", "in -> real", "real/sub/up -> ../..", "out -> "+filepath.Join(e.tmp, "outside"))
	must(t, os.MkdirAll(filepath.Join(e.tmp, "outside"), 0o755))
	must(t, os.WriteFile(filepath.Join(e.tmp, "outside", "secret"), nil, 0o644))
	c := e.jailedCache(e.repo)
	var mu sync.Mutex
	var loops []string
	files, dirs, err := walkRel(t, c, e.repo, Options{Follow: true, OnSkip: func(p string, err error) {
		if errors.Is(err, ErrLoop) {
			mu.Lock()
			loops = append(loops, p)
			mu.Unlock()
		}
	}})
	must(t, err)
	for _, want := range []string{"in/a.go", "in/sub/b.go", "real/a.go", "out"} {
		if !slices.Contains(files, want) {
			t.Errorf("Follow: %s not listed: %q", want, files)
		}
	}
	if slices.Contains(files, "out/secret") || !slices.Contains(dirs, "in") {
		t.Errorf("Follow: files %q dirs %q", files, dirs)
	}
	if len(loops) != 2 { // real/sub/up and in/sub/up both lead back to the root
		t.Errorf("loops skipped: %q, want real/sub/up and in/sub/up", loops)
	}
	plain, _, err := walkRel(t, c, e.repo, Options{})
	must(t, err)
	if slices.Contains(plain, "in/a.go") || !slices.Contains(plain, "in") {
		t.Errorf("without Follow: %q", plain)
	}
}
