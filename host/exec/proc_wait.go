//go:build !linux

package exec

import (
	"context"
	osexec "os/exec"
)

// runPolled is Linux only; elsewhere every run is watched by goroutines.
func (r *Runner) runPolled(context.Context, *osexec.Cmd, spec) (Output, bool, error) {
	return Output{}, false, nil
}

// leader follows the first process of a run.
type leader struct {
	p      *proc
	exited chan struct{} // closed once the leader has exited and was reaped
	state  exitStatus
}

// watch starts waiting for p to exit. Outside Linux the wait reaps it,
// so a group kill after the exit has a tiny window in which the group id
// could have been reused (see the package documentation).
func watch(p *proc) *leader {
	l := &leader{p: p, exited: make(chan struct{})}
	go func() {
		defer close(l.exited)
		l.state = p.reap()
	}()
	return l
}

// reap returns the exited leader's status; call it after exited closed.
func (l *leader) reap() exitStatus { return l.state }
