package exec

import (
	"bufio"
	"context"
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

// waitingPid runs sandboxed `true` in r until r keeps a helper waiting
// (from the second run on), and returns that helper's pid.
func waitingPid(t *testing.T, r *Runner, req Request) int {
	t.Helper()
	req.Command = "true"
	for range 2 {
		if out, err := r.Exec(context.Background(), req); err != nil || out.ExitCode != 0 {
			t.Fatalf("warm-up run: %+v, %v", out, err)
		}
	}
	r.zyg.settle()
	r.zyg.mu.Lock()
	defer r.zyg.mu.Unlock()
	if r.zyg.waiting == nil {
		t.Fatal("no helper waiting after two sandboxed runs")
	}
	return r.zyg.waiting.p.pid
}

// waitStarted waits (up to 20 s, else fails t) for the file "started" in
// dir, which a test's command makes once it runs.
func waitStarted(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command in %s did not start", dir)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// alive reports whether pid is a process that has not exited (a zombie
// has).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestWaitingHelperTakesTheRunAsItIsNow: the run that takes the waiting
// helper gets everything as it is at its own start, not at the helper's:
// the environment (scrubbed: a credential set after the helper started
// does not pass, a Request.Env entry replaces an inherited one), the
// roots (one added since is writable, one removed is not), the start
// directory, and its timeout counts from its own start.
func TestWaitingHelperTakesTheRunAsItIsNow(t *testing.T) {
	f := newSBFixture(t)
	req := f.request("", f.sandbox())
	pid := waitingPid(t, f.r, req)

	t.Setenv("AGENTHOST_LATE_TOKEN", "tok-after-the-helper-started")
	t.Setenv("AGENTHOST_LATE_PLAIN", "plain-after")
	other, err := os.Open(f.other)
	must(t, err)
	defer other.Close()
	sb := f.sandbox()
	sb.Roots = []string{f.ws, f.other}
	sb.RootDirs = []*os.File{f.wsDir, other}
	req = f.request(`echo "tok=$AGENTHOST_LATE_TOKEN plain=$AGENTHOST_LATE_PLAIN pager=$PAGER pwd=$(pwd)"; echo x > "$OTHER/added"`, sb, "PAGER=less")
	out, err := f.r.Exec(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if out.Pid != pid {
		t.Fatalf("the run's leader is %d, not the waiting helper %d", out.Pid, pid)
	}
	if want := "tok= plain=plain-after pager=less pwd=" + f.ws + "\n"; out.Stdout != want || out.ExitCode != 0 {
		t.Errorf("got %q (exit %d, %s), want %q", out.Stdout, out.ExitCode, out.Stderr, want)
	}
	fileIs(t, filepath.Join(f.other, "added"), "x\n")
	// A program that is not a shell sees the environment as the helper
	// passed it: one PAGER, the request's.
	out, err = f.r.Capture(context.Background(), Capture{Program: "env", Cwd: f.ws, Dir: f.wsDir, Sandbox: f.sandbox(), Env: []string{"PAGER=less"}})
	if n := strings.Count("\n"+out.Stdout, "\nPAGER="); err != nil || n != 1 || !strings.Contains(out.Stdout, "\nPAGER=less\n") {
		t.Errorf("env: %d PAGER entries in %q, %v", n, out.Stdout, err)
	}

	// The root removed again: the next waiting helper must not have it.
	pid = waitingPid(t, f.r, f.request("", f.sandbox()))
	out = f.run(t, `echo y > "$OTHER/removed"`)
	if out.Pid != pid || out.ExitCode == 0 {
		t.Errorf("write to a removed root: leader %d (waiting %d), exit %d", out.Pid, pid, out.ExitCode)
	}
	absent(t, filepath.Join(f.other, "removed"))

	// The timeout counts from the run's start: a helper that waited
	// longer than it does not make the run time out.
	pid = waitingPid(t, f.r, f.request("", f.sandbox()))
	time.Sleep(400 * time.Millisecond)
	req = f.request("sleep 0.1; echo done", f.sandbox())
	req.Timeout = 2 * time.Second
	out, err = f.r.Exec(context.Background(), req)
	if err != nil || out.Pid != pid || out.TimedOut || out.Stdout != "done\n" {
		t.Errorf("after a wait: %+v, %v (waiting helper %d)", out, err, pid)
	}
	// And it still applies, with the group kill.
	pid = waitingPid(t, f.r, f.request("", f.sandbox()))
	req = f.request("sleep 30 & sleep 30", f.sandbox())
	req.Timeout = 300 * time.Millisecond
	t0 := time.Now()
	out, err = f.r.Exec(context.Background(), req)
	if err != nil || out.Pid != pid || !out.TimedOut || time.Since(t0) > 10*time.Second {
		t.Errorf("timeout: %+v, %v after %v", out, err, time.Since(t0))
	}
}

// TestWaitingHelperOfOtherPolicy: a run whose sandbox needs other
// namespaces (Network) does not take the waiting helper, which is
// ended; it gets the network namespace it asked for.
func TestWaitingHelperOfOtherPolicy(t *testing.T) {
	f := newSBFixture(t)
	pid := waitingPid(t, f.r, f.request("", f.sandbox()))
	own, err := os.Readlink("/proc/self/ns/net")
	must(t, err)
	sb := f.sandbox()
	sb.Network = true
	out, err := f.r.Exec(context.Background(), f.request("readlink /proc/self/ns/net", sb))
	if err != nil || out.Pid == pid || strings.TrimSpace(out.Stdout) != own {
		t.Errorf("network run: %+v, %v (waiting helper %d, our netns %s)", out, err, pid, own)
	}
	if alive(pid) {
		t.Errorf("the waiting helper %d of the other policy is still there", pid)
	}
	// And the other way round.
	pid = waitingPid(t, f.r, f.request("", sb))
	out = f.run(t, "readlink /proc/self/ns/net")
	if out.Pid == pid || strings.TrimSpace(out.Stdout) == own || out.ExitCode != 0 {
		t.Errorf("offline run: %+v (waiting helper %d, our netns %s)", out, pid, own)
	}
}

// TestRunnerCloseEndsWaitingHelper: Close ends and reaps the waiting
// helper.
func TestRunnerCloseEndsWaitingHelper(t *testing.T) {
	f := newSBFixture(t)
	pid := waitingPid(t, f.r, f.request("", f.sandbox()))
	if !alive(pid) {
		t.Fatalf("helper %d is not running", pid)
	}
	must(t, f.r.Close())
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("helper %d after Close: kill(0) = %v, want ESRCH (ended and reaped)", pid, err)
	}
}

// TestWaitingHelperOutlivesNoParent: when the Runner's process dies
// (SIGKILL: no Close), its waiting helper sees its socket end and exits.
// The dying process is this test binary, run as TestZygoteParentProcess.
func TestWaitingHelperOutlivesNoParent(t *testing.T) {
	requireSandbox(t)
	cmd := osexec.Command(os.Args[0], "-test.run", "^TestZygoteParentProcess$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "AGENTHOST_TEST_ZYGOTE_PARENT="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	pid, convErr := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "waiting "))
	if err != nil || convErr != nil || !strings.HasPrefix(line, "waiting ") {
		t.Fatalf("from the parent process: %q, %v", line, err)
	}
	if !alive(pid) {
		t.Fatalf("helper %d is not running", pid)
	}
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if !strings.HasPrefix(string(cmdline), "agenthost-sandbox\x00") {
		t.Fatalf("pid %d is %q, not a helper", pid, cmdline)
	}
	must(t, cmd.Process.Kill())
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("helper %d still runs 10 s after its parent died", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestZygoteParentProcess is the process TestWaitingHelperOutlivesNoParent
// kills: it keeps a helper waiting, prints its pid and waits to die.
func TestZygoteParentProcess(t *testing.T) {
	dir := os.Getenv("AGENTHOST_TEST_ZYGOTE_PARENT")
	if dir == "" {
		t.Skip("run by TestWaitingHelperOutlivesNoParent")
	}
	r := NewRunner(Limits{})
	pid := waitingPid(t, r, Request{Cwd: dir, Sandbox: &Sandbox{Roots: []string{dir}, Home: dir, Required: true}})
	os.Stdout.WriteString("waiting " + strconv.Itoa(pid) + "\n")
	time.Sleep(time.Minute)
	r.Close()
}

// TestRunsAcrossCloseStartNoHelper: sandboxed runs still going when the
// Runner is closed (a Host closed while its commands end) start no
// waiting helper when they end, which nothing would close; runs started
// after Close count afresh.
func TestRunsAcrossCloseStartNoHelper(t *testing.T) {
	f := newSBFixture(t)
	roots := []string{filepath.Join(f.base, "r0"), filepath.Join(f.base, "r1")}
	var wg sync.WaitGroup
	errs := make([]error, len(roots))
	for i, root := range roots {
		must(t, os.Mkdir(root, 0o755))
		req := otherRootRun(t, f, root, "touch started; sleep 0.5")
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = f.r.Exec(context.Background(), req)
		}()
	}
	// Close once both commands run.
	for _, root := range roots {
		waitStarted(t, root)
	}
	must(t, f.r.Close())
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	f.r.zyg.settle()
	f.r.zyg.mu.Lock()
	waiting := f.r.zyg.waiting
	f.r.zyg.mu.Unlock()
	if waiting != nil {
		pid := waiting.p.pid
		f.r.Close()
		t.Fatalf("runs that started before Close left helper %d waiting after it", pid)
	}
	// The Runner is still usable, and counts afresh: two runs after Close
	// start a helper for the next, which the next Close ends.
	pid := waitingPid(t, f.r, f.request("", f.sandbox()))
	must(t, f.r.Close())
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("helper %d after the second Close: kill(0) = %v, want ESRCH", pid, err)
	}
}

// TestSandboxEndsWithParent: a sandboxed command whose parent dies while
// it runs (SIGKILL: no Close, no timeout left to fire) ends with it, with
// the whole tree its helper holds, rather than running on unwatched. The
// dying parent is this test binary, run as TestSandboxParentProcess.
func TestSandboxEndsWithParent(t *testing.T) {
	requireSandbox(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	cmd := osexec.Command(os.Args[0], "-test.run", "^TestSandboxParentProcess$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "AGENTHOST_TEST_SANDBOX_PARENT="+dir)
	must(t, cmd.Start())
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	waitStarted(t, dir)
	must(t, cmd.Process.Kill())
	cmd.Wait()
	time.Sleep(3 * time.Second) // the command would have touched survived after 1.5 s
	if _, err := os.Stat(filepath.Join(dir, "survived")); err == nil {
		t.Fatal("the sandboxed command ran on after its parent died")
	}
	if _, err := os.Stat(filepath.Join(dir, "bg-survived")); err == nil {
		t.Fatal("the sandboxed command's background job ran on after its parent died")
	}
}

// TestSandboxParentProcess is the process TestSandboxEndsWithParent
// kills: it runs a sandboxed command (and a background job of it) that
// marks its start and, 1.5 s later, that it survived.
func TestSandboxParentProcess(t *testing.T) {
	dir := os.Getenv("AGENTHOST_TEST_SANDBOX_PARENT")
	if dir == "" {
		t.Skip("run by TestSandboxEndsWithParent")
	}
	r := NewRunner(Limits{})
	r.Exec(context.Background(), Request{
		Command: "(sleep 1.5; touch bg-survived) & touch started; sleep 1.5; touch survived; wait",
		Cwd:     dir, Timeout: time.Minute,
		Sandbox: &Sandbox{Roots: []string{dir}, Home: dir, Required: true},
	})
	time.Sleep(time.Minute)
}
