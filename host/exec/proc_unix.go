//go:build unix

package exec

import (
	osexec "os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// setProcAttr starts the command in a new session, so that it has no
// controlling terminal and leads a new process group holding everything
// it starts.
func setProcAttr(cmd *osexec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// terminate sends SIGTERM to the leader's process group.
func (l *leader) terminate() { l.signalGroup(unix.SIGTERM) }

// kill sends SIGKILL to the leader's process group.
func (l *leader) kill() { l.signalGroup(unix.SIGKILL) }

func (l *leader) signalGroup(sig syscall.Signal) {
	// ESRCH (the group is empty) is the only expected error, and then
	// there is nothing left to signal.
	_ = unix.Kill(-l.p.pid, sig)
}

// signalName returns the conventional name of sig, e.g. "SIGKILL".
func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return sig.String()
}

// signalNum returns the number of the signal named name, or 0.
func signalNum(name string) int { return int(unix.SignalNum(name)) }
