//go:build !unix

package exec

import (
	osexec "os/exec"
	"syscall"
)

// setProcAttr does nothing: without Unix process groups only the leader
// can be killed.
func setProcAttr(*osexec.Cmd) {}

// terminate kills the leader: there is no SIGTERM to send.
func (l *leader) terminate() { _ = l.p.cmd.Process.Kill() }

// kill kills the leader.
func (l *leader) kill() { _ = l.p.cmd.Process.Kill() }

func signalName(sig syscall.Signal) string { return sig.String() }

// signalNum returns 0: no signal ends a process here.
func signalNum(string) int { return 0 }
