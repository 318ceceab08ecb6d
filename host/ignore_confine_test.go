//go:build unix

package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/gittest"
)

// The walk cache under the Jailed policy must not become an oracle on
// files outside the roots: a model may write .git/config (it lies in the
// workspace), and git would then read whatever file it names. These tests
// attack through the Host, as a model would through its tools.

// confineWorld is a git repository as the workspace, an outside directory
// holding a secret, and an isolated git environment (HOME, no system or
// user config) for both the Host's walk cache and the git used as oracle.
type confineWorld struct {
	t       *testing.T
	g       *gittest.Env
	ws, out string
	h       *host.Host
}

func newConfineWorld(t *testing.T) *confineWorld {
	t.Helper()
	gittest.Skip(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &confineWorld{t: t, ws: filepath.Join(dir, "ws"), out: filepath.Join(dir, "out")}
	home := filepath.Join(dir, "home")
	for _, d := range []string{w.ws, w.out, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.g = gittest.At(home, filepath.Join(home, ".config"))
	w.g.Setenv(t) // the Host reads os.Getenv
	w.git("init", "-q")
	w.writeOut("passwords.txt", "hunter2\ncorrect-horse\n")
	w.h = newHost(t, host.Config{WorkspaceRoot: w.ws, Home: home})
	return w
}

// git runs git in the workspace and returns its output; check-ignore's
// exit status 1 (nothing ignored) is not an error.
func (w *confineWorld) git(args ...string) string {
	w.t.Helper()
	out, code := w.g.Run(w.t, w.ws, "", args...)
	if code != 0 && !(code == 1 && args[0] == "check-ignore") {
		w.t.Fatalf("git %q: exit %d", args, code)
	}
	return out
}

// gitIgnored is git check-ignore's answer for path.
func (w *confineWorld) gitIgnored(path string) bool {
	return strings.TrimSpace(w.git("check-ignore", "--no-index", "--", path)) != ""
}

func (w *confineWorld) writeOut(name, data string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.out, name), []byte(data), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// write writes a workspace file through the Host, as a model would.
func (w *confineWorld) write(name, data string) {
	w.t.Helper()
	if _, err := w.h.WriteFile(bg, "", name, []byte(data)); err != nil {
		w.t.Fatal(err)
	}
}

func (w *confineWorld) ignored(path string) bool {
	w.t.Helper()
	ig, err := w.h.IsPathIgnored(bg, "", path)
	if err != nil {
		w.t.Fatalf("IsPathIgnored(%q): %v", path, err)
	}
	return ig
}

// listed reports whether a Walk of the workspace lists path.
func (w *confineWorld) listed(path string) bool {
	w.t.Helper()
	ents, err := w.h.Walk(bg, "", ".", host.WalkOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	for _, e := range ents {
		if e.Path == filepath.Join(w.ws, path) {
			return true
		}
	}
	return false
}

// TestIgnoreConfinedOracle: a repository config written by the model that
// names an outside file (as core.excludesFile, include.path or includeIf's
// path) answers as if that file did not exist. git itself, with the file
// present, would reveal it: that is the one divergence, on purpose.
func TestIgnoreConfinedOracle(t *testing.T) {
	cases := []struct {
		name   string
		secret string // the outside file the config names
		config func(w *confineWorld) string
	}{
		{"core.excludesFile", "passwords.txt", func(w *confineWorld) string {
			return "[core]\n\texcludesFile = " + filepath.Join(w.out, "passwords.txt") + "\n"
		}},
		{"core.excludesFile relative", "passwords.txt", func(w *confineWorld) string {
			return "[core]\n\texcludesFile = ../out/passwords.txt\n"
		}},
		{"include.path", "inc.cfg", func(w *confineWorld) string {
			w.writeOut("inc.cfg", "[core]\n\texcludesFile = "+filepath.Join(w.ws, "rules")+"\n")
			w.write("rules", "hunter2\n")
			return "[include]\n\tpath = " + filepath.Join(w.out, "inc.cfg") + "\n"
		}},
		{"includeIf gitdir path", "inc.cfg", func(w *confineWorld) string {
			w.writeOut("inc.cfg", "[core]\n\texcludesFile = "+filepath.Join(w.ws, "rules")+"\n")
			w.write("rules", "hunter2\n")
			return "[includeIf \"gitdir:" + w.ws + "/\"]\n\tpath = " + filepath.Join(w.out, "inc.cfg") + "\n"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newConfineWorld(t)
			cfg, err := os.ReadFile(filepath.Join(w.ws, ".git", "config"))
			if err != nil {
				t.Fatal(err)
			}
			w.write(".git/config", string(cfg)+tc.config(w))
			if _, err := w.h.ReadFile(bg, "", filepath.Join(w.out, tc.secret)); err == nil {
				t.Fatal("the secret is readable through the Host; the test tests nothing")
			}
			if !w.gitIgnored("hunter2") {
				t.Fatal("git does not see the secret through this config; the test tests nothing")
			}

			present := map[string]bool{}
			for _, p := range []string{"hunter2", "correct-horse", "guess", "sub/hunter2"} {
				present[p] = w.ignored(p)
			}
			w.write("hunter2", "x")
			listedPresent := w.listed("hunter2")

			// What the answers must be: those for a machine without the file.
			if err := os.Rename(filepath.Join(w.out, tc.secret), filepath.Join(w.out, tc.secret+".away")); err != nil {
				t.Fatal(err)
			}
			for p, got := range present {
				if want := w.gitIgnored(p); got != want {
					t.Errorf("IsPathIgnored(%q) = %v with the outside file, git says %v without it", p, got, want)
				}
				if absent := w.ignored(p); absent != got {
					t.Errorf("IsPathIgnored(%q) = %v with the outside file, %v without it", p, got, absent)
				}
			}
			if !listedPresent || !w.listed("hunter2") {
				t.Errorf("Walk leaves hunter2 out (with the outside file: listed=%v)", listedPresent)
			}
		})
	}
}

// TestIgnoreConfinedInsideStillWorks: the same settings naming files
// inside the workspace are followed, as git follows them.
func TestIgnoreConfinedInsideStillWorks(t *testing.T) {
	w := newConfineWorld(t)
	cfg, err := os.ReadFile(filepath.Join(w.ws, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	w.write("rules", "hunter2\n")
	w.write("more.cfg", "[core]\n\texcludesFile = rules2\n")
	w.write("rules2", "other\n")
	w.write(".git/config", string(cfg)+"[core]\n\texcludesFile = rules\n")
	for _, p := range []string{"hunter2", "other"} {
		if got, want := w.ignored(p), w.gitIgnored(p); got != want {
			t.Errorf("excludesFile inside: IsPathIgnored(%q) = %v, git says %v", p, got, want)
		}
	}
	w.write(".git/config", string(cfg)+"[include]\n\tpath = ../more.cfg\n")
	for _, p := range []string{"hunter2", "other"} {
		if got, want := w.ignored(p), w.gitIgnored(p); got != want {
			t.Errorf("include.path inside: IsPathIgnored(%q) = %v, git says %v", p, got, want)
		}
	}
}

// TestIgnoreConfinedLinks: ignore files inside the workspace that are
// symbolic links to an outside file are not read. git refuses a linked
// .gitignore itself (since 2.32), so there the answer is git's with the
// file present; it follows a linked info/exclude or config, which the
// jail refuses, so there the answer is git's without it.
func TestIgnoreConfinedLinks(t *testing.T) {
	t.Run(".gitignore", func(t *testing.T) {
		w := newConfineWorld(t)
		if err := os.Symlink(filepath.Join(w.out, "passwords.txt"), filepath.Join(w.ws, ".gitignore")); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"hunter2", "sub/hunter2", ".gitignore"} {
			if got, want := w.ignored(p), w.gitIgnored(p); got != want {
				t.Errorf("IsPathIgnored(%q) = %v, git says %v", p, got, want)
			}
		}
		if w.ignored("hunter2") {
			t.Error("a .gitignore linked to an outside file was read")
		}
	})
	t.Run("info/exclude", func(t *testing.T) {
		w := newConfineWorld(t)
		ex := filepath.Join(w.ws, ".git", "info", "exclude")
		os.Remove(ex)
		os.MkdirAll(filepath.Dir(ex), 0o755)
		if err := os.Symlink(filepath.Join(w.out, "passwords.txt"), ex); err != nil {
			t.Fatal(err)
		}
		if !w.gitIgnored("hunter2") {
			t.Fatal("git does not follow the link; the test tests nothing")
		}
		if w.ignored("hunter2") {
			t.Error("an info/exclude linked to an outside file was read")
		}
	})
	t.Run("excludesFile inside links outside", func(t *testing.T) {
		w := newConfineWorld(t)
		if err := os.Symlink(filepath.Join(w.out, "passwords.txt"), filepath.Join(w.ws, "rules")); err != nil {
			t.Fatal(err)
		}
		cfg, _ := os.ReadFile(filepath.Join(w.ws, ".git", "config"))
		w.write(".git/config", string(cfg)+"[core]\n\texcludesFile = rules\n")
		if w.ignored("hunter2") {
			t.Error("an excludes file linked to an outside file was read")
		}
	})
}

// TestIgnoreConfinedSwapRace: .git/info/exclude flips between a regular
// file and a symbolic link to the secret as fast as it can while
// IsPathIgnored is asked about the secret's line. Every read goes
// through the jail, so the line never shows, however the swaps fall
// between the stat that notices a change and the read.
func TestIgnoreConfinedSwapRace(t *testing.T) {
	w := newConfineWorld(t)
	info := filepath.Join(w.ws, ".git", "info")
	os.MkdirAll(info, 0o755)
	ex := filepath.Join(info, "exclude")
	if err := os.WriteFile(ex, []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		n := 0
		tmpL, tmpF := filepath.Join(info, "l"), filepath.Join(info, "f")
		for {
			select {
			case <-stop:
				done <- n
				return
			default:
			}
			os.Remove(tmpL)
			os.Symlink(filepath.Join(w.out, "passwords.txt"), tmpL)
			os.Rename(tmpL, ex)
			os.WriteFile(tmpF, []byte("other\n"), 0o644)
			os.Rename(tmpF, ex)
			n++
		}
	}()
	deadline := time.Now().Add(500 * time.Millisecond)
	calls, sawOther := 0, 0
	for time.Now().Before(deadline) {
		if w.ignored("hunter2") {
			close(stop)
			<-done
			t.Fatalf("call %d: the outside file's line showed through a swapped link", calls)
		}
		if w.ignored("other") {
			sawOther++
		}
		calls++
	}
	close(stop)
	swaps := <-done
	if sawOther == 0 {
		t.Errorf("info/exclude was never read (%d calls, %d swaps): the test tests nothing", calls, swaps)
	}
	t.Logf("%d calls, %d swaps, the regular file seen %d times", calls, swaps, sawOther)
}

// TestIgnoreFIFODoesNotBlockHost: a .gitignore that is a FIFO with a
// writer holding it open neither blocks IsPathIgnored or Walk nor holds
// up an unrelated call (the walk cache's lock is never held across a
// read that can wait).
func TestIgnoreFIFODoesNotBlockHost(t *testing.T) {
	w := newConfineWorld(t)
	os.MkdirAll(filepath.Join(w.ws, "sub"), 0o755)
	fifo := filepath.Join(w.ws, "sub", ".gitignore")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	wr, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()
	wr.WriteString("a\n")
	w.write("sub/a", "x")
	w.write(".gitignore", "*.log\n")

	done := make(chan error, 3)
	go func() { _, err := w.h.IsPathIgnored(bg, "", "sub/a"); done <- err }()
	go func() { _, err := w.h.Walk(bg, "", ".", host.WalkOptions{}); done <- err }()
	go func() { _, err := w.h.IsPathIgnored(bg, "", "x.log"); done <- err }()
	for range 3 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("blocked on a FIFO .gitignore")
		}
	}
	if got, want := w.ignored("sub/a"), w.gitIgnored("sub/a"); got != want {
		t.Errorf("sub/a: %v, git says %v", got, want)
	}
	if !w.ignored("x.log") {
		t.Error("x.log is not ignored")
	}
}
