package exec

import (
	"context"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/gittest"
)

// gitWorkTree is a Sandbox.WorkTree with git as the oracle: `git
// rev-parse --is-inside-work-tree` in dir, in a git world of the test's
// own (gittest: an empty HOME, no system or user configuration). It
// stands for the walk's answer the Host passes, which this package does
// not import.
func gitWorkTree(t *testing.T) func(dir string) bool {
	t.Helper()
	g := gittest.New(t)
	return func(dir string) bool {
		out, err := g.Command(dir, "git", "rev-parse", "--is-inside-work-tree").Output()
		return err == nil && string(out) == "true\n"
	}
}

// homeTree lists everything beneath home (its paths and sizes), to see
// that a run wrote nothing there.
func homeTree(t *testing.T, home string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		b.WriteString(p + " " + fi.Mode().String() + "\n")
		if fi.Mode().IsRegular() {
			b.WriteString(fi.ModTime().String() + "\n")
		}
		return nil
	})
	return b.String()
}

// TestSandboxCacheInWorkspace: the build cache of a sandboxed `go build`
// lasts from one Runner to the next (as from one `agent-host exec` to the
// next): the second build compiles nothing. It lives beneath the
// workspace at CacheDir, git ignores it, nothing is written under the
// home directory, and the request's own XDG_CACHE_HOME wins.
func TestSandboxCacheInWorkspace(t *testing.T) {
	f := newSBFixture(t)
	gobin, err := osexec.LookPath("go")
	if err != nil {
		t.Skip("skipped: go is not installed")
	}
	must(t, os.WriteFile(filepath.Join(f.ws, "go.mod"), []byte("module example.com/p\n\ngo 1.21\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.ws, "p.go"), []byte("package p\n\nfunc F() int { return 1 }\n"), 0o644))
	t.Setenv("GOCACHE", "") // the default: $XDG_CACHE_HOME/go-build
	t.Setenv("GOENV", "off")
	// The user's cache, which the view would lay under the command's
	// (docs/adr/0014), is a missing one of the test's: this test is about
	// the workspace's own cache.
	t.Setenv("XDG_CACHE_HOME", filepath.Join(f.base, "no-user-cache"))
	env := []string{"PATH=" + filepath.Dir(gobin) + ":/usr/bin:/bin", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off",
		"GOPATH=" + filepath.Join(f.base, "gopath"), "GOTELEMETRY=off"}
	before := homeTree(t, f.home)

	sb := func() *Sandbox {
		s := f.sandbox()
		s.RootDirs = []*os.File{f.wsDir}
		s.WorkTree = gitWorkTree(t)
		return s
	}
	build := func(r *Runner) Output {
		t.Helper()
		req := f.request("go build -x . 2>&1; echo cache=$XDG_CACHE_HOME", sb(), env...)
		req.Timeout = 2 * time.Minute
		out, err := r.Exec(context.Background(), req)
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("go build: %+v, %v", out, err)
		}
		return out
	}
	compiles := func(out Output) bool { return strings.Contains(out.Stdout, "/compile ") }

	first := build(f.r)
	if !compiles(first) {
		t.Fatalf("the first build compiled nothing: is a cache shared with the test? %s", first.Stdout)
	}
	cache := filepath.Join(f.ws, CacheDir)
	if !strings.Contains(first.Stdout, "cache="+cache+"\n") {
		t.Errorf("XDG_CACHE_HOME is not %s: %s", cache, lastLine(first.Stdout))
	}
	must(t, f.r.Close())
	r2 := NewRunner(Limits{})
	defer r2.Close()
	if second := build(r2); compiles(second) {
		t.Errorf("the second Runner's build compiled again (cold cache):\n%s", second.Stdout)
	}
	if _, err := os.Stat(filepath.Join(cache, "go-build")); err != nil {
		t.Errorf("no build cache in the workspace: %v", err)
	}
	fileIs(t, filepath.Join(cache, ".gitignore"), "*\n")
	// git is the oracle: nothing of the cache shows, all of it is ignored.
	if st := f.git(t, f.ws, "status", "--porcelain", "--untracked-files=all"); strings.Contains(st, ".agent-harness") {
		t.Errorf("git status shows the cache:\n%s", st)
	}
	if ig := f.git(t, f.ws, "status", "--porcelain", "--ignored"); !strings.Contains(ig, "!! .agent-harness/") {
		t.Errorf("git does not report the cache ignored:\n%s", ig)
	}
	if after := homeTree(t, f.home); after != before {
		t.Errorf("the home directory changed:\nbefore\n%s\nafter\n%s", before, after)
	}

	// The request's own cache wins.
	mine := filepath.Join(f.ws, "mycache")
	out, err := r2.Exec(context.Background(), f.request(`echo "$XDG_CACHE_HOME"`, sb(), "XDG_CACHE_HOME="+mine))
	if err != nil || out.Stdout != mine+"\n" {
		t.Errorf("request's XDG_CACHE_HOME: %+v, %v", out, err)
	}
	// SessionCache: in the private temporary directory.
	s := sb()
	s.SessionCache = true
	out, err = r2.Exec(context.Background(), f.request(`echo "$XDG_CACHE_HOME"`, s))
	if err != nil || out.Stdout != filepath.Join(r2.tmp, "cache")+"\n" {
		t.Errorf("SessionCache: %+v, %v (tmp %s)", out, err, r2.tmp)
	}
}

// TestSandboxCacheRefusesLinks: a link a command left where the cache
// goes (at .agent-harness, pointing at the home directory) is not
// followed: the run's caches go to its temporary directory and nothing is
// made under the home directory.
func TestSandboxCacheRefusesLinks(t *testing.T) {
	f := newSBFixture(t)
	must(t, os.Symlink(f.home, filepath.Join(f.ws, ".agent-harness")))
	before := homeTree(t, f.home)
	sb := f.sandbox()
	sb.RootDirs = []*os.File{f.wsDir}
	sb.WorkTree = gitWorkTree(t) // a work tree: only the link keeps the cache out
	out, err := f.r.Exec(context.Background(), f.request(`echo "$XDG_CACHE_HOME"`, sb))
	if err != nil || out.Stdout != filepath.Join(f.r.tmp, "cache")+"\n" {
		t.Errorf("with a link in the way: %+v, %v", out, err)
	}
	if after := homeTree(t, f.home); after != before {
		t.Errorf("the home directory changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	// The same with the link one level down.
	must(t, os.Remove(filepath.Join(f.ws, ".agent-harness")))
	must(t, os.Mkdir(filepath.Join(f.ws, ".agent-harness"), 0o755))
	must(t, os.Symlink(f.home, filepath.Join(f.ws, ".agent-harness", "sandbox-cache")))
	out, err = f.r.Exec(context.Background(), f.request(`echo "$XDG_CACHE_HOME"`, sb))
	if err != nil || out.Stdout != filepath.Join(f.r.tmp, "cache")+"\n" {
		t.Errorf("with a link one level down: %+v, %v", out, err)
	}
	if after := homeTree(t, f.home); after != before {
		t.Errorf("the home directory changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// TestSandboxCacheOutsideGit: a workspace in no git work tree keeps its
// caches in the run's temporary directory (git, and the Host's walk,
// would not hide a cache beneath it), and nothing is made there.
func TestSandboxCacheOutsideGit(t *testing.T) {
	requireSandbox(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	for p := ws; p != "/"; p = filepath.Dir(p) {
		if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
			t.Skipf("skipped: %s is inside the git work tree %s", ws, p)
		}
	}
	d, err := os.Open(ws)
	must(t, err)
	defer d.Close()
	r := NewRunner(Limits{})
	defer r.Close()
	out, err := r.Exec(context.Background(), Request{Command: `echo "$XDG_CACHE_HOME"`, Cwd: ws, Dir: d,
		Sandbox: &Sandbox{Roots: []string{ws}, RootDirs: []*os.File{d}, Home: ws, Required: true, WorkTree: gitWorkTree(t)}})
	if err != nil || out.Stdout != filepath.Join(r.tmp, "cache")+"\n" {
		t.Errorf("outside git: %+v, %v", out, err)
	}
	absent(t, filepath.Join(ws, ".agent-harness"))
}

// TestSandboxCacheNeedsWorkTree: a caller that passes no Sandbox.WorkTree
// gets the caches in the run's temporary directory, as with SessionCache,
// even in a repository (this package cannot tell how the caller's
// listings see the tree), and nothing is made in the workspace. So does
// a WorkTree that says no. The same workspace with git's answer gets the
// workspace cache, so the test can tell the two apart.
func TestSandboxCacheNeedsWorkTree(t *testing.T) {
	f := newSBFixture(t)
	cacheOf := func(workTree func(string) bool) string {
		t.Helper()
		sb := f.sandbox()
		sb.RootDirs = []*os.File{f.wsDir}
		sb.WorkTree = workTree
		out, err := f.r.Exec(context.Background(), f.request(`printf %s "$XDG_CACHE_HOME"`, sb))
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("exec: %+v, %v", out, err)
		}
		return out.Stdout
	}
	got := cacheOf(nil)
	tmp := filepath.Join(f.r.tmp, "cache") // made by the first run
	if got != tmp {
		t.Errorf("no WorkTree: XDG_CACHE_HOME %q, want %q", got, tmp)
	}
	if got := cacheOf(func(string) bool { return false }); got != tmp {
		t.Errorf("WorkTree says no: XDG_CACHE_HOME %q, want %q", got, tmp)
	}
	absent(t, filepath.Join(f.ws, ".agent-harness"))
	if got, want := cacheOf(gitWorkTree(t)), filepath.Join(f.ws, CacheDir); got != want {
		t.Errorf("git's answer: XDG_CACHE_HOME %q, want %q", got, want)
	}
}
