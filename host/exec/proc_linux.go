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

// watch starts waiting for cmd's process to exit, for runWatched (used
// on Linux only without pidfd_open). The wait does not reap it (WNOWAIT):
// as a zombie the leader keeps its pid, which is also the process group
// id, reserved until reap, so the group kill that follows its exit cannot
// reach an unrelated group that got the id anew.
func watch(cmd *osexec.Cmd) *leader {
	l := &leader{cmd: cmd, exited: make(chan struct{})}
	go func() {
		defer close(l.exited)
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if err != unix.EINTR {
				return // nil, or ECHILD if it was reaped already: gone either way
			}
		}
	}()
	return l
}

// reap collects the exited leader's status; call it after exited closed.
func (l *leader) reap() *os.ProcessState {
	_ = l.cmd.Wait() // an *ExitError for a non-zero status; the state says it all
	return l.cmd.ProcessState
}
