package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// spawnEnv makes a test binary a spawner (see Spawner).
const spawnEnv = "AGENTHOST_TESTBIN_SPAWNER"

// Spawner makes the test binary, when Bounded starts it, run one command
// and report its peak RSS, and exit; otherwise it returns at once. Call
// it from an init function of each test package that uses Bounded.
//
// Why a spawner: the kernel's count of a process's peak RSS (ru_maxrss,
// which Bounded reads) starts, at its exec, from the peak of the process
// it was forked from, since Go forks with CLONE_VM: a command started by
// a test process that once held 100 MiB reports at least 100 MiB. The
// spawner is a fresh process of a few MiB, so what it reports for its
// child is the child's own.
func Spawner() {
	if os.Getenv(spawnEnv) == "" {
		return
	}
	report := os.NewFile(3, "report")
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, spawnEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// The child dies with the spawner (Bounded kills the spawner); the
	// signal is tied to the thread that started it.
	runtime.LockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "spawner:", err)
		os.Exit(127)
	}
	cmd.Wait()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	fmt.Fprintf(report, "%d\n", cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	os.Exit(code)
}

// Run is a command started by Start.
type Run struct {
	cmd    *exec.Cmd
	path   string
	report *os.File
	t0     time.Time
	done   chan struct{}
	killed chan string // why the watchdog killed it
}

// Start starts cmd (its Stdin, Stdout and Stderr set as the caller wants,
// pipes included) through the test binary as a spawner (see Spawner). A
// watchdog kills it when its RSS passes killAboveKiB, so that code that
// holds a whole input fails a test instead of filling the machine.
func Start(cmd *exec.Cmd, killAboveKiB int64) (*Run, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r := &Run{cmd: cmd, path: cmd.Path, done: make(chan struct{}), killed: make(chan string, 1)}
	cmd.Args = append([]string{self, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = self
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, spawnEnv+"=1")
	var rw *os.File
	if r.report, rw, err = os.Pipe(); err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{rw}
	r.t0 = time.Now()
	err = cmd.Start()
	rw.Close()
	if err != nil {
		r.report.Close()
		return nil, err
	}
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.done:
				return
			case <-tick.C:
				if kib := treeRSS(cmd.Process.Pid); kib > killAboveKiB {
					r.killed <- fmt.Sprintf("RSS %d KiB, killed above %d KiB", kib, killAboveKiB)
					cmd.Process.Kill()
					return
				}
			}
		}
	}()
	return r, nil
}

// Wait waits at most d for the command (killing it then) and returns how
// long it ran, its peak RSS in KiB (ru_maxrss) and its exit code; err
// says why there are none (killed by the watchdog or the deadline).
func (r *Run) Wait(d time.Duration) (took time.Duration, peakKiB int64, code int, err error) {
	defer r.report.Close()
	waited := make(chan struct{})
	go func() { r.cmd.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(d):
		r.cmd.Process.Kill()
		<-waited
		close(r.done)
		return time.Since(r.t0), 0, -1, fmt.Errorf("%s: still running after %v, killed", r.path, d)
	}
	close(r.done)
	took = time.Since(r.t0)
	select {
	case why := <-r.killed:
		return took, 0, -1, fmt.Errorf("%s: %s", r.path, why)
	default:
	}
	var b [32]byte
	n, _ := r.report.Read(b[:])
	peakKiB, err = strconv.ParseInt(strings.TrimSpace(string(b[:n])), 10, 64)
	if err != nil {
		return took, 0, -1, fmt.Errorf("%s: no peak RSS reported (%q)", r.path, b[:n])
	}
	return took, peakKiB, r.cmd.ProcessState.ExitCode(), nil
}

// Bounded is Start and Wait: cmd run through a spawner, killed after d
// or above killAboveKiB of RSS.
func Bounded(cmd *exec.Cmd, d time.Duration, killAboveKiB int64) (took time.Duration, peakKiB int64, code int, err error) {
	r, err := Start(cmd, killAboveKiB)
	if err != nil {
		return 0, 0, -1, err
	}
	return r.Wait(d)
}

// treeRSS is the resident set, in KiB, of the spawner's child (the
// command), 0 when there is none.
func treeRSS(spawner int) int64 {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", spawner))
	var most int64
	for _, t := range tasks {
		kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", spawner, t.Name()))
		for _, k := range strings.Fields(string(kids)) {
			most = max(most, statusKiB(k, "VmRSS"))
		}
	}
	return most
}

func statusKiB(pid, field string) int64 {
	b, _ := os.ReadFile("/proc/" + pid + "/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
