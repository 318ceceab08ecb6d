package exec

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// proc is a leader this package started: on Linux a bare process id,
// reaped with wait4(2) by reap.
type proc struct {
	pid int
	// A sandbox's helper (sandboxRun.start) also has its status socket:
	// once the status record is there, the command's whole tree has
	// ended and been reaped, and the run is over (runPolled), while the
	// kernel may still be tearing the helper's namespaces down
	// (docs/adr/0028).
	hasStatus bool
	statusFD  int
}

// statusReady reports whether p's status record has come whole (it is
// left in the socket for its reader, sandboxRun.finish).
func (p *proc) statusReady() bool {
	return p.hasStatus && peekRecord(p.statusFD) == recordWhole
}

// What peekRecord finds on a helper's status socket.
const (
	recordNone  = iota // nothing yet, or part of it
	recordWhole        // the 8 bytes of the status record
	recordGone         // a hang-up (or an error) with no record
)

// peekRecord looks at the status socket fd without waiting and without
// taking the record, which its reader (sandboxRun.finish) takes.
func peekRecord(fd int) int {
	var b [8]byte
	for {
		n, _, err := unix.Recvfrom(fd, b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN || err == nil && n > 0 && n < len(b):
			return recordNone
		case err != nil || n == 0:
			return recordGone
		}
		return recordWhole
	}
}

// startProc starts the process cmd describes (Path, Args, Env, Dir,
// Stdin, Stdout, Stderr, ExtraFiles, SysProcAttr) as cmd.Start would, and
// returns it; cmd itself is left unstarted.
//
// It calls syscall.StartProcess (the vfork and exec that os/exec's Start
// ends in) directly, for what os/exec adds on the way and this package
// does not use: package os's probe, once per process, of whether pidfds
// work (a process cloned and waited for only to find out), an
// *os.Process with its cleanup and its pidfd (the supervisors open their
// own with pidfd_open(2), which is safe while the leader is an unreaped
// child), and the wait of Cmd.Wait for copying goroutines there are none
// of. agent-host exec -- true: measured in the same rounds, see
// docs/adr/0011.
//
// What a start of os/exec guarantees is kept: a standard descriptor
// that is nil is /dev/null, the environment is deduplicated with the
// last value of a name winning (dedupEnv; one holding a NUL byte fails
// the start), and a failed start is an *os.PathError ("fork/exec") wrapping
// the errno, so errors.Is finds fs.ErrNotExist or fs.ErrPermission.
func startProc(cmd *osexec.Cmd) (*proc, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if cmd.Path == "" {
		return nil, errors.New("exec: no command")
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			// os/exec's refusal, matching EINVAL as an argument with
			// a NUL byte does.
			return nil, fmt.Errorf("exec: environment variable contains NUL: %w", syscall.EINVAL)
		}
	}
	env = dedupEnv(env)
	var err error
	fds := make([]uintptr, 0, 3+len(cmd.ExtraFiles))
	null := -1
	defer func() {
		if null >= 0 {
			unix.Close(null)
		}
	}()
	for i, v := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		switch f := v.(type) {
		case nil:
			if null < 0 {
				// Read-write, so one descriptor serves every nil stream.
				if null, err = unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0); err != nil {
					return nil, &os.PathError{Op: "open", Path: os.DevNull, Err: err}
				}
			}
			fds = append(fds, uintptr(null))
		case *os.File:
			if f == nil {
				return nil, fmt.Errorf("exec: standard descriptor %d is a nil *os.File", i)
			}
			fds = append(fds, f.Fd())
		default:
			return nil, fmt.Errorf("exec: standard descriptor %d is not a file (%T)", i, v)
		}
	}
	for _, f := range cmd.ExtraFiles {
		fds = append(fds, f.Fd())
	}
	pid, _, err := syscall.StartProcess(cmd.Path, cmd.Args, &syscall.ProcAttr{
		Dir:   cmd.Dir,
		Env:   env,
		Files: fds,
		Sys:   cmd.SysProcAttr,
	})
	// The descriptors were duplicated into the child (or the start
	// failed): the files may be closed from now on, not before.
	runtime.KeepAlive(cmd)
	if err != nil {
		return nil, &os.PathError{Op: "fork/exec", Path: cmd.Path, Err: err}
	}
	return &proc{pid: pid}, nil
}

// reap waits for the leader to end, if it has not yet, reaps it and
// returns its status. A failed wait (ECHILD: something else reaped it) is
// an unknown status.
func (p *proc) reap() exitStatus {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(p.pid, &ws, 0, nil)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return exitStatus{}
		}
	}
	switch {
	case ws.Exited():
		return exitStatus{known: true, code: ws.ExitStatus()}
	case ws.Signaled():
		return exitStatus{known: true, code: -1, signal: ws.Signal()}
	}
	return exitStatus{}
}

// outputPipe is a pipe for the command's output: the write end, the
// command's, is an ordinary blocking pipe; only our read end is
// non-blocking, so that it alone is registered with the runtime's poller
// (os.NewFile does it for a non-blocking descriptor) and can have read
// deadlines. os.Pipe would make both ends non-blocking and poll both,
// and handing the write end over would then make it blocking again: a
// dozen system calls more for the two pipes of a run.
func outputPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, &os.SyscallError{Syscall: "pipe2", Err: err}
	}
	// One F_SETFL: a fresh read end has no other status flag.
	if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_SETFL, unix.O_NONBLOCK); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, nil, &os.SyscallError{Syscall: "fcntl", Err: err}
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
