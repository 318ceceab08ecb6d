package walk

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agenthost/agenthost/host/jail"
)

// testJail is a Jail over host/jail, as the Host wires it.
type testJail struct{ j *jail.Jail }

func (tj testJail) Contains(p string) bool { return tj.j.Contains(p) }

func (tj testJail) EnterRoots(p string, follow bool) (string, bool) {
	return tj.j.EnterRoots(p, follow)
}

func (tj testJail) Open(p string) (*os.File, error) {
	f, _, err := tj.j.OpenFile("", p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	return f, err
}

// testJailFd is testJail with OpenDirFd (DirFdOpener), as the Host wires
// it: a .gitignore or .git is looked at relative to a bare descriptor.
type testJailFd struct{ testJail }

func (tj testJailFd) OpenDirFd(p string) (int, error) {
	fd, _, err := tj.j.OpenDirFd("", p)
	return fd, err
}

// jailedCache is e.cache() confined by a jail whose roots are roots, as
// the Host wires it (DirFdOpener offered).
func (e *gitEnv) jailedCache(roots ...string) *Cache {
	c := e.jailedCacheOpenOnly(roots...)
	c.Jail = testJailFd{c.Jail.(testJail)}
	return c
}

// jailedCacheOpenOnly is jailedCache with a Jail that offers Open alone.
func (e *gitEnv) jailedCacheOpenOnly(roots ...string) *Cache {
	e.t.Helper()
	j, err := jail.New(roots[0], roots[1:], jail.Jailed, e.home)
	must(e.t, err)
	e.t.Cleanup(func() { j.Close() })
	c := e.cache()
	c.Jail = testJail{j}
	return c
}

// answers is what c says about e.repo: "walk:" plus each file a
// Walk(Hidden) lists, and for every path on disk (directories also with
// a trailing slash) and every probe, whether IsIgnored (from the top)
// says it is ignored.
func answers(t *testing.T, e *gitEnv, c *Cache, probes []string) map[string]bool {
	t.Helper()
	files, _, err := walkRel(t, c, e.repo, Options{Hidden: true})
	must(t, err)
	got := map[string]bool{}
	for _, f := range files {
		got["walk:"+f] = true
	}
	for _, p := range probePaths(t, e, probes) {
		abs := filepath.Join(e.repo, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			abs += string(os.PathSeparator)
		}
		ig, err := c.IsIgnored(context.Background(), e.repo, abs)
		must(t, err)
		got[p] = ig
	}
	return got
}

// gitAnswers is answers as git gives them.
func gitAnswers(t *testing.T, e *gitEnv, probes []string) map[string]bool {
	t.Helper()
	o := newOracle(e)
	paths := probePaths(t, e, probes)
	o.prefetch(paths)
	want := map[string]bool{}
	for _, f := range o.files("") {
		want["walk:"+f] = true
	}
	for _, p := range paths {
		want[p] = o.ignored(p, true)
	}
	return want
}

func probePaths(t *testing.T, e *gitEnv, probes []string) []string {
	files, dirs := diskTree(t, e.repo)
	all := append(append(files, dirs...), probes...)
	for _, d := range dirs {
		all = append(all, d+"/")
	}
	return all
}

// diffAnswers describes how got differs from want.
func diffAnswers(want, got map[string]bool) string {
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		if want[k] != got[k] {
			b.WriteString("  " + quote(k) + ": want " + boolStr(want[k]) + ", got " + boolStr(got[k]) + "\n")
		}
	}
	return b.String()
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// confineCases are repositories whose files, written by someone who may
// write only inside the repository, try to make IsIgnored depend on a
// file outside it ("/out/..." in the DSL, the secret). A Cache with a Jail
// on the repository must answer exactly what git answers when the secret
// does not exist; with secret "", nothing leaves the repository and the
// answers must be git's as they are.
var confineCases = []struct {
	name   string
	secret string // removed to compute what git must be matched against
	leaks  bool   // without the Jail the secret shows (the attack is real)
	setup  func(e *gitEnv)
}{
	{name: "core.excludesFile absolute outside", secret: "/out/passwords.txt", leaks: true, setup: func(e *gitEnv) {
		e.git(e.repo, "config", "core.excludesFile", e.abs("/out/passwords.txt"))
	}},
	{name: "core.excludesFile relative outside", secret: "/out/passwords.txt", leaks: true, setup: func(e *gitEnv) {
		e.git(e.repo, "config", "core.excludesFile", "../out/passwords.txt")
	}},
	{name: "core.excludesFile ~ outside", secret: "~/passwords.txt", leaks: true, setup: func(e *gitEnv) {
		e.write("~/passwords.txt", "hunter2\n*.go\n")
		e.git(e.repo, "config", "core.excludesFile", "~/passwords.txt")
	}},
	{name: "core.excludesFile outside overrides a global one", secret: "/out/passwords.txt", leaks: true, setup: func(e *gitEnv) {
		e.write("~/.gitconfig", "[core]\n\texcludesFile = ~/global-ignore\n")
		e.write("~/global-ignore", "*.md\n")
		e.git(e.repo, "config", "core.excludesFile", e.abs("/out/passwords.txt"))
	}},
	{name: "core.excludesFile inside links outside", secret: "/out/passwords.txt", leaks: true, setup: func(e *gitEnv) {
		must(e.t, os.Symlink(e.abs("/out/passwords.txt"), e.abs("rules")))
		e.git(e.repo, "config", "core.excludesFile", e.abs("rules"))
	}},
	{name: "include.path outside", secret: "/out/inc.cfg", leaks: true, setup: func(e *gitEnv) {
		e.write("rules", "hunter2\n")
		e.write("/out/inc.cfg", "[core]\n\texcludesFile = "+e.abs("rules")+"\n")
		e.git(e.repo, "config", "include.path", e.abs("/out/inc.cfg"))
	}},
	{name: "includeIf gitdir path outside", secret: "/out/inc.cfg", leaks: true, setup: func(e *gitEnv) {
		e.write("rules", "hunter2\n")
		e.write("/out/inc.cfg", "[core]\n\tignorecase = true\n\texcludesFile = "+e.abs("rules")+"\n")
		e.git(e.repo, "config", "includeIf.gitdir:"+e.repo+"/.path", e.abs("/out/inc.cfg"))
	}},
	{name: "info/exclude links outside", secret: "/out/passwords.txt", leaks: true, setup: func(e *gitEnv) {
		must(e.t, os.Remove(e.abs(".git/info/exclude")))
		must(e.t, os.Symlink(e.abs("/out/passwords.txt"), e.abs(".git/info/exclude")))
	}},
	{name: "config links outside", secret: "/out/evil.cfg", leaks: true, setup: func(e *gitEnv) {
		e.write("rules", "hunter2\n")
		b, err := os.ReadFile(e.abs(".git/config"))
		must(e.t, err)
		e.write("/out/evil.cfg", string(b)+"[core]\n\texcludesFile = "+e.abs("rules")+"\n")
		must(e.t, os.Remove(e.abs(".git/config")))
		must(e.t, os.Symlink(e.abs("/out/evil.cfg"), e.abs(".git/config")))
	}},
	{name: "global excludes links into the repository and out again", secret: "/out/passwords.txt", leaks: true, setup: func(e *gitEnv) {
		must(e.t, os.MkdirAll(e.abs("~/.config/git"), 0o755))
		must(e.t, os.Symlink(e.abs("dotfiles/ignore"), e.abs("~/.config/git/ignore")))
		must(e.t, os.MkdirAll(e.abs("dotfiles"), 0o755))
		must(e.t, os.Symlink(e.abs("/out/passwords.txt"), e.abs("dotfiles/ignore")))
	}},
	{name: ".gitignore links outside (git refuses it too)", secret: "/out/passwords.txt", setup: func(e *gitEnv) {
		must(e.t, os.Symlink(e.abs("/out/passwords.txt"), e.abs("sub/.gitignore")))
	}},

	// Nothing leaves the repository: git's answers as they are.
	{name: "core.excludesFile inside", setup: func(e *gitEnv) {
		e.write("rules", "hunter2\n")
		e.git(e.repo, "config", "core.excludesFile", "rules")
	}},
	{name: "include.path inside", setup: func(e *gitEnv) {
		e.write("rules", "hunter2\n")
		e.write("inc.cfg", "[core]\n\texcludesFile = "+e.abs("rules")+"\n")
		e.git(e.repo, "config", "include.path", "../inc.cfg")
	}},
	{name: "info/exclude links inside", setup: func(e *gitEnv) {
		e.write("rules", "hunter2\n")
		must(e.t, os.Remove(e.abs(".git/info/exclude")))
		must(e.t, os.Symlink("../../rules", e.abs(".git/info/exclude")))
	}},
	{name: "global excludes links into the repository", setup: func(e *gitEnv) {
		e.write("dotfiles/ignore", "hunter2\n")
		must(e.t, os.MkdirAll(e.abs("~/.config/git"), 0o755))
		must(e.t, os.Symlink(e.abs("dotfiles/ignore"), e.abs("~/.config/git/ignore")))
	}},
	{name: "global config includes an outside file", setup: func(e *gitEnv) {
		e.write("~/.gitconfig", "[include]\n\tpath = /dev/null\n[include]\n\tpath = "+e.abs("/out/global.inc")+"\n")
		e.write("/out/global.inc", "[core]\n\texcludesFile = "+e.abs("/out/global-ignore")+"\n")
		e.write("/out/global-ignore", "hunter2\n")
	}},
}

// TestJailConfinesRepositoryFiles: with a Jail, what the repository's own
// files name outside the roots is not consulted, so IsIgnored and Walk
// answer as git does when the outside file does not exist; what the
// user's global configuration names is trusted; and everything that stays
// inside is git-exact.
func TestJailConfinesRepositoryFiles(t *testing.T) {
	probes := []string{"hunter2", "sub/hunter2", "x.go", "sub/y.go", "a.md"}
	for _, tc := range confineCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newGitEnv(t, false)
			e.make("a.md", "b.txt", "sub/c.txt", "hunter2", "sub/hunter2", "x.go")
			e.write("/out/passwords.txt", "hunter2\n*.go\n")
			tc.setup(e)

			got := answers(t, e, e.jailedCache(e.repo), probes)
			gotOpen := answers(t, e, e.jailedCacheOpenOnly(e.repo), probes)
			if tc.leaks {
				// The attack works without the Jail (and with git).
				if open := answers(t, e, e.cache(), probes); !open["hunter2"] && !open["x.go"] {
					t.Fatalf("without a Jail the secret does not show; the case tests nothing")
				}
			}
			if tc.secret != "" {
				must(t, os.Rename(e.abs(tc.secret), e.abs(tc.secret)+".away"))
			}
			want := gitAnswers(t, e, probes)
			if d := diffAnswers(want, got); d != "" {
				t.Errorf("jailed answers with the secret present differ from git's without it:\n%s", d)
			}
			if d := diffAnswers(want, gotOpen); d != "" {
				t.Errorf("jailed answers (Open only) with the secret present differ from git's without it:\n%s", d)
			}
			if d := diffAnswers(want, answers(t, e, e.jailedCache(e.repo), probes)); d != "" {
				t.Errorf("jailed answers without the secret differ from git's:\n%s", d)
			}
		})
	}
}
