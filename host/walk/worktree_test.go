package walk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/internal/gittest"
)

// TestInWorkTreeIsGit: InWorkTree answers as git rev-parse
// --is-inside-work-tree does, for directories in and out of repositories,
// with a .git that is a file, a .git that makes no repository, and a
// directory that does not exist (judged, as InWorkTree says, by the
// deepest one above it that does).
func TestInWorkTreeIsGit(t *testing.T) {
	env := gittest.New(t)
	base := t.TempDir()
	for p := base; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
			t.Skipf("skipped: %s is inside the git work tree %s", base, p)
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	mk := func(rel string) string {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write := func(rel, data string) {
		if err := os.WriteFile(filepath.Join(base, rel), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env.Init(t, mk("repo"))
	mk("repo/sub/deeper")
	env.Init(t, mk("repo/sub/nested"))
	mk("plain/sub")
	mk("strayfile")
	write("strayfile/.git", "")
	mk("straydir/.git")
	mk("linked")
	env.Git(t, base, "init", "-q", "--separate-git-dir", filepath.Join(base, "sep.git"), filepath.Join(base, "linked"))
	mk("linked/sub")

	c := &Cache{Getenv: env.Getenv}
	for _, rel := range []string{
		"repo", "repo/sub", "repo/sub/deeper", "repo/sub/nested", "repo/missing/deeper",
		"plain", "plain/sub", "plain/missing", "strayfile", "straydir", "linked", "linked/sub", ".",
	} {
		dir := filepath.Join(base, rel)
		at := dir
		for {
			if _, err := os.Stat(at); err == nil {
				break
			}
			at = filepath.Dir(at)
		}
		out, code := env.Run(t, at, "", "rev-parse", "--is-inside-work-tree")
		want := code == 0 && strings.TrimSpace(out) == "true"
		if got := c.InWorkTree(dir); got != want {
			t.Errorf("InWorkTree(%s) = %v, git says %v (%q, exit %d)", rel, got, want, out, code)
		}
	}
	if c.InWorkTree("repo") {
		t.Error("InWorkTree of a relative path is true")
	}
	c.mu.Lock()
	watching := c.watching()
	c.mu.Unlock()
	if watching {
		t.Error("InWorkTree opened an inotify descriptor")
	}
}
