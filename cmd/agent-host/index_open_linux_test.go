package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestIndexUnopenableAsGit: a repository whose index is there but cannot
// be opened (no permission on it, for an ordinary user; a loop of
// symbolic links) makes git stop ("fatal: .git/index: index file open
// failed"); agent-host check-ignore exits as git does (128) naming the
// index, and walk exits 2 naming it, within 3 s and 64 MiB. Before, the
// index was taken as absent: the tracked a.txt was reported ignored and
// left out of the walk, exit 0. A dangling link is an absent index for
// both. Run as uid 65534 (setpriv), since root opens any file.
func TestIndexUnopenableAsGit(t *testing.T) {
	var as []string
	if os.Geteuid() == 0 {
		sp, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("skipped: running as root, and no setpriv to run as another user")
		}
		as = []string{sp, "--reuid=65534", "--regid=65534", "--clear-groups"}
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(dir); d != "/" && d != "/tmp"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // the test's own temporary directories
	}
	self := filepath.Join(dir, "agent-host")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(self, data, 0o755); err != nil {
		t.Fatal(err)
	}
	home, repo := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"), "LC_ALL=C"}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	for _, d := range []string{home, repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, "gitconfig"), nil, 0o644)
	git("init", "-q")
	for name, body := range map[string]string{".gitignore": "*.txt\n", "a.txt": "tracked\n", "b.txt": "untracked\n"} {
		os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644)
	}
	git("add", "-f", ".gitignore", "a.txt")
	index := filepath.Join(repo, ".git", "index")
	saved := filepath.Join(dir, "index.saved")
	if err := os.Rename(index, saved); err != nil {
		t.Fatal(err)
	}
	if len(as) > 0 {
		filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 65534, 65534) })
	}
	run := func(name string, args ...string) result {
		t.Helper()
		argv := append(append(slices.Clone(as), name), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = repo, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		r := result{stdout: out.String(), stderr: errb.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		name  string
		setup func()
		fails bool
	}{
		{"no permission", func() {
			copyIndex(t, saved, index, 0o000)
		}, true},
		{"a loop of links", func() { os.Symlink("index", index) }, true},
		{"a dangling link", func() { os.Symlink(filepath.Join(dir, "missing"), index) }, false},
		{"readable", func() { copyIndex(t, saved, index, 0o644) }, false},
	} {
		os.Remove(index)
		c.setup()
		if len(as) > 0 {
			os.Lchown(index, 65534, 65534)
		}
		g := run("git", "check-ignore", "a.txt", "b.txt")
		argv := append(slices.Clone(as), self, "check-ignore", "a.txt", "b.txt")
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = repo, env
		r, took, rss := boundedRun(t, cmd, 3*time.Second)
		if r.code != g.code || r.stdout != g.stdout {
			t.Errorf("%s: agent-host check-ignore exits %d with %q; git exits %d with %q (%q)", c.name, r.code, r.stdout, g.code, g.stdout, g.stderr)
		}
		if took > 3*time.Second || rss > 64<<10 {
			t.Errorf("%s: check-ignore took %v and %d KiB (bound 3 s, 64 MiB)", c.name, took, rss)
		}
		if (g.code == 128) != c.fails {
			t.Errorf("%s: git exits %d (%q), the test expected it to fail: %v", c.name, g.code, g.stderr, c.fails)
		}
		if g.code != 128 {
			continue
		}
		for _, s := range []string{"index file open failed", index} {
			if !strings.Contains(g.stderr, strings.TrimPrefix(s, repo+"/")) || !strings.Contains(r.stderr, s) {
				t.Errorf("%s: agent-host's stderr %q lacks %q (git: %q)", c.name, r.stderr, s, g.stderr)
			}
		}
		w := run(self, "walk")
		if w.code != 2 || !strings.Contains(w.stderr, index) || !strings.Contains(w.stderr, "index file open failed") {
			t.Errorf("%s: walk exits %d (%q), want 2 and the index named", c.name, w.code, w.stderr)
		}
	}
}

// copyIndex writes the index saved at from to to with mode perm.
func copyIndex(t *testing.T, from, to string, perm os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(to, perm); err != nil {
		t.Fatal(err)
	}
}
