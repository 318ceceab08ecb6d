// Package exec runs shell commands and argv programs for a coding agent:
// with a timeout, with output capped to what a model can read (head and
// tail kept, the middle counted), with cancellation through a context, and
// with a kill that reaches every process the command started.
//
// # What it guarantees
//
// A run never hangs past its limits and never leaves a process of its own
// behind. On Unix each command starts in a new session (setsid), so it has
// no controlling terminal (a prompt on /dev/tty fails at once instead of
// waiting for a human or writing on the user's terminal), and it is the
// leader of a new process group that holds everything it starts. Standard
// input is /dev/null unless Request.Stdin gives one. Standard output and
// standard error are pipes read by this package until they close, without
// back-pressure on the command, into the capture or, when the request
// gives writers (Request.Stdout, Request.Stderr), into those as they come.
//
//   - When the leader (the shell of Exec, the program of RunCapture) exits,
//     output is read for at most DrainGrace more, then the whole process
//     group is killed with SIGKILL. A command that ends in `server &`
//     returns its output after about DrainGrace, and the server is gone.
//   - On timeout or cancellation the group gets SIGTERM, then SIGKILL after
//     KillGrace (by this package's own timer: os/exec's WaitDelay would
//     kill only the leader).
//   - A process that left the group (setsid, a double fork with a new
//     session) is not killed, but it cannot hold the run either: once the
//     group is dead the pipes are read for at most DrainGrace more, then
//     closed under it.
//
// So a run returns at the latest Timeout + KillGrace + 2×DrainGrace after
// it started, plus scheduling delay; the only exception is a leader stuck
// in an uninterruptible kernel wait, which not even SIGKILL ends.
//
// # Confinement
//
// A run without a Sandbox confines nothing: the command may read, write
// and delete any file the user running the agent may, open network
// connections, and start a daemon in a new session that outlives the run.
// A run with a Sandbox (Request.Sandbox) is confined on Linux by Landlock,
// a seccomp filter and new user, mount, network, PID and IPC namespaces,
// applied by a helper between fork and exec (see Sandbox and
// SandboxMain): it runs in a view of the machine where it writes only
// inside its roots and a private temporary directory, sees no secret of
// the home directory, reaches no network, plants nothing that runs
// later, and its whole tree ends with it. Where a part is missing a
// sandboxed run fails with ErrNoSandbox unless its Sandbox is
// BestEffort; see docs/adr/0008 and 0014 for the design.
//
// # Platforms
//
// Process groups, sessions and the group kill are Unix only. On Linux
// (5.3 or newer, for pidfd_open) the calling goroutine supervises a run
// in one ppoll(2) loop over the leader's pidfd, the pipes and an eventfd
// for the context, with no goroutine of its own (but the one copying a
// Request.Stdin that is not a file); the leader stays unreaped (a
// zombie) until its group has been killed, so the group id cannot be
// reused by an unrelated process before the kill. For a run that streams
// into writers (Request.Stdout, Request.Stderr), so that a slow writer
// cannot hold the clock, elsewhere, and on older kernels, goroutines read
// the pipes and wait for the leader (on Linux still without reaping it; on other Unix systems the
// leader is reaped first and the kill follows at once, with the tiny
// window for reuse that implies). On Windows and other systems only the
// leader is killed, and a reader blocked on a pipe held by a surviving
// process is abandoned after DrainGrace.
package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"sync"
	"time"
)

// ErrNoShell is wrapped by the error of Exec when no shell can be found:
// neither bash nor sh on PATH, or Request.Shell names no executable file.
var ErrNoShell = errors.New("exec: no shell found")

// Request is one shell command for Runner.Exec.
type Request struct {
	// Command is the script given to the shell with -c. Whatever it does,
	// the call succeeds once the shell has started: a non-zero exit, a
	// "command not found" (127) or a syntax error (2) are in Output.
	Command string
	// Cwd is the directory the command starts in. The host facade
	// resolves it through the jail and passes an absolute path; here ""
	// means the current directory of this process. A missing directory or
	// a file is an error and nothing is started.
	Cwd string
	// Timeout bounds the run. Zero or negative means Limits.DefaultTimeout;
	// a timeout above Limits.MaxTimeout is clamped to it (Output.Timeout
	// says what applied).
	Timeout time.Duration
	// Env holds KEY=VALUE entries added to the environment, replacing a
	// variable of the same name. The command otherwise inherits this
	// process's environment with PAGER=cat, GIT_PAGER=cat and
	// GIT_TERMINAL_PROMPT=0 set, so that nothing waits for a human; Env
	// can override those too.
	Env []string
	// Combined sends standard output and standard error into one pipe and
	// returns them in Output.Combined, interleaved in the true order in
	// which the command wrote them; Output.Stdout and Output.Stderr are
	// then empty.
	Combined bool
	// Shell is the shell program, a name looked up on PATH or a path. ""
	// means bash if it is on PATH, else sh. The shell is run as
	// `SHELL -c -- COMMAND`: not a login shell (bash -l would cost about
	// 100 ms a call reading profiles) and not interactive, so no rc file is
	// read (bash still honours $BASH_ENV).
	Shell string
	// Dir, when set, is an open directory to start the command in, used
	// in place of the path Cwd: on Linux the child changes into it
	// through /proc/self/fd, so a directory swapped for a symbolic link
	// after the caller opened Dir cannot redirect the start. Cwd then
	// only sets $PWD. The caller keeps Dir open until the call returns
	// and closes it. Without /proc (a chroot, a container without it)
	// the command is started through the sandbox helper, which changes
	// into Dir with fchdir(2); when the program did not install the
	// helper (SandboxMain) the run fails with ErrNoStartDir and nothing
	// starts: Cwd is never entered by path. Outside Linux Cwd is used.
	Dir *os.File
	// Sandbox, when set, confines the command and everything it starts
	// (see Sandbox); nil runs it with the rights of this process.
	Sandbox *Sandbox
	// Stdin is the command's standard input; nil means /dev/null. An
	// *os.File (a file, a pipe, a terminal) is given to the command as it
	// is: the command reads the descriptor itself, sharing its offset,
	// and nothing is copied. Any other reader is copied into a pipe by a
	// goroutine of the run as the command reads it, until Read returns
	// io.EOF or an error (then the command sees end of file) or the run
	// ends. When the run ends the pipe is closed, so a copy blocked on a
	// full pipe (a command that reads nothing) ends with it; a Read of
	// Stdin in progress is not waited for: its goroutine ends as soon as
	// that Read returns, without calling Read again. A sandboxed command
	// gets its input the same way, through the helper.
	Stdin io.Reader
	// Stdout and Stderr, when set, receive the command's standard output
	// and standard error as it writes them, byte for byte and uncut,
	// instead of being captured: the matching Output field is then empty
	// and never Truncated. With Combined the one interleaved stream goes
	// to Stdout (to Stderr when only Stderr is set). Each writer is called
	// from one goroutine of the run, never after Exec returned. A Write
	// that blocks holds the command back as a full pipe would, but not
	// the timeout, the cancel or the kill; Exec returns once the writers
	// have taken everything the command's group wrote (so a slow terminal
	// or a pager loses nothing, and a Write that never returns holds
	// Exec), but it stops reading a process that escaped the group after
	// DrainGrace of waiting or 1 MiB. A Write that fails closes that pipe,
	// so the command's next write fails with EPIPE (or SIGPIPE), as in a
	// shell pipeline.
	Stdout, Stderr io.Writer
	// MaxOutputBytes, when positive, replaces Limits.MaxOutputBytes for
	// the capture of this run (raised to 256 if smaller).
	MaxOutputBytes int
}

// Capture is one program run directly, with no shell, for Runner.Capture.
type Capture struct {
	// Program is looked up on PATH unless it contains a path separator;
	// a relative path is taken from Cwd.
	Program string
	// Args are its arguments, passed as they are.
	Args []string
	// Cwd, Dir, Timeout, Env and Sandbox are as in Request.
	Cwd     string
	Dir     *os.File
	Timeout time.Duration
	Env     []string
	Sandbox *Sandbox
}

// Output is what a run produced. A run that started always yields one,
// whatever became of the command.
type Output struct {
	// Stdout and Stderr are the command's standard output and standard
	// error as UTF-8 (each invalid byte becomes U+FFFD), each within
	// Limits.MaxOutputBytes bytes (Request.MaxOutputBytes when set). When
	// a stream was longer, its string is the head, one line "[... N bytes
	// omitted ...]" and the tail, with both cuts between runes, and
	// Truncated is set. Both are empty when Request.Combined was set, and
	// each is empty when it went to a writer (Request.Stdout, Stderr).
	Stdout, Stderr string
	// Combined is standard output and standard error interleaved, under
	// the same rules, when Request.Combined was set.
	Combined string
	// ExitCode is the leader's exit status, or -1 when a signal killed it.
	ExitCode int
	// Signal names the signal that killed the leader ("SIGKILL",
	// "SIGTERM", "SIGSEGV", ...), or is "".
	Signal string
	// TimedOut is set when the timeout elapsed and the group was killed.
	TimedOut bool
	// Cancelled is set when the context was done (cancelled, or its own
	// deadline passed) before the leader exited, and the group was killed.
	Cancelled bool
	// Truncated is set when some captured stream was cut to fit the
	// output limit.
	Truncated bool
	// Duration is the wall time from the start of the command to the
	// return of the call, drain and kill included.
	Duration time.Duration
	// Timeout is the timeout that applied, after defaulting and clamping.
	Timeout time.Duration
	// Pid is the process id of the leader; on Unix it is also the id of
	// the process group and of the session the command ran in. For a
	// sandboxed run the leader is the sandbox helper.
	Pid int
	// Sandbox says what confined the run: nil when it was not sandboxed,
	// else the parts enforced and missing and the protected paths
	// restored after it.
	Sandbox *Report
}

// ShellStatus returns the status a shell would report for the run in $?:
// ExitCode, or 128 plus the signal's number when a signal killed the
// leader (137 for SIGKILL, 143 for SIGTERM).
func (o Output) ShellStatus() int {
	if o.Signal != "" {
		if n := signalNum(o.Signal); n > 0 {
			return 128 + n
		}
	}
	return o.ExitCode
}

// Runner runs commands under one set of Limits. One Runner serves any
// number of concurrent runs, and every run owns its processes, pipes and
// goroutines, all gone when the run returns (except a process that
// escaped the group, see the package documentation). Its only other
// state is for sandboxed runs: their private temporary directory and,
// from its second sandboxed run on, one sandbox helper started ahead
// for the next (on Linux; docs/adr/0012), which Close ends.
type Runner struct {
	limits Limits

	mu      sync.Mutex
	tmp     string   // the sandboxes' private temporary directory, made at first use
	tmpLock *os.File // the flock on it that says its Runner is alive (tmpsweep_unix.go)
	zyg     zygote   // the helper kept waiting for the next sandboxed run
}

// NewRunner returns a Runner with l's zero fields replaced by the
// defaults.
func NewRunner(l Limits) *Runner {
	return &Runner{limits: l.withDefaults()}
}

// Close ends the sandbox helper the Runner kept waiting, if any, and
// removes the private temporary directory the Runner's sandboxed runs
// shared, with everything in it. Runs still going when Close is called
// start no helper when they end. The Runner stays usable: runs that start
// afterwards get a new directory and count afresh (from the second, a
// helper is kept waiting again, for the next Close).
func (r *Runner) Close() error {
	r.zyg.close()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tmp == "" {
		return nil
	}
	err := os.RemoveAll(r.tmp)
	r.tmp = ""
	if r.tmpLock != nil {
		r.tmpLock.Close()
		r.tmpLock = nil
	}
	return err
}

// sessionTmp returns the sandboxes' private temporary directory, making
// it (mode 0700) at first use.
func (r *Runner) sessionTmp() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tmp != "" {
		if fi, err := os.Lstat(r.tmp); err == nil && fi.IsDir() {
			return r.tmp, nil
		}
	}
	d, err := os.MkdirTemp("", "agenthost-sandbox-")
	if err != nil {
		return "", err
	}
	if r.tmpLock != nil {
		r.tmpLock.Close()
	}
	// Held while the Runner lives; a directory whose hold is gone is a
	// dead Runner's, which sweepDeadTmps removes.
	r.tmpLock, _ = lockTmp(d)
	sweepDeadTmps()
	r.tmp = d
	return d, nil
}

// Limits returns the limits in force, defaults filled in.
func (r *Runner) Limits() Limits {
	return r.limits
}

// Exec runs req.Command through the shell and returns its output.
//
// The error is non-nil when nothing was started, and the Output is then
// zero: no shell (errors.Is(err, ErrNoShell)), a Cwd that is missing
// (fs.ErrNotExist) or not a directory (syscall.ENOTDIR), a ctx already done
// (its error is wrapped), or a failure of the operating system to create
// the pipes or the process. One error comes after a run, with the Output
// complete: a sandboxed command changed protected paths that could not
// all be put back (errors.Is(err, ErrUnsafeWorkspace)). Everything that happens after the start, a
// non-zero exit, a signal, a timeout, a cancellation, is reported in
// Output with a nil error.
func (r *Runner) Exec(ctx context.Context, req Request) (Output, error) {
	shell, err := findShell(req.Shell)
	if err != nil {
		return Output{}, err
	}
	return r.run(ctx, spec{
		path:     shell,
		args:     []string{"-c", "--", req.Command},
		cwd:      req.Cwd,
		dir:      req.Dir,
		env:      req.Env,
		timeout:  r.limits.timeout(req.Timeout),
		combined: req.Combined,
		sandbox:  req.Sandbox,
		stdin:    req.Stdin,
		stdout:   req.Stdout,
		stderr:   req.Stderr,
		maxOut:   r.limits.maxOutput(req.MaxOutputBytes),
	})
}

// Capture runs c.Program as RunCapture does, with c's environment
// additions and sandbox. The errors are RunCapture's, plus ErrNoSandbox
// for a sandbox this system cannot give (unless BestEffort).
func (r *Runner) Capture(ctx context.Context, c Capture) (Output, error) {
	return r.run(ctx, spec{
		path:    c.Program,
		args:    c.Args,
		cwd:     c.Cwd,
		dir:     c.Dir,
		env:     c.Env,
		timeout: r.limits.timeout(c.Timeout),
		sandbox: c.Sandbox,
		maxOut:  r.limits.MaxOutputBytes,
	})
}

// RunCapture runs program with args directly, with no shell in between,
// so arguments from a model (a regular expression, a glob) reach the
// program unexpanded. program is looked up on PATH unless it contains a
// path separator; a relative path is taken from cwd. cwd and timeout are
// as Request.Cwd and Request.Timeout. It has the same capture, timeout,
// kill and cancel as Exec, with the streams kept apart.
//
// The error is non-nil only when nothing was started: program not found
// (errors.Is(err, os/exec.ErrNotFound)) or not executable
// (fs.ErrPermission), and the cases listed under Exec.
func (r *Runner) RunCapture(ctx context.Context, program string, args []string, cwd string, timeout time.Duration) (Output, error) {
	return r.RunCaptureIn(ctx, nil, program, args, cwd, timeout)
}

// RunCaptureIn is RunCapture starting in the open directory dir, as
// Request.Dir (nil means cwd).
func (r *Runner) RunCaptureIn(ctx context.Context, dir *os.File, program string, args []string, cwd string, timeout time.Duration) (Output, error) {
	return r.run(ctx, spec{
		path:    program,
		args:    args,
		cwd:     cwd,
		dir:     dir,
		timeout: r.limits.timeout(timeout),
		maxOut:  r.limits.MaxOutputBytes,
	})
}

// findShell returns the path of the shell to use: want if set, else bash,
// else sh.
func findShell(want string) (string, error) {
	if want != "" {
		p, err := osexec.LookPath(want)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrNoShell, err)
		}
		return p, nil
	}
	for _, name := range []string{"bash", "sh"} {
		if p, err := osexec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: neither bash nor sh is on PATH (%q)", ErrNoShell, os.Getenv("PATH"))
}
