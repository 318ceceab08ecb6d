//go:build !linux

package exec

import (
	"os"
	osexec "os/exec"
)

// proc is a leader this package started; outside Linux os/exec starts
// it and cmd.Wait reaps it.
type proc struct {
	pid int
	cmd *osexec.Cmd
}

// startProc starts cmd with cmd.Start.
func startProc(cmd *osexec.Cmd) (*proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &proc{pid: cmd.Process.Pid, cmd: cmd}, nil
}

// reap waits for the leader to end and returns its status.
func (p *proc) reap() exitStatus {
	_ = p.cmd.Wait() // an *ExitError for a non-zero status; the state says it all
	return statusOf(p.cmd.ProcessState)
}

// outputPipe is a pipe for the command's output (os.Pipe).
func outputPipe() (r, w *os.File, err error) { return os.Pipe() }
