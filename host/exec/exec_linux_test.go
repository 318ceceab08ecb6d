package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Test limits: short graces so the kill paths run in well under a second.
const (
	testKillGrace  = 300 * time.Millisecond
	testDrainGrace = 150 * time.Millisecond
	// slack absorbs scheduling on a loaded machine and the race detector.
	slack = 2 * time.Second
)

func testRunner() *Runner {
	return NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace, DefaultTimeout: 20 * time.Second})
}

// procInfo is what /proc/PID/stat says about one process.
type procInfo struct {
	pid, pgrp, session int
	state              byte
	comm               string
}

// groupMembers lists the live (not zombie) processes whose process group
// or session is id.
func groupMembers(t *testing.T, id int) []procInfo {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var found []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces.
		open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || close < 0 {
			continue
		}
		f := strings.Fields(string(b[close+1:]))
		if len(f) < 4 {
			continue
		}
		p := procInfo{pid: pid, state: f[0][0], comm: string(b[open+1 : close])}
		p.pgrp, _ = strconv.Atoi(f[2])
		p.session, _ = strconv.Atoi(f[3])
		if (p.pgrp == id || p.session == id) && p.state != 'Z' && p.state != 'X' {
			found = append(found, p)
		}
	}
	return found
}

// assertNoSurvivors fails t if any live process of the run's session or
// group is left. SIGKILL is asynchronous, so a member gets a moment to
// finish dying.
func assertNoSurvivors(t *testing.T, pid int) {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("run reported no pid")
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := groupMembers(t, pid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
			t.Fatalf("processes of session/group %d left alive: %+v", pid, left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// execOK runs req, requires a nil error and no survivors, and returns the
// output and the wall time of the call.
func execOK(t *testing.T, r *Runner, ctx context.Context, req Request) (Output, time.Duration) {
	t.Helper()
	t0 := time.Now()
	out, err := r.Exec(ctx, req)
	took := time.Since(t0)
	if err != nil {
		t.Fatalf("Exec(%q): %v", req.Command, err)
	}
	assertNoSurvivors(t, out.Pid)
	return out, took
}

func TestExecBasics(t *testing.T) {
	r := testRunner()
	ctx := context.Background()
	cases := []struct {
		name, cmd      string
		stdout, stderr string
		code           int
		signal         string
	}{
		{"echo", "echo hi; echo err >&2", "hi\n", "err\n", 0, ""},
		{"exit code", "echo out; exit 3", "out\n", "", 3, ""},
		{"not found is 127", "no-such-command-xyz", "", "", 127, ""},
		{"syntax error", "if then", "", "", 2, ""},
		{"killed by SIGKILL", "echo before; kill -KILL $$", "before\n", "", -1, "SIGKILL"},
		{"killed by SIGTERM", "kill -TERM $$", "", "", -1, "SIGTERM"},
		{"killed by SIGSEGV", "kill -SEGV $$", "", "", -1, "SIGSEGV"},
		{"child killed, shell exits", "sh -c 'kill -KILL $$'; echo $?", "137\n", "", 0, ""},
		{"invalid UTF-8", `printf 'a\377b\376\n'`, "a\uFFFDb\uFFFD\n", "", 0, ""},
		{"leading dash", "-x", "", "", 127, ""},
		{"stdin is /dev/null", "cat; echo done", "done\n", "", 0, ""},
		{"quiet env", `echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"`, "cat cat 0\n", "", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _ := execOK(t, r, ctx, Request{Command: c.cmd})
			if out.Stdout != c.stdout || out.ExitCode != c.code || out.Signal != c.signal {
				t.Fatalf("got stdout %q code %d signal %q, want %q %d %q (stderr %q)",
					out.Stdout, out.ExitCode, out.Signal, c.stdout, c.code, c.signal, out.Stderr)
			}
			if c.stderr != "" && out.Stderr != c.stderr {
				t.Fatalf("stderr %q, want %q", out.Stderr, c.stderr)
			}
			if out.TimedOut || out.Cancelled || out.Truncated || out.Timeout != 20*time.Second || out.Duration <= 0 {
				t.Fatalf("flags: %+v", out)
			}
		})
	}
}

func TestExecEnvAndCwd(t *testing.T) {
	r := testRunner()
	dir := t.TempDir()
	out, _ := execOK(t, r, context.Background(), Request{
		Command: `pwd; echo "$PAGER $FOO"`,
		Cwd:     dir,
		Env:     []string{"PAGER=less", "FOO=bar"},
	})
	real, _ := filepath.EvalSymlinks(dir)
	if out.Stdout != real+"\nless bar\n" {
		t.Fatalf("got %q", out.Stdout)
	}
}

func TestExecCombinedKeepsOrder(t *testing.T) {
	r := testRunner()
	out, _ := execOK(t, r, context.Background(), Request{
		Command:  "for i in 1 2 3; do echo out$i; echo err$i >&2; done",
		Combined: true,
	})
	if out.Combined != "out1\nerr1\nout2\nerr2\nout3\nerr3\n" || out.Stdout != "" || out.Stderr != "" {
		t.Fatalf("got %+v", out)
	}
}

func TestRunCapture(t *testing.T) {
	r := testRunner()
	ctx := context.Background()
	// No shell: a glob and a variable reach the program as written.
	out, err := r.RunCapture(ctx, "printf", []string{`%s|`, "*", "$HOME", "a b"}, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSurvivors(t, out.Pid)
	if out.Stdout != "*|$HOME|a b|" || out.ExitCode != 0 {
		t.Fatalf("got %+v", out)
	}
	out, err = r.RunCapture(ctx, "false", nil, "", 0)
	if err != nil || out.ExitCode != 1 {
		t.Fatalf("false: %+v, %v", out, err)
	}
	assertNoSurvivors(t, out.Pid)

	_, err = r.RunCapture(ctx, "no-such-program-xyz", nil, "", 0)
	if !errors.Is(err, osexec.ErrNotFound) {
		t.Fatalf("missing program: %v", err)
	}
	notExec := filepath.Join(t.TempDir(), "script")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	_, err = r.RunCapture(ctx, notExec, nil, "", 0)
	if !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("non-executable program: %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	r := testRunner()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	cases := []struct {
		name string
		req  Request
		want error
	}{
		{"missing cwd", Request{Command: "true", Cwd: "/no/such/dir"}, fs.ErrNotExist},
		{"cwd is a file", Request{Command: "true", Cwd: file}, syscall.ENOTDIR},
		{"missing shell", Request{Command: "true", Shell: "/no/such/shell"}, ErrNoShell},
		{"shell not on PATH", Request{Command: "true", Shell: "no-such-shell-xyz"}, ErrNoShell},
	}
	for _, c := range cases {
		out, err := r.Exec(ctx, c.req)
		if !errors.Is(err, c.want) || out != (Output{}) {
			t.Errorf("%s: got %v, %+v; want %v", c.name, err, out, c.want)
		}
	}
	if _, err := r.Exec(cancelled, Request{Command: "true"}); !errors.Is(err, context.Canceled) {
		t.Errorf("done context: got %v", err)
	}
	if _, err := r.RunCapture(ctx, "true", nil, "/no/such/dir", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("RunCapture missing cwd: got %v", err)
	}
}

func TestNoShellOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := testRunner().Exec(context.Background(), Request{Command: "true"})
	if !errors.Is(err, ErrNoShell) {
		t.Fatalf("got %v", err)
	}
}

func TestBackgroundJobDoesNotHoldExec(t *testing.T) {
	r := testRunner()
	// The sleeper holds stdout: read for DrainGrace, then the group dies.
	out, took := execOK(t, r, context.Background(), Request{Command: "sleep 30 & echo hi"})
	if out.Stdout != "hi\n" || out.ExitCode != 0 || out.TimedOut {
		t.Fatalf("got %+v", out)
	}
	if took > testDrainGrace+slack {
		t.Fatalf("took %v", took)
	}
	// The sleeper does not hold the pipes: no grace needed, still killed.
	out, took = execOK(t, r, context.Background(), Request{Command: "sleep 30 >/dev/null 2>&1 & echo hi"})
	if out.Stdout != "hi\n" || took > slack {
		t.Fatalf("got %+v after %v", out, took)
	}
}

func TestTimeoutKillsTermTrappingTree(t *testing.T) {
	r := testRunner()
	const timeout = 300 * time.Millisecond
	// Every process ignores SIGTERM, nested three deep, some holding the
	// pipes and some not.
	cmd := `trap '' TERM
bash -c 'trap "" TERM; sleep 30 & sleep 30 >/dev/null 2>&1; wait' &
(trap '' TERM; sleep 30) &
echo started
wait`
	out, took := execOK(t, r, context.Background(), Request{Command: cmd, Timeout: timeout})
	if !out.TimedOut || out.Cancelled || out.Signal != "SIGKILL" || out.ExitCode != -1 || out.Stdout != "started\n" {
		t.Fatalf("got %+v", out)
	}
	if took < timeout+testKillGrace || took > timeout+testKillGrace+slack {
		t.Fatalf("took %v, want about %v", took, timeout+testKillGrace)
	}
}

func TestTimeoutPoliteCommandGetsSIGTERM(t *testing.T) {
	r := testRunner()
	cmd := `trap 'echo got TERM; exit 7' TERM; sleep 30 & wait`
	out, took := execOK(t, r, context.Background(), Request{Command: cmd, Timeout: 300 * time.Millisecond})
	if !out.TimedOut || out.ExitCode != 7 || out.Stdout != "got TERM\n" {
		t.Fatalf("got %+v", out)
	}
	if took > 300*time.Millisecond+slack {
		t.Fatalf("took %v", took)
	}
}

func TestTimeoutIsClamped(t *testing.T) {
	r := NewRunner(Limits{MaxTimeout: 300 * time.Millisecond, KillGrace: testKillGrace, DrainGrace: testDrainGrace})
	if got := r.Limits().DefaultTimeout; got != 300*time.Millisecond {
		t.Fatalf("default timeout %v not clamped", got)
	}
	out, took := execOK(t, r, context.Background(), Request{Command: "sleep 30", Timeout: time.Hour})
	if !out.TimedOut || out.Timeout != 300*time.Millisecond || out.Signal != "SIGTERM" {
		t.Fatalf("got %+v", out)
	}
	if took > 300*time.Millisecond+slack {
		t.Fatalf("took %v", took)
	}
}

func TestCancellation(t *testing.T) {
	r := testRunner()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	out, took := execOK(t, r, ctx, Request{Command: "sleep 30 & sleep 30; echo never"})
	if !out.Cancelled || out.TimedOut || out.Signal != "SIGTERM" || out.Stdout != "" {
		t.Fatalf("got %+v", out)
	}
	if took > 200*time.Millisecond+slack {
		t.Fatalf("took %v", took)
	}

	// A context deadline is a cancellation too, not a timeout of ours.
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	out, _ = execOK(t, r, ctx, Request{Command: "sleep 30"})
	if !out.Cancelled || out.TimedOut {
		t.Fatalf("context deadline: %+v", out)
	}
}

func TestSetsidEscapeeCannotHoldExec(t *testing.T) {
	r := testRunner()
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The escapee starts its own session, so the group kill misses it,
	// and it holds stdout and stderr open.
	cmd := fmt.Sprintf(`setsid sh -c 'echo $$ > %s; exec sleep 30' & echo hi`, pidFile)
	out, took := execOK(t, r, context.Background(), Request{Command: cmd})
	t.Cleanup(func() { killPidFile(t, pidFile) })
	if out.Stdout != "hi\n" || out.ExitCode != 0 || out.TimedOut {
		t.Fatalf("got %+v", out)
	}
	if took > 2*testDrainGrace+slack {
		t.Fatalf("took %v", took)
	}

	// The same under a timeout.
	pidFile2 := filepath.Join(t.TempDir(), "pid")
	cmd = fmt.Sprintf(`setsid sh -c 'echo $$ > %s; exec sleep 30' & sleep 30`, pidFile2)
	out, took = execOK(t, r, context.Background(), Request{Command: cmd, Timeout: 300 * time.Millisecond})
	t.Cleanup(func() { killPidFile(t, pidFile2) })
	if !out.TimedOut {
		t.Fatalf("got %+v", out)
	}
	if limit := 300*time.Millisecond + testKillGrace + 2*testDrainGrace + slack; took > limit {
		t.Fatalf("took %v, limit %v", took, limit)
	}
}

// killPidFile kills the process whose pid the file holds, waiting a moment
// for the file to appear.
func killPidFile(t *testing.T, path string) {
	for range 100 {
		b, err := os.ReadFile(path)
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("no pid in %s: escapee not cleaned up", path)
}

func TestOutputCutOnRuneBoundary(t *testing.T) {
	r := NewRunner(Limits{MaxOutputBytes: 256, KillGrace: testKillGrace, DrainGrace: testDrainGrace})
	// Each line is 11 bytes with a 3-byte rune in it; some line straddles
	// every cut position as the line count varies.
	for lines := 30; lines < 40; lines++ {
		cmd := fmt.Sprintf(`for i in $(seq %d); do printf 'ab€cdefg\n'; done; printf '\377' >&2`, lines)
		out, _ := execOK(t, r, context.Background(), Request{Command: cmd})
		if !out.Truncated || len(out.Stdout) > 256 || strings.ContainsRune(out.Stdout, '\uFFFD') {
			t.Fatalf("%d lines: %+v", lines, out)
		}
		if out.Stderr != "\uFFFD" {
			t.Fatalf("stderr %q", out.Stderr)
		}
		if omitted := omittedIn(out.Stdout); omitted <= 0 ||
			int(omitted)+len(out.Stdout)-len(marker(omitted, true)) != lines*11 && int(omitted)+len(out.Stdout)-len(marker(omitted, false)) != lines*11 {
			t.Fatalf("%d lines: omitted %d does not add up: %q", lines, omitted, out.Stdout)
		}
	}
}

// vmHWM returns the peak resident set size of this process in bytes.
func vmHWM(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

func TestGiBOfOutputIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("1 GiB through a pipe: skipped with -short")
	}
	r := testRunner()
	before := vmHWM(t)
	out, took := execOK(t, r, context.Background(), Request{Command: "head -c 1G /dev/zero; echo END >&2"})
	grew := vmHWM(t) - before
	t.Logf("1 GiB in %v, peak RSS grew by %d KiB", took, grew>>10)
	if out.ExitCode != 0 || !out.Truncated || out.Stderr != "END\n" || len(out.Stdout) > DefaultMaxOutputBytes {
		t.Fatalf("got code %d truncated %v stderr %q len %d", out.ExitCode, out.Truncated, out.Stderr, len(out.Stdout))
	}
	kept := int64(strings.Count(out.Stdout, "\x00"))
	if omitted := omittedIn(out.Stdout); omitted != 1<<30-kept || kept < DefaultMaxOutputBytes/2-100 {
		t.Fatalf("omitted %d, kept %d", omitted, kept)
	}
	if !strings.HasPrefix(out.Stdout, "\x00\x00\x00") || !strings.HasSuffix(out.Stdout, "\x00\x00\x00") {
		t.Fatalf("head or tail missing")
	}
	if grew > 32<<20 {
		t.Fatalf("peak RSS grew by %d MiB", grew>>20)
	}
}

func TestConcurrentRuns(t *testing.T) {
	r := testRunner()
	var wg sync.WaitGroup
	outs := make([]Output, 8)
	for i := range outs {
		wg.Go(func() {
			outs[i], _ = r.Exec(context.Background(), Request{Command: fmt.Sprintf("echo %d; sleep 0.1 & seq 1 20000 >&2", i)})
		})
	}
	wg.Wait()
	for i, out := range outs {
		assertNoSurvivors(t, out.Pid)
		if out.Stdout != fmt.Sprintf("%d\n", i) || !strings.HasSuffix(out.Stderr, "\n20000\n") || !out.Truncated {
			t.Fatalf("run %d: %q %.40q", i, out.Stdout, out.Stderr)
		}
	}
}

// TestOwnSession checks what the survivor scan relies on: the leader is
// the reported pid and leads its own session and process group.
func TestOwnSession(t *testing.T) {
	out, _ := execOK(t, testRunner(), context.Background(), Request{Command: `echo $$; cut -d' ' -f5,6 /proc/$$/stat`})
	want := fmt.Sprintf("%d\n%d %d\n", out.Pid, out.Pid, out.Pid)
	if out.Stdout != want {
		t.Fatalf("got %q, want %q", out.Stdout, want)
	}
}

func TestShellStatus(t *testing.T) {
	for _, c := range []struct {
		o    Output
		want int
	}{
		{Output{ExitCode: 0}, 0},
		{Output{ExitCode: 3}, 3},
		{Output{ExitCode: -1, Signal: "SIGKILL"}, 137},
		{Output{ExitCode: -1, Signal: "SIGTERM"}, 143},
		{Output{ExitCode: -1, Signal: "SIGBOGUS"}, -1},
	} {
		if got := c.o.ShellStatus(); got != c.want {
			t.Errorf("%+v: got %d, want %d", c.o, got, c.want)
		}
	}
}

// TestWatchedRuns runs the main cases again through runWatched, the
// goroutine supervisor used where pidfd_open is missing (and outside
// Linux), with the leader watched by a goroutine blocked in waitid.
func TestWatchedRuns(t *testing.T) {
	usePidfd = false
	defer func() { usePidfd = true }()
	for name, test := range map[string]func(*testing.T){
		"basics":     TestExecBasics,
		"combined":   TestExecCombinedKeepsOrder,
		"background": TestBackgroundJobDoesNotHoldExec,
		"term trap":  TestTimeoutKillsTermTrappingTree,
		"cancel":     TestCancellation,
		"escapee":    TestSetsidEscapeeCannotHoldExec,
		"rune cut":   TestOutputCutOnRuneBoundary,
		"concurrent": TestConcurrentRuns,
		"stdin":      TestStdin,
		"not read":   TestStdinNotRead,
		"stdin cut":  TestStdinTimeout,
	} {
		t.Run(name, test)
	}
}
