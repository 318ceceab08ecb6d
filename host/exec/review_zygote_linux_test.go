package exec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestSandboxInheritsNoStrayDescriptor: a descriptor this process holds
// without close-on-exec (one it inherited from whoever started it, or one
// opened by syscall.Open) does not reach a sandboxed command: neither
// through a helper started for the run nor through the waiting helper
// (which was started while the descriptor was open). Here the descriptor
// is a read-only one on a secret under the fake home that the sandbox
// denies; a command that held it could read the secret through it, as no
// Landlock rule looks at an open descriptor.
func TestSandboxInheritsNoStrayDescriptor(t *testing.T) {
	f := newSBFixture(t)
	var secret, marker string
	for p, m := range f.secrets {
		secret, marker = p, m
		break
	}
	fd, err := syscall.Open(secret, syscall.O_RDONLY, 0) // no O_CLOEXEC
	must(t, err)
	defer syscall.Close(fd)
	dirFd, err := syscall.Open(f.other, syscall.O_RDONLY|syscall.O_DIRECTORY, 0) // no O_CLOEXEC
	must(t, err)
	defer syscall.Close(dirFd)

	cmd := `cat <&` + strconv.Itoa(fd) + ` 2>/dev/null; for d in /proc/self/fd/*; do echo "fd ${d##*/} $(readlink "$d")"; done`
	check := func(what string, out Output) {
		t.Helper()
		if strings.Contains(out.Stdout, marker) {
			t.Errorf("%s: the command read the secret through an inherited descriptor:\n%s", what, out.Stdout)
		}
		for _, line := range strings.Split(strings.TrimSpace(out.Stdout), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 2 || fields[0] != "fd" {
				continue
			}
			n, _ := strconv.Atoi(fields[1])
			// 0-2 are the command's; the one ls/readlink's glob made is
			// /proc/<pid>/fd itself.
			if n > 2 && len(fields) > 2 { // an empty link: the glob's own, closed since
				t.Errorf("%s: the command holds descriptor %s", what, strings.Join(fields[1:], " "))
			}
		}
	}
	// The first run of a Runner starts its helper.
	check("started helper", f.run(t, cmd))
	// A waiting helper, started while the descriptors were open.
	pid := waitingPid(t, f.r, f.request("", f.sandbox()))
	out := f.run(t, cmd)
	if out.Pid != pid {
		t.Fatalf("the run did not take the waiting helper %d (leader %d)", pid, out.Pid)
	}
	check("waiting helper", out)
}

// TestWaitingHelperOutOfACommandsReach: a sandboxed command that runs
// while the Runner's next helper waits (not yet confined) cannot reach
// that helper: not its descriptors, root or memory through /proc/<pid>
// (Landlock's ptrace rule; listing /proc/<pid>/fd, which shows only
// numbers, needs no ptrace access and is not tried), not by signal (another PID namespace, and
// Landlock's signal scope), not through a pidfd made from /proc/<pid>.
// The helper still takes the next run afterwards.
func TestWaitingHelperOutOfACommandsReach(t *testing.T) {
	f := newSBFixture(t)
	if f.python == "" {
		t.Skip("skipped: no python3")
	}
	req := f.request("", f.sandbox())
	waitingPid(t, f.r, req) // from now on every run's end leaves a helper waiting
	pidFile := filepath.Join(f.ws, "helper.pid")
	attack := `
import os, signal, sys, ctypes, time
sys.stderr.write("start\n")
while not os.path.exists("helper.pid.done"):
    time.sleep(0.01)
sys.stderr.write("go\n")
pid = int(open("helper.pid").read())
res = []
def tryit(name, fn):
    sys.stderr.write("try " + name + "\n")
    try:
        fn()
        res.append(name + ":ok")
    except Exception as e:
        res.append(name + ":refused")
tryit("fdlink", lambda: os.readlink("/proc/%d/fd/3" % pid))
tryit("fdopen", lambda: open("/proc/%d/fd/0" % pid, "rb"))
tryit("root", lambda: os.listdir("/proc/%d/root/" % pid))
tryit("environ", lambda: open("/proc/%d/environ" % pid, "rb").read())
tryit("mem", lambda: open("/proc/%d/mem" % pid, "r+b"))
tryit("kill", lambda: os.kill(pid, 0))
def pidfd():
    fd = os.open("/proc/%d" % pid, os.O_RDONLY | os.O_DIRECTORY)
    signal.pidfd_send_signal(fd, 0)
tryit("pidfd", pidfd)
libc = ctypes.CDLL(None, use_errno=True)
def ptrace():
    if libc.ptrace(16, pid, 0, 0) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")
tryit("ptrace", ptrace)
print(" ".join(res))
`
	// A: a command that runs while another run (B) ends and leaves the
	// next helper waiting.
	var wg sync.WaitGroup
	var outA Output
	var errA error
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := f.request(`"$PY" -c "$ATTACK"`, f.sandbox(), "ATTACK="+attack)
		r.Timeout = 20 * time.Second
		outA, errA = f.r.Exec(context.Background(), r)
	}()
	// Wait until A has taken the waiting helper, then let B run and end.
	deadline := time.Now().Add(10 * time.Second)
	for {
		f.r.zyg.mu.Lock()
		w := f.r.zyg.waiting
		f.r.zyg.mu.Unlock()
		if w == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("A never took the waiting helper")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// B works in another root: runs on one root follow each other.
	outB, err := f.r.Exec(context.Background(), otherRootRun(t, f, f.other, "true"))
	if err != nil || outB.ExitCode != 0 {
		t.Fatalf("B: %+v, %v", outB, err)
	}
	f.r.zyg.settle()
	f.r.zyg.mu.Lock()
	w := f.r.zyg.waiting
	f.r.zyg.mu.Unlock()
	if w == nil {
		t.Fatal("no helper waiting after B")
	}
	pid := w.p.pid
	must(t, os.WriteFile(pidFile, []byte(strconv.Itoa(pid)), 0o644))
	must(t, os.WriteFile(pidFile+".done", nil, 0o644))
	wg.Wait()
	if errA != nil {
		t.Fatal(errA)
	}
	got := strings.Fields(outA.Stdout)
	if len(got) != 8 {
		t.Fatalf("A: %q (stderr %q, exit %d)", outA.Stdout, outA.Stderr, outA.ExitCode)
	}
	for _, g := range got {
		if strings.HasSuffix(g, ":ok") {
			t.Errorf("the sandboxed command reached the waiting helper %d: %s", pid, g)
		}
	}
	if !alive(pid) {
		t.Fatalf("the waiting helper %d is gone", pid)
	}
	out := f.run(t, "echo hi")
	if out.Pid != pid || out.Stdout != "hi\n" {
		t.Errorf("the next run: %+v (waiting helper %d)", out, pid)
	}
}

// TestWaitingHelperTakenOnce: runs of one Runner that start together
// never share a helper: each has a leader of its own, and each runs.
func TestWaitingHelperTakenOnce(t *testing.T) {
	f := newSBFixture(t)
	waitingPid(t, f.r, f.request("", f.sandbox()))
	const n = 4
	// A root each: runs on one root follow each other.
	var roots [n]string
	for i := range roots {
		roots[i] = filepath.Join(f.base, "root"+strconv.Itoa(i))
		must(t, os.Mkdir(roots[i], 0o755))
	}
	var wg sync.WaitGroup
	outs := make([]Output, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = f.r.Exec(context.Background(), otherRootRun(t, f, roots[i], "echo "+strconv.Itoa(i)))
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for i := range n {
		if errs[i] != nil || outs[i].Stdout != strconv.Itoa(i)+"\n" || outs[i].ExitCode != 0 {
			t.Errorf("run %d: %+v, %v", i, outs[i], errs[i])
		}
		if seen[outs[i].Pid] {
			t.Errorf("two runs had the leader %d", outs[i].Pid)
		}
		seen[outs[i].Pid] = true
	}
}

// otherRootRun is a sandboxed run of command in root, its only root.
func otherRootRun(t *testing.T, f *sbFixture, root, command string) Request {
	d, err := os.Open(root)
	must(t, err)
	t.Cleanup(func() { d.Close() })
	return Request{Command: command, Cwd: root, Dir: d, Env: f.gitEnv(),
		Sandbox: &Sandbox{Roots: []string{root}, RootDirs: []*os.File{d}, Home: f.home, Required: true}}
}

// TestSandboxNULInjectsNoInstruction: a NUL byte in a command, an
// argument or an environment entry (a model's JSON string may hold
// "\u0000") cannot end the helper's record early and add one of its own
// ("write=<home>", a write rule on the home directory): the run is
// refused before anything starts, with an error matching
// syscall.EINVAL (what os/exec gives an argument with a NUL byte), and
// nothing is written under the home directory. Each way is tried with
// a helper started for the run and with the waiting one.
func TestSandboxNULInjectsNoInstruction(t *testing.T) {
	f := newSBFixture(t)
	target := filepath.Join(f.home, ".bashrc")
	inject := "\x00write=" + f.home + "\x00readdir=/"
	for _, waiting := range []bool{false, true} {
		r := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace})
		if waiting {
			waitingPid(t, r, f.request("", f.sandbox()))
		}
		ways := map[string]func() (Output, error){
			"command": func() (Output, error) {
				return r.Exec(context.Background(), f.request(`echo pwned >> "$HOME/.bashrc"`+inject, f.sandbox(), "HOME="+f.home))
			},
			"env": func() (Output, error) {
				return r.Exec(context.Background(), f.request(`echo pwned >> "$HOME/.bashrc"`, f.sandbox(), "HOME="+f.home, "X=1"+inject))
			},
			"arg": func() (Output, error) {
				return r.Capture(context.Background(), Capture{Program: "sh", Args: []string{"-c", `echo pwned >> "$0"`, target + inject},
					Cwd: f.ws, Dir: f.wsDir, Sandbox: f.sandbox()})
			},
		}
		for name, run := range ways {
			out, err := run()
			if !errors.Is(err, syscall.EINVAL) {
				t.Errorf("waiting=%v, NUL in the %s: %+v, %v; want an error matching EINVAL", waiting, name, out, err)
			}
		}
		fileIs(t, target, "# bashrc\n")
		r.Close()
	}
}

// TestStartFailureKeepsNamespaces: a run that fails to start for a
// reason of its own (an argument with a NUL byte; for a user who is not
// root, a start directory it may enter but not open) does not turn the
// namespaces off for the process: the next sandboxed run still gets its
// user, PID, IPC and network namespaces. (Before, any EINVAL, EACCES or
// EPERM of the start did, and every later run of the process then ran
// with the network reachable, or failed if Required.)
func TestStartFailureKeepsNamespaces(t *testing.T) {
	f := newSBFixture(t)
	if nsBroken.Load() {
		t.Skip("skipped: the namespaces were already found missing")
	}
	t.Cleanup(func() { nsBroken.Store(false) })
	bad := []Request{f.request("true\x00x", f.sandbox())}
	if os.Getuid() != 0 {
		locked := filepath.Join(f.ws, "locked")
		must(t, os.Mkdir(locked, 0o311)) // enter, not read
		t.Cleanup(func() { os.Chmod(locked, 0o755) })
		req := f.request("true", f.sandbox())
		req.Cwd, req.Dir = locked, nil
		bad = append(bad, req)
	}
	for _, req := range bad {
		if out, err := f.r.Exec(context.Background(), req); err == nil {
			t.Errorf("%q in %s started: %+v", req.Command, req.Cwd, out)
		}
		if nsBroken.Load() {
			t.Fatalf("a start that failed for %q in %s turned the namespaces off for the process", req.Command, req.Cwd)
		}
		out := f.run(t, "readlink /proc/self/ns/net")
		if out.ExitCode != 0 || !strings.Contains(strings.Join(out.Sandbox.Enforced, " "), "netns") {
			t.Errorf("the next run: %+v, %+v", out, out.Sandbox)
		}
	}
}
