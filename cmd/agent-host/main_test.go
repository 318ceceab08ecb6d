package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/internal/testbin"
)

// bin is agent-host, built once for the tests that run it as a process.
var bin string

func TestMain(m *testing.M) { testbin.Main(m, &bin) }

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// world is one test's directories: a workspace (the process's current
// directory), a folder outside it, and a home of its own.
type world struct {
	t             *testing.T
	ws, out, home string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, ws: filepath.Join(root, "ws"), out: filepath.Join(root, "out"), home: filepath.Join(root, "home")}
	for _, d := range []string{w.ws, w.out, w.home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// file writes body at path (relative to the workspace unless absolute).
func (w *world) file(path string, body []byte) string {
	w.t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.ws, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, body, 0o644); err != nil {
		w.t.Fatal(err)
	}
	return path
}

// run runs agent-host in the workspace with stdin and args.
func (w *world) run(stdin string, args ...string) result {
	w.t.Helper()
	return w.runIn(w.ws, stdin, args...)
}

// cmd is agent-host with args, to run in the workspace with the world's
// environment.
func (w *world) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Dir = w.ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
	return cmd
}

// start starts cmd (one of w.cmd's, its stdin already set up as the
// caller wants) with a pipe from its standard output and its standard
// error gathered in a buffer, which the caller reads once cmd has ended.
func (w *world) start(cmd *exec.Cmd) (stdout io.ReadCloser, stderr *bytes.Buffer) {
	w.t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	stderr = new(bytes.Buffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	return stdout, stderr
}

func (w *world) runIn(dir, stdin string, args ...string) result {
	w.t.Helper()
	cmd := w.cmd(args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("agent-host %v: %v", args, err)
	}
	return r
}
