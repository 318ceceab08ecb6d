// Package gittest runs git, and the code whose answers are compared with
// git's, in one configuration of the test's own: an empty HOME, its own
// XDG_CONFIG_HOME (or none), its own global config file and no system
// config. A test that asks git what is ignored and then asks the code under
// test must give both the same world, or the developer's own
// ~/.config/git/ignore decides the outcome: git reads it through HOME even
// when GIT_CONFIG_GLOBAL is /dev/null.
//
// It is test support: only _test.go files import it.
package gittest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Env is one isolated git world. Its zero value is not usable; make one
// with New or At.
type Env struct {
	// Home is HOME: a directory of the test's, holding .gitconfig.
	Home string
	// XDG is XDG_CONFIG_HOME, or "" when it is unset (git then uses
	// Home/.config).
	XDG  string
	vars map[string]string
}

// Option changes what New sets up.
type Option func(*Env)

// NoXDG leaves XDG_CONFIG_HOME unset, so that git and the code under test
// look for the global excludes file in Home/.config/git/ignore.
func NoXDG() Option { return func(e *Env) { e.XDG = "" } }

// Skip skips t when git is not installed.
func Skip(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// New makes an Env under a new temporary directory: HOME is <tmp>/home and
// XDG_CONFIG_HOME <tmp>/xdg (unless NoXDG), both empty but for
// Home/.gitconfig, which names a user (for commits) and the default
// branch. It skips t when git is not installed. The directory is
// t.TempDir() as it is (resolving links is the jail's job; where the
// temporary directory is reached through one, as on macOS, a test that
// compares canonical paths resolves it itself).
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	Skip(t)
	tmp := t.TempDir()
	e := &Env{Home: filepath.Join(tmp, "home"), XDG: filepath.Join(tmp, "xdg")}
	for _, o := range opts {
		o(e)
	}
	for _, d := range []string{e.Home, e.XDG} {
		if d != "" {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	cfg := "[user]\n\tname = gittest\n\temail = gittest@example.invalid\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(e.Home, ".gitconfig"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	e.setVars()
	return e
}

// At is an Env around a HOME (and XDG_CONFIG_HOME, "" for none) the test
// made itself, for a program under test that was already given them; the
// global config file is home/.gitconfig, whether or not it exists.
func At(home, xdg string) *Env {
	e := &Env{Home: home, XDG: xdg}
	e.setVars()
	return e
}

func (e *Env) setVars() {
	e.vars = map[string]string{
		"HOME":                e.Home,
		"GIT_CONFIG_GLOBAL":   filepath.Join(e.Home, ".gitconfig"),
		"GIT_CONFIG_NOSYSTEM": "1",
	}
	if e.XDG != "" {
		e.vars["XDG_CONFIG_HOME"] = e.XDG
	}
}

// Getenv is os.Getenv in this world, for code that takes a lookup function
// (walk.Cache.Getenv): the variables git reads come from the Env, and any
// other GIT_ or XDG_ variable is unset.
func (e *Env) Getenv(k string) string {
	if v, ok := e.vars[k]; ok {
		return v
	}
	if isGitVar(k) {
		return ""
	}
	return os.Getenv(k)
}

// isGitVar reports the variables the Env owns: whatever the developer has
// set of them must not reach git or the code under test.
func isGitVar(k string) bool {
	return strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "XDG_") || k == "HOME" ||
		k == "LANG" || k == "LANGUAGE" || strings.HasPrefix(k, "LC_")
}

// Environ is the environment for a process in this world (git, or the
// program under test): the test process's own, without any GIT_, XDG_,
// HOME or locale variable, plus the Env's and LC_ALL=C.
func (e *Env) Environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !isGitVar(k) {
			env = append(env, kv)
		}
	}
	for k, v := range e.vars {
		env = append(env, k+"="+v)
	}
	return append(env, "LC_ALL=C")
}

// Setenv puts the test process itself in this world, for code under test
// that reads os.Getenv (a Host, the CLI run in-process): it sets the Env's
// variables with t.Setenv and unsets every other GIT_ and XDG_ variable
// (restored when t ends). Like t.Setenv it cannot be used in parallel
// tests.
func (e *Env) Setenv(t testing.TB) {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := e.vars[k]; !ours && isGitVar(k) && !strings.HasPrefix(k, "LC_") && k != "LANG" && k != "LANGUAGE" {
			t.Setenv(k, "") // registers the restore
			os.Unsetenv(k)
		}
	}
	for k, v := range e.vars {
		t.Setenv(k, v)
	}
}

// Command is an exec.Cmd for name in dir, in this world.
func (e *Env) Command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = e.Environ()
	return cmd
}

// Run runs git in dir with stdin ("" for none) and returns its standard
// output and exit code; t fails if git cannot be started or is killed.
func (e *Env) Run(t testing.TB, dir, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := e.Command(dir, "git", args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("git %q in %s: %v\n%s", args, dir, err, stderr.String())
	}
	return string(out), 0
}

// Git runs git in dir and returns its standard output; t fails unless git
// exits 0.
func (e *Env) Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := e.Command(dir, "git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %q in %s: %v\n%s", args, dir, err, stderr.String())
	}
	return string(out)
}

// Init makes dir (created if missing) a new repository.
func (e *Env) Init(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e.Git(t, dir, "init", "-q")
}
