package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the run's goroutine and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// seqOutput is what seq 1 n prints.
func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestStreamIsUncut(t *testing.T) {
	r := testRunner()
	var stdout, stderr lockedBuffer
	out, _ := execOK(t, r, context.Background(), Request{
		Command: "seq 1 100000; echo oops >&2; exit 3", Stdout: &stdout, Stderr: &stderr,
	})
	if want := seqOutput(100000); stdout.String() != want {
		t.Fatalf("streamed %d bytes, want %d", len(stdout.String()), len(want))
	}
	if stderr.String() != "oops\n" || out.ExitCode != 3 || out.Stdout != "" || out.Stderr != "" || out.Truncated {
		t.Fatalf("stderr %q, %+v", stderr.String(), out)
	}
	// One stream to a writer, the other captured; and Combined.
	stdout = lockedBuffer{}
	out, _ = execOK(t, r, context.Background(), Request{Command: "echo out; echo err >&2", Stdout: &stdout})
	if stdout.String() != "out\n" || out.Stderr != "err\n" || out.Stdout != "" {
		t.Fatalf("stdout %q, %+v", stdout.String(), out)
	}
	stdout = lockedBuffer{}
	out, _ = execOK(t, r, context.Background(), Request{Command: "echo 1; echo 2 >&2; echo 3", Combined: true, Stdout: &stdout})
	if stdout.String() != "1\n2\n3\n" || out.Combined != "" {
		t.Fatalf("combined %q, %+v", stdout.String(), out)
	}
}

// TestStreamArrivesAsWritten: the first line is at the writer while the
// command still runs.
func TestStreamArrivesAsWritten(t *testing.T) {
	r := testRunner()
	var stdout lockedBuffer
	seen := make(chan time.Duration, 1)
	t0 := time.Now()
	go func() {
		for time.Since(t0) < 5*time.Second {
			if stdout.String() == "first\n" {
				seen <- time.Since(t0)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		seen <- -1
	}()
	execOK(t, r, context.Background(), Request{Command: "echo first; sleep 1; echo second", Stdout: &stdout})
	if d := <-seen; d < 0 || d > 900*time.Millisecond {
		t.Fatalf("first line seen after %v", d)
	}
	if stdout.String() != "first\nsecond\n" {
		t.Fatalf("%q", stdout.String())
	}
}

// blockingWriter never returns from Write until released.
type blockingWriter struct{ release chan struct{} }

func (b blockingWriter) Write(p []byte) (int, error) { <-b.release; return len(p), nil }

// failingWriter fails every Write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestStreamTimeoutAndWriters(t *testing.T) {
	r := testRunner()
	var stdout lockedBuffer
	out, took := execOK(t, r, context.Background(), Request{Command: "echo before; sleep 30", Stdout: &stdout, Timeout: 300 * time.Millisecond})
	if !out.TimedOut || stdout.String() != "before\n" || took > 300*time.Millisecond+slack {
		t.Fatalf("%q %+v after %v", stdout.String(), out, took)
	}
	// A writer that blocks does not hold the timeout's kill, only the
	// return, until it took what was read.
	bw := blockingWriter{make(chan struct{})}
	time.AfterFunc(1500*time.Millisecond, func() { close(bw.release) })
	out, took = execOK(t, r, context.Background(), Request{Command: "seq 1 1000000", Stdout: bw, Timeout: 300 * time.Millisecond})
	if !out.TimedOut || took < 1490*time.Millisecond || took > 1500*time.Millisecond+slack { // the release timer starts before execOK's clock
		t.Fatalf("%+v after %v", out, took)
	}
	// A writer that fails closes the pipe: the command gets SIGPIPE.
	out, took = execOK(t, r, context.Background(), Request{Command: "yes", Stdout: failingWriter{}})
	if out.Signal != "SIGPIPE" || out.TimedOut || took > slack {
		t.Fatalf("%+v after %v", out, took)
	}
}

func TestMaxOutputPerRequest(t *testing.T) {
	r := testRunner()
	out, _ := execOK(t, r, context.Background(), Request{Command: "seq 1 100000", MaxOutputBytes: 1 << 20})
	if out.Stdout != seqOutput(100000) || out.Truncated {
		t.Fatalf("%d bytes, truncated %v", len(out.Stdout), out.Truncated)
	}
	out, _ = execOK(t, r, context.Background(), Request{Command: "seq 1 100000", MaxOutputBytes: 1000})
	if len(out.Stdout) > 1000 || !out.Truncated || !strings.HasPrefix(out.Stdout, "1\n2\n") || !strings.HasSuffix(out.Stdout, "99999\n100000\n") {
		t.Fatalf("%d bytes %q", len(out.Stdout), out.Stdout)
	}
}

// slowWriter takes its time over each Write, as a terminal or a pager
// might.
type slowWriter struct {
	lockedBuffer
	delay time.Duration
}

func (s *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(s.delay)
	return s.lockedBuffer.Write(p)
}

// TestStreamSlowWriterGetsEverything: a writer slower than the drain
// grace still gets the whole output, the end included, although the
// command exited long before.
func TestStreamSlowWriterGetsEverything(t *testing.T) {
	r := testRunner()
	w := &slowWriter{delay: 2 * testDrainGrace}
	out, _ := execOK(t, r, context.Background(), Request{Command: "seq 1 50000", Stdout: w})
	if got := w.String(); got != seqOutput(50000) || out.ExitCode != 0 {
		t.Fatalf("got %d bytes of %d, %+v", len(got), len(seqOutput(50000)), out)
	}
}

// TestStreamEscapeeCannotHoldExec: a process that left the group and
// keeps writing, slowly or in a flood, does not hold a streaming run.
func TestStreamEscapeeCannotHoldExec(t *testing.T) {
	r := testRunner()
	for name, loop := range map[string]string{
		"trickle": `while :; do echo x; sleep 0.02; done`,
		"flood":   `exec yes`,
	} {
		t.Run(name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			var w lockedBuffer
			// hi first: a flood started before it could come first.
			cmd := fmt.Sprintf(`echo hi; setsid sh -c 'echo $$ > %s; %s' &`, pidFile, loop)
			out, took := execOK(t, r, context.Background(), Request{Command: cmd, Stdout: &w})
			t.Cleanup(func() { killPidFile(t, pidFile) })
			if !strings.HasPrefix(w.String(), "hi\n") || out.ExitCode != 0 || out.TimedOut {
				t.Fatalf("got %.40q %+v", w.String(), out)
			}
			if took > 3*testDrainGrace+slack {
				t.Fatalf("took %v", took)
			}
		})
	}
}
