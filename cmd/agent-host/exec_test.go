package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// seqOutput is what seq 1 n prints.
func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

const cutNotice = "--max-output N keeps more"

// TestExecStreamsUncut: without --capture the command's output reaches
// agent-host's byte for byte, whatever its size, with its status.
func TestExecStreamsUncut(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		args           []string
		stdout, stderr string
		code           int
	}{
		{[]string{"--", "seq 1 100000"}, seqOutput(100000), "", 0},
		{[]string{"--", "seq 1 100000 >&2; echo out; exit 7"}, "out\n", seqOutput(100000), 7},
		{[]string{"--", `printf '\377\000\376'`}, "\xff\x00\xfe", "", 0},
		{[]string{"--combined", "--", "echo 1; echo 2 >&2; echo 3"}, "1\n2\n3\n", "", 0},
		{[]string{"--", "kill -KILL $$"}, "", "", 137},
		{[]string{"--no-sandbox", "--", "seq 1 100000"}, seqOutput(100000), "agent-host: WARNING: --no-sandbox", 0},
	} {
		r := w.run("", append([]string{"exec"}, c.args...)...)
		if r.stdout != c.stdout || r.code != c.code || (c.stderr == "" && r.stderr != "") || !strings.HasPrefix(r.stderr, c.stderr) {
			t.Errorf("exec %q: code %d, %d bytes out (want %d), stderr %.200q", c.args, r.code, len(r.stdout), len(c.stdout), r.stderr)
		}
	}
}

// TestExecStreamsAsWritten: the first line is out while the command still
// runs.
func TestExecStreamsAsWritten(t *testing.T) {
	w := newWorld(t)
	cmd := w.cmd("exec", "--", "echo first; sleep 2; echo second")
	pr, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	if _, err := pr.Read(b); err != nil || string(b) != "first\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	if d := time.Since(t0); d > 1800*time.Millisecond {
		t.Errorf("the first line came after %v, with the command's end", d)
	}
	rest := new(bytes.Buffer)
	rest.ReadFrom(pr)
	if err := cmd.Wait(); err != nil || rest.String() != "second\n" {
		t.Fatalf("rest %q, %v", rest, err)
	}
}

func TestExecTimeoutAndStatus(t *testing.T) {
	w := newWorld(t)
	t0 := time.Now()
	r := w.run("", "exec", "--timeout", "500ms", "--", "echo started; sleep 30")
	if r.code != execTimedOut || r.stdout != "started\n" || !strings.Contains(r.stderr, "timed out after 500ms") || time.Since(t0) > 10*time.Second {
		t.Fatalf("%+v after %v", r, time.Since(t0))
	}
	r = w.run("", "exec", "--capture", "--timeout", "500ms", "--", "echo started; sleep 30")
	if r.code != execTimedOut || r.stdout != "started\n" {
		t.Fatalf("--capture: %+v", r)
	}
	// A reader of the output that goes away: the command gets SIGPIPE,
	// as in a shell pipeline, and agent-host reports it (141).
	cmd := w.cmd("exec", "--", "seq 1 100000000")
	pr, _ := w.start(cmd)
	pr.Read(make([]byte, 10))
	pr.Close()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+13 {
		t.Fatalf("after its reader left: %v", err)
	}
}

// TestExecCaptureAnnouncesCut: --capture and --json keep head and tail
// and say on stderr that they cut, naming --max-output, which raises the
// limit.
func TestExecCaptureAnnouncesCut(t *testing.T) {
	w := newWorld(t)
	r := w.run("", "exec", "--capture", "--", "seq 1 100000")
	if len(r.stdout) > 30000 || !strings.HasPrefix(r.stdout, "1\n2\n") || !strings.HasSuffix(r.stdout, "100000\n") ||
		!strings.Contains(r.stdout, "bytes omitted") || !strings.Contains(r.stderr, cutNotice) || r.code != 0 {
		t.Fatalf("--capture: %d bytes, stderr %q, code %d", len(r.stdout), r.stderr, r.code)
	}
	r = w.run("", "exec", "--capture", "--max-output", "1000000", "--", "seq 1 100000")
	if r.stdout != seqOutput(100000) || r.stderr != "" {
		t.Fatalf("--max-output 1000000: %d bytes, stderr %q", len(r.stdout), r.stderr)
	}
	r = w.run("", "exec", "--capture", "--max-output", "1000", "--", "seq 1 100000")
	if len(r.stdout) > 1000 || !strings.Contains(r.stderr, "cut to 1000 bytes") {
		t.Fatalf("--max-output 1000: %d bytes, stderr %q", len(r.stdout), r.stderr)
	}

	r = w.run("", "exec", "--json", "--", "seq 1 100000; exit 5")
	var out execJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json: %q: %v", r.stdout, err)
	}
	// With --json the cut is the answer's truncated and max_output, not
	// an error object on stderr: the run did not fail.
	if r.stderr != "" {
		t.Fatalf("--json: a cut printed %q on stderr", r.stderr)
	}
	if !out.Truncated || out.MaxOutput != 30000 || out.ExitCode != 5 || r.code != 5 || len(out.Stdout) > 30000 {
		t.Fatalf("--json: %+v, code %d", out, r.code)
	}
	r = w.run("", "exec", "--json", "--max-output", "700000", "--", "seq 1 100000")
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Stdout != seqOutput(100000) || out.Truncated || r.stderr != "" {
		t.Fatalf("--json --max-output: %d bytes, truncated %v, stderr %q (%v)", len(out.Stdout), out.Truncated, r.stderr, err)
	}
	// Nothing cut, nothing said.
	if r = w.run("", "exec", "--capture", "--", "echo hi"); r.stdout != "hi\n" || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	// --max-output means nothing to a stream: a usage error, not ignored.
	if r = w.run("", "exec", "--max-output", "10", "--", "true"); r.code != exitUsage || !strings.Contains(r.stderr, "--max-output applies to --capture and --json") {
		t.Fatalf("%+v", r)
	}
	if r = w.run("", "exec", "--capture", "--max-output", "-1", "--", "true"); r.code != exitUsage {
		t.Fatalf("negative --max-output: %+v", r)
	}
	// Below what a cut needs: refused, not silently raised.
	if r = w.run("", "exec", "--capture", "--max-output", "100", "--", "seq 1 1000"); r.code != exitUsage || !strings.Contains(r.stderr, "at least 256") {
		t.Fatalf("--max-output 100: %+v", r)
	}
}

// TestExecArgv (issue 25): several arguments after -- are a program and
// its arguments, passed exactly (no splitting, expansion or quoting by a
// shell); one argument is a shell command line.
func TestExecArgv(t *testing.T) {
	w := newWorld(t)
	w.file(" leading space.txt", []byte("hi\n"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"printf", `%s\n`, "a b"}, "a b\n"},
		{[]string{"echo", "it's"}, "it's\n"},
		{[]string{"wc", "-c", " leading space.txt"}, "3  leading space.txt\n"},
		{[]string{"printf", "%s|", "$HOME", "`id`", "*", "a\nb", ""}, "$HOME|`id`|*|a\nb||"},
		{[]string{"echo $((1+2)) | tr 3 x"}, "x\n"},
	} {
		r := w.run("", append([]string{"exec", "--capture", "--"}, c.args...)...)
		if r.code != 0 || r.stdout != c.want {
			t.Errorf("exec -- %q: code %d, stdout %q (want %q), stderr %q", c.args, r.code, r.stdout, c.want, r.stderr)
		}
	}
	// A program that is not there: 127, as a shell says.
	if r := w.run("", "exec", "--", "nosuchprogram-x", "a"); r.code != 127 {
		t.Errorf("a missing program: code %d, stderr %q", r.code, r.stderr)
	}
}

// TestExecStdin: agent-host's standard input reaches the command when it
// is a pipe or a file, under the sandbox and without it.
func TestExecStdin(t *testing.T) {
	w := newWorld(t)
	big := strings.Repeat("0123456789", 200000)
	for _, sb := range [][]string{nil, {"--no-sandbox"}} {
		args := append(append([]string{"exec"}, sb...), "--", "wc -c")
		if r := w.run(big, args...); strings.TrimSpace(r.stdout) != strconv.Itoa(len(big)) || r.code != 0 {
			t.Errorf("%v: %+v", sb, r)
		}
		args = append(append([]string{"exec"}, sb...), "--", "cat")
		if r := w.run("a\x00b\xff\n", args...); r.stdout != "a\x00b\xff\n" {
			t.Errorf("%v cat: %q", sb, r.stdout)
		}
		// A huge input to a command that reads none of it.
		args = append(append([]string{"exec"}, sb...), "--", "echo ignored")
		if r := w.run(big, args...); r.stdout != "ignored\n" || r.code != 0 {
			t.Errorf("%v: %+v", sb, r)
		}
	}
	// A file as input: the command reads the descriptor itself.
	f := w.file("in.txt", []byte("from the file\n"))
	cmd := w.cmd("exec", "--", "cat")
	in, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd.Stdin = in
	if b, err := cmd.Output(); err != nil || string(b) != "from the file\n" {
		t.Fatalf("%q, %v", b, err)
	}
	// A command blocked on an input that never ends still times out.
	cmd = w.cmd("exec", "--timeout", "500ms", "--", "cat > /dev/null")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd.Stdin = pr
	t0 := time.Now()
	err = cmd.Run()
	pr.Close()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != execTimedOut || time.Since(t0) > 10*time.Second {
		t.Fatalf("%v after %v", err, time.Since(t0))
	}
}

// TestExecTerminalStdin: on a terminal (script(1) gives agent-host one),
// the command gets /dev/null: cat ends at once instead of waiting for keys.
func TestExecTerminalStdin(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("skipped: script(1) is not installed (util-linux)")
	}
	w := newWorld(t)
	inner := bin + " exec --timeout 5s -- 'cat; echo cat-ended-$?'"
	cmd := w.cmd()
	cmd.Path, cmd.Args = "script", []string{"script", "-q", "-e", "-c", inner, "/dev/null"}
	if p, err := exec.LookPath("script"); err == nil {
		cmd.Path = p
	}
	// script's own input stays open and silent: only /dev/null can end cat.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd.Stdin = pr
	b, err := cmd.CombinedOutput()
	pr.Close()
	if err != nil || !strings.Contains(string(b), "cat-ended-0") {
		t.Fatalf("under a terminal: %q, %v", b, err)
	}
}

// TestExecSlowReaderGetsEverything: a reader of agent-host's output that
// starts late and reads slowly (a pager) still gets every byte.
func TestExecSlowReaderGetsEverything(t *testing.T) {
	w := newWorld(t)
	cmd := w.cmd("exec", "--", "seq 1 100000")
	pr, _ := w.start(cmd)
	time.Sleep(time.Second) // the command has long written all it can
	var got bytes.Buffer
	b := make([]byte, 16<<10)
	for {
		n, err := pr.Read(b)
		got.Write(b[:n])
		if err != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Wait(); err != nil || got.String() != seqOutput(100000) {
		t.Fatalf("got %d bytes of %d, %v", got.Len(), len(seqOutput(100000)), err)
	}
}
