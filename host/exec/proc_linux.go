package exec

import (
	"os"

	"golang.org/x/sys/unix"
)

// leader follows the first process of a run.
type leader struct {
	p      *proc
	exited chan struct{} // closed once the leader has exited, or ended (below)
	// ended: the leader is a sandbox's helper whose status record came
	// whole (proc.statusReady) before its exit: the run is over, and
	// reap does not wait for the helper's exit (docs/adr/0028). Set
	// before exited is closed.
	ended bool
}

// watch starts waiting for p to exit, for runWatched (used
// on Linux only without pidfd_open). The wait does not reap it (WNOWAIT):
// as a zombie the leader keeps its pid, which is also the process group
// id, reserved until reap, so the group kill that follows its exit cannot
// reach an unrelated group that got the id anew.
//
// Where the kernel has pidfds, the goroutine waits in the runtime's
// network poller for the leader's pidfd to become readable (it does when
// the process exits), not in a blocking waitid: so no thread is held in a
// system call for the whole run, and once every goroutine of the run
// waits, the runtime's monitor thread sleeps instead of waking every 20
// µs to look at that thread (agent-host exec -- true: 5.33 -> 4.98 ms,
// measured at load 4).
func watch(p *proc) *leader {
	l := &leader{p: p, exited: make(chan struct{})}
	pid := p.pid
	pf := pollablePidfd(pid)
	var sf *os.File
	if pf != nil && p.hasStatus {
		if fd, err := unix.Dup(p.statusFD); err == nil {
			unix.CloseOnExec(fd)
			sf = os.NewFile(uintptr(fd), "status") // non-blocking, as the socket is
		}
	}
	go func() {
		defer close(l.exited)
		if pf != nil {
			defer pf.Close()
			if sf != nil {
				var exited bool
				l.ended, exited = waitEnd(pf, sf)
				if l.ended || exited {
					return
				}
			} else if waitPolled(pf) {
				return
			}
		}
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if err != unix.EINTR {
				return // nil, or ECHILD if it was reaped already: gone either way
			}
		}
	}()
	return l
}

// pollablePidfd returns pid's pidfd, non-blocking, as a file the runtime
// polls when it can (waitPolled says), or nil without pidfd_open.
func pollablePidfd(pid int) *os.File {
	if !usePidfd {
		return nil
	}
	// No havePidfd first: where pidfd_open is missing it fails here
	// (ENOSYS), and the caller waits with waitid.
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err == unix.EINVAL { // before Linux 5.10
		if fd, err = unix.PidfdOpen(pid, 0); err == nil {
			if err = unix.SetNonblock(fd, true); err != nil {
				unix.Close(fd)
			}
		}
	}
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), "pidfd")
}

// waitPolled waits in the poller until the process of pf has exited,
// without reaping it, and reports true; false when pf cannot be polled
// (then nothing was waited for).
func waitPolled(pf *os.File) bool {
	rc, err := pf.SyscallConn()
	if err != nil {
		return false
	}
	exited := false
	err = rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
			return false // look again
		case err != nil:
			exited = true // ECHILD: reaped already, gone either way
		default:
			exited = info.Signo != 0 // Linux zeroes it while the process runs (WNOHANG)
		}
		return exited
	})
	return err == nil && exited
}

// waitEnd waits until the helper of pf has exited (exited) or its status
// record on sf has come whole (ended, reported only if it came first),
// and closes sf. Both false: pf could not be polled, and nothing was
// waited for.
func waitEnd(pf, sf *os.File) (ended, exited bool) {
	pidDone := make(chan bool, 1)
	recDone := make(chan bool, 1)
	go func() { pidDone <- waitPolled(pf) }()
	go func() { recDone <- waitRecord(sf) }()
	select {
	case exited = <-pidDone:
	case ended = <-recDone:
		if ended {
			pf.Close() // ends waitPolled
		}
		exited = <-pidDone
		sf.Close()
		return ended, exited || ended
	}
	sf.Close() // ends waitRecord
	<-recDone
	return false, exited
}

// waitRecord waits in the poller until the status record on sf has come
// whole, and reports true; false when the helper hung up without one (it
// failed: its exit tells), or sf could not be polled or was closed.
func waitRecord(sf *os.File) bool {
	rc, err := sf.SyscallConn()
	if err != nil {
		return false
	}
	got := false
	err = rc.Read(func(fd uintptr) bool {
		switch peekRecord(int(fd)) {
		case recordNone:
			return false // nothing yet, or part of it: wait (or the exit)
		case recordWhole:
			got = true
		}
		return true
	})
	return err == nil && got
}

// reap collects the exited leader's status; call it after exited closed.
// For a leader that ended (its status record came before its exit), it
// returns nothing known at once and reaps the helper in the background:
// the record gives the status.
func (l *leader) reap() exitStatus {
	if l.ended {
		go l.p.reap()
		return exitStatus{}
	}
	return l.p.reap()
}
