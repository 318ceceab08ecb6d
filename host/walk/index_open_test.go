//go:build unix

package walk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIndexUnopenable: an index git cannot open (here a loop of symbolic
// links, which no user can open; the permission case is
// TestIndexUnopenableAsGit in cmd/agent-host) makes git stop with "index
// file open failed"; IsIgnored returns ErrIndexUnreadable (and
// ErrIndexUnsupported) naming the file, and Walk a PartialError with it,
// at once. Before, the index was taken as absent and the tracked a.log
// reported ignored. A dangling link is an absent index, for git as here.
func TestIndexUnopenable(t *testing.T) {
	e := newGitEnv(t, false)
	e.write(".gitignore", "*.log\n")
	e.write("a.log", "")
	e.git(e.repo, "add", "-f", "a.log")
	path := filepath.Join(e.repo, ".git", "index")
	must(t, os.Remove(path))
	must(t, os.Symlink("index", path))
	out, code := e.g.Run(t, e.repo, "", "check-ignore", "a.log")
	if code != 128 {
		t.Fatalf("git check-ignore with a looping index: exit %d (%q), want 128", code, out)
	}
	cache := e.cache()
	defer cache.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	boundedIndex(t, "IsIgnored with a looping index", time.Second, 1<<20, func() {
		_, err := cache.IsIgnored(ctx, e.repo, filepath.Join(e.repo, "a.log"))
		if !errors.Is(err, ErrIndexUnreadable) || !errors.Is(err, ErrIndexUnsupported) || !strings.Contains(err.Error(), path) {
			t.Fatalf("IsIgnored: %v, want ErrIndexUnreadable naming %s", err, path)
		}
	})
	err := cache.Walk(ctx, e.repo, Options{}, func(Entry) error { return nil })
	var pe *PartialError
	if !errors.As(err, &pe) || !errors.Is(err, ErrIndexUnreadable) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Walk: %v, want a PartialError with ErrIndexUnreadable naming %s", err, path)
	}

	// Dangling: absent for both, so a.log (untracked now) is ignored.
	must(t, os.Remove(path))
	must(t, os.Symlink(filepath.Join(e.tmp, "missing"), path))
	gout := strings.TrimSpace(string(e.git(e.repo, "check-ignore", "a.log")))
	ignored, err := cache.IsIgnored(ctx, e.repo, filepath.Join(e.repo, "a.log"))
	if err != nil || ignored != (gout == "a.log") {
		t.Fatalf("IsIgnored with a dangling index link: %v, %v; git says %q", ignored, err, gout)
	}
}
