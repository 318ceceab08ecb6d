package exec

import (
	"os"
	osexec "os/exec"

	"golang.org/x/sys/unix"
)

// leader follows the first process of a run.
type leader struct {
	cmd    *osexec.Cmd
	exited chan struct{} // closed once the leader has exited
}

// usePidfd can be cleared by tests to exercise the waitid fallback.
var usePidfd = true

// watch starts waiting for cmd's process to exit. On Linux the wait does
// not reap it (WNOWAIT): as a zombie the leader keeps its pid, which is
// also the process group id, reserved until reap, so the group kill that
// follows its exit cannot reach an unrelated group that got the id anew.
//
// The wait goes through a pidfd in Go's poller where the kernel has
// pidfd_open with PIDFD_NONBLOCK (Linux 5.10), so the leader's exit and
// the pipes' end arrive through the same epoll wakeup; elsewhere a
// goroutine blocks in waitid.
func watch(cmd *osexec.Cmd) *leader {
	l := &leader{cmd: cmd, exited: make(chan struct{})}
	pid := cmd.Process.Pid
	if usePidfd {
		if fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK); err == nil {
			f := os.NewFile(uintptr(fd), "pidfd")
			go func() {
				defer close(l.exited)
				if err := pollPidfd(f); err != nil {
					blockingWait(pid) // the pidfd is not pollable here
				}
			}()
			return l
		}
	}
	go func() {
		defer close(l.exited)
		blockingWait(pid)
	}()
	return l
}

// pollPidfd returns once the process of the pidfd f has exited, without
// reaping it, and closes f. An error means f could not be polled and
// nothing is known of the process.
func pollPidfd(f *os.File) error {
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		// Linux zeroes si_signo when nothing is waitable yet; an error
		// (ECHILD) means there is nothing left to wait for.
		return err != nil || info.Signo != 0
	})
}

// blockingWait returns once process pid has exited, without reaping it.
func blockingWait(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return // nil, or ECHILD if it was reaped already: gone either way
		}
	}
}

// reap collects the exited leader's status; call it after exited closed.
func (l *leader) reap() *os.ProcessState {
	_ = l.cmd.Wait() // an *ExitError for a non-zero status; the state says it all
	return l.cmd.ProcessState
}
