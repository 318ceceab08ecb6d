//go:build !linux

package exec

import (
	"context"
	"os"
	osexec "os/exec"
)

// runPolled is Linux only; elsewhere every run is watched by goroutines.
func (r *Runner) runPolled(context.Context, *osexec.Cmd, spec) (Output, bool, error) {
	return Output{}, false, nil
}

// leader follows the first process of a run.
type leader struct {
	cmd    *osexec.Cmd
	exited chan struct{} // closed once the leader has exited and was reaped
	state  *os.ProcessState
}

// watch starts waiting for cmd's process to exit. Outside Linux the wait
// reaps it, so a group kill after the exit has a tiny window in which the
// group id could have been reused (see the package documentation).
func watch(cmd *osexec.Cmd) *leader {
	l := &leader{cmd: cmd, exited: make(chan struct{})}
	go func() {
		defer close(l.exited)
		_ = cmd.Wait() // an *ExitError for a non-zero status; the state says it all
		l.state = cmd.ProcessState
	}()
	return l
}

// reap returns the exited leader's status; call it after exited closed.
func (l *leader) reap() *os.ProcessState { return l.state }
