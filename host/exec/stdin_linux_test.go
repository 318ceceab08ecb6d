package exec

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// endless is a reader that never ends: zeros forever, counting what it
// gave.
type endless struct {
	mu sync.Mutex
	n  int64
}

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.mu.Lock()
	e.n += int64(len(p))
	e.mu.Unlock()
	return len(p), nil
}

// onlyReader hides every method of r but Read, so that it is not taken
// for a file or a WriterTo.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func TestStdin(t *testing.T) {
	r := testRunner()
	ctx := context.Background()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	file := filepath.Join(t.TempDir(), "in")
	must(t, os.WriteFile(file, []byte("from a file\n"), 0o644))
	cases := []struct {
		name, cmd string
		in        func(t *testing.T) io.Reader
		want      string
	}{
		{"cat bytes", "cat", func(*testing.T) io.Reader { return strings.NewReader("hello\nworld\n") }, "hello\nworld\n"},
		{"wc -c of 1 MiB", "wc -c", func(*testing.T) io.Reader { return onlyReader{bytes.NewReader(big)} }, strconv.Itoa(len(big)) + "\n"},
		{"a file is passed as it is", "cat", func(t *testing.T) io.Reader {
			f, err := os.Open(file)
			must(t, err)
			t.Cleanup(func() { f.Close() })
			return f
		}, "from a file\n"},
		{"read then exit", "read a; echo got $a; cat", func(*testing.T) io.Reader { return strings.NewReader("one\ntwo\n") }, "got one\ntwo\n"},
		{"nil is /dev/null", "cat; echo end", func(*testing.T) io.Reader { return nil }, "end\n"},
		{"empty", "wc -c", func(*testing.T) io.Reader { return strings.NewReader("") }, "0\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _ := execOK(t, r, ctx, Request{Command: c.cmd, Stdin: c.in(t)})
			if strings.TrimLeft(out.Stdout, " ") != c.want || out.ExitCode != 0 {
				t.Fatalf("stdout %q code %d stderr %q, want %q", out.Stdout, out.ExitCode, out.Stderr, c.want)
			}
		})
	}
}

// TestStdinNotRead: a huge (endless) input to commands that read none or
// part of it does not hold the run, and the copy is over when Exec
// returns (TestMain's goleak checks that no goroutine is left).
func TestStdinNotRead(t *testing.T) {
	r := testRunner()
	for _, cmd := range []string{"true", "sleep 0.2", "head -c 100000 | wc -c", "sleep 0.2 & exit 0"} {
		t.Run(cmd, func(t *testing.T) {
			e := &endless{}
			out, took := execOK(t, r, context.Background(), Request{Command: cmd, Stdin: onlyReader{e}})
			if out.ExitCode != 0 || out.TimedOut || took > slack {
				t.Fatalf("%+v after %v", out, took)
			}
			if strings.HasPrefix(cmd, "head") && strings.TrimSpace(out.Stdout) != "100000" {
				t.Fatalf("stdout %q", out.Stdout)
			}
			if err := goleak.Find(goleak.IgnoreCurrent()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStdinTimeout: a command blocked reading an input that never comes
// is killed on timeout; the Read still blocked in the caller's reader is
// not waited for, and its goroutine ends when that Read returns.
func TestStdinTimeout(t *testing.T) {
	r := testRunner()
	pr, pw := io.Pipe()
	before := goleak.IgnoreCurrent()
	out, took := execOK(t, r, context.Background(), Request{Command: "cat", Stdin: pr, Timeout: 300 * time.Millisecond})
	if !out.TimedOut || out.Signal != "SIGTERM" || took > 300*time.Millisecond+slack {
		t.Fatalf("%+v after %v", out, took)
	}
	pw.CloseWithError(errors.New("test over")) // the blocked Read returns
	if err := goleak.Find(before); err != nil {
		t.Fatal(err)
	}
}

// TestStdinCancel: cancelling a run whose command waits for input ends it.
func TestStdinCancel(t *testing.T) {
	r := testRunner()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	out, took := execOK(t, r, ctx, Request{Command: "read x && echo never", Stdin: onlyReader{strings.NewReader("")}})
	// Empty input: read fails at once; the run ends by itself.
	if out.Cancelled || out.Stdout != "" || took > slack {
		t.Fatalf("%+v", out)
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	out, took = execOK(t, r, ctx, Request{Command: "cat", Stdin: pr})
	if !out.Cancelled || took > slack {
		t.Fatalf("%+v after %v", out, took)
	}
}

func TestStdinSandboxed(t *testing.T) {
	requireSandbox(t)
	r := testRunner()
	defer r.Close()
	ws := t.TempDir()
	sb := &Sandbox{Roots: []string{ws}, Required: true}
	big := bytes.Repeat([]byte("x"), 300000)
	out, _ := execOK(t, r, context.Background(), Request{Command: "wc -c; echo done", Cwd: ws, Stdin: onlyReader{bytes.NewReader(big)}, Sandbox: sb})
	if strings.TrimSpace(out.Stdout) != "300000\ndone" || out.Sandbox == nil {
		t.Fatalf("%+v", out)
	}
	out, _ = execOK(t, r, context.Background(), Request{Command: "cat", Cwd: ws, Stdin: strings.NewReader("through the helper\n"), Sandbox: sb})
	if out.Stdout != "through the helper\n" {
		t.Fatalf("%+v", out)
	}
	// A sandboxed command blocked on its input still times out.
	pr, pw := io.Pipe()
	defer pw.Close()
	out, took := execOK(t, r, context.Background(), Request{Command: "cat", Cwd: ws, Stdin: pr, Sandbox: sb, Timeout: 300 * time.Millisecond})
	if !out.TimedOut || took > 300*time.Millisecond+slack {
		t.Fatalf("%+v after %v", out, took)
	}
}
