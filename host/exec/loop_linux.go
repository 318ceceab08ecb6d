package exec

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	osexec "os/exec"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// usePidfd can be cleared by tests to exercise runWatched on Linux.
var usePidfd = true

// havePidfd reports whether the kernel has pidfd_open (Linux 5.3).
var havePidfd = sync.OnceValue(func() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})

// maxReadsPerWake bounds the reads of one pipe between two looks at the
// clock, so a flood of output cannot delay a timeout: 16 reads of 64 KiB.
const maxReadsPerWake = 16

// Phases of a polled run.
const (
	phaseRunning     = iota // the leader runs
	phaseDraining           // the leader exited; reading what is left for DrainGrace
	phaseTerminating        // SIGTERM sent; waiting up to KillGrace
	phaseKilled             // SIGKILL sent; reading for DrainGrace more
)

// polledPipe is the read end of one of the command's pipes.
type polledPipe struct {
	fd  int // -1 once closed
	buf *headTail
}

// read empties the pipe into buf, up to maxReadsPerWake reads, and closes
// it at EOF or on an error.
func (p *polledPipe) read(b []byte) {
	for range maxReadsPerWake {
		n, err := unix.Read(p.fd, b)
		if n > 0 {
			p.buf.Write(b[:n])
			continue
		}
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return
		}
		p.close() // EOF or an error: nothing more will come
		return
	}
}

func (p *polledPipe) close() {
	if p.fd >= 0 {
		unix.Close(p.fd)
		p.fd = -1
	}
}

// runPolled is the Linux supervisor: the calling goroutine waits in one
// ppoll(2) on the leader's pidfd, the pipes and, when ctx can be
// cancelled, an eventfd that context.AfterFunc writes. No goroutine is
// started and a run wakes its thread once per event, as a bare start and
// wait of the program would; the sequence of drain, signals and deadlines
// is that of runWatched. handled is false when the kernel has no
// pidfd_open; then nothing was done.
func (r *Runner) runPolled(ctx context.Context, cmd *osexec.Cmd, s spec) (out Output, handled bool, err error) {
	if !usePidfd || !havePidfd() {
		return Output{}, false, nil
	}
	lim := r.limits
	npipes := 2
	if s.combined {
		npipes = 1
	}
	pipes := make([]polledPipe, 0, 2)
	writers := make([]*os.File, 0, 2)
	defer func() {
		for i := range pipes {
			pipes[i].close()
		}
	}()
	for range npipes {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			for _, w := range writers {
				w.Close()
			}
			return Output{}, true, fmt.Errorf("exec: pipe: %w", err)
		}
		// Only our end is non-blocking: the command gets an ordinary
		// pipe. (One F_SETFL: a fresh read end has no other status flag.)
		if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_SETFL, unix.O_NONBLOCK); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			for _, w := range writers {
				w.Close()
			}
			return Output{}, true, fmt.Errorf("exec: pipe: %w", err)
		}
		pipes = append(pipes, polledPipe{fd: p[0], buf: newHeadTail(s.maxOut)})
		writers = append(writers, os.NewFile(uintptr(p[1]), "|1"))
	}
	cmd.Stdout = writers[0]
	cmd.Stderr = writers[len(writers)-1]

	start := time.Now()
	p, err := s.begin(cmd)
	s.in.started(err)
	for _, w := range writers {
		w.Close() // the child has its copies; EOF comes when it and its heirs close them
	}
	if err != nil {
		return Output{}, true, fmt.Errorf("exec: %w", err)
	}
	pid := p.pid
	group := func(sig unix.Signal) { _ = unix.Kill(-pid, sig) }
	// abort stops a started command that cannot be watched.
	abort := func(what string, err error) (Output, bool, error) {
		group(unix.SIGKILL)
		p.reap()
		return Output{}, true, fmt.Errorf("exec: %s: %w", what, err)
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return abort("pidfd_open", err)
	}
	defer unix.Close(pidfd)

	efd := -1
	if ctx.Done() != nil {
		efd, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
		if err != nil {
			return abort("eventfd", err)
		}
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			defer close(fired)
			var one [8]byte
			binary.NativeEndian.PutUint64(one[:], 1)
			unix.Write(efd, one[:])
		})
		defer func() {
			if !stop() {
				<-fired // it may be writing to efd: let it finish first
			}
			unix.Close(efd)
		}()
	}

	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := *bp

	out = Output{Timeout: s.timeout, Pid: pid}
	phase := phaseRunning
	deadline := start.Add(s.timeout)
	leaderGone, cancelled := false, false
	// ended: the leader is a sandbox's helper whose status record came
	// (proc.statusReady): the run is over, the helper's exit need not be
	// waited for.
	ended := false
	statusFD := -1
	if p.hasStatus {
		statusFD = p.statusFD
	}
	fds := make([]unix.PollFd, 0, 4)
	for {
		open := 0
		for i := range pipes {
			if pipes[i].fd >= 0 {
				open++
			}
		}
		now := time.Now()
		switch phase {
		case phaseRunning:
			switch {
			case leaderGone:
				// What it wrote is in the pipes. Give a background job
				// a moment to finish writing, then kill the group
				// whether or not the pipes closed.
				phase, deadline = phaseDraining, now.Add(lim.DrainGrace)
			case cancelled:
				out.Cancelled = true
				group(unix.SIGTERM)
				phase, deadline = phaseTerminating, now.Add(lim.KillGrace)
			case !now.Before(deadline):
				out.TimedOut = true
				group(unix.SIGTERM)
				phase, deadline = phaseTerminating, now.Add(lim.KillGrace)
			}
		case phaseDraining, phaseTerminating:
			if leaderGone && open == 0 || !now.Before(deadline) {
				group(unix.SIGKILL)
				phase, deadline = phaseKilled, now.Add(lim.DrainGrace)
			}
		}
		if phase == phaseDraining && open == 0 {
			continue // straight to the kill
		}
		if phase == phaseKilled && !now.Before(deadline) {
			// A process outside the group holds the pipes: stop reading.
			for i := range pipes {
				pipes[i].close()
			}
			open = 0
		}
		if phase == phaseKilled && leaderGone && open == 0 {
			break
		}

		fds = fds[:0]
		if !leaderGone {
			fds = append(fds, unix.PollFd{Fd: int32(pidfd), Events: unix.POLLIN})
			if statusFD >= 0 {
				fds = append(fds, unix.PollFd{Fd: int32(statusFD), Events: unix.POLLIN})
			}
		}
		if efd >= 0 && phase == phaseRunning && !cancelled {
			fds = append(fds, unix.PollFd{Fd: int32(efd), Events: unix.POLLIN})
		}
		for i := range pipes {
			if pipes[i].fd >= 0 {
				fds = append(fds, unix.PollFd{Fd: int32(pipes[i].fd), Events: unix.POLLIN})
			}
		}
		var timeout *unix.Timespec
		if open > 0 || phase != phaseKilled {
			ts := unix.NsecToTimespec(max(0, int64(deadline.Sub(now))))
			timeout = &ts
		} // else only the leader is left, and SIGKILL ends it
		if _, err := unix.Ppoll(fds, timeout, nil); err != nil && err != unix.EINTR {
			// Not expected with valid descriptors; do not spin.
			group(unix.SIGKILL)
			time.Sleep(time.Millisecond)
		}
		for _, f := range fds {
			if f.Revents == 0 {
				continue
			}
			switch int(f.Fd) {
			case pidfd:
				leaderGone = true
			case statusFD:
				if p.statusReady() {
					leaderGone, ended = true, true
				} else {
					// The helper hung up without a record (it failed):
					// its exit says how the run ended.
					statusFD = -1
				}
			case efd:
				cancelled = true
			default:
				for i := range pipes {
					if pipes[i].fd == int(f.Fd) {
						pipes[i].read(buf)
					}
				}
			}
		}
	}

	out.Duration = time.Since(start)
	if ended {
		// The record gives the status (finish); the helper is reaped
		// when it has exited.
		go p.reap()
	} else {
		setStatus(&out, p.reap()) // the leader is a zombie: this only reaps it
	}
	if s.combined {
		out.Combined, out.Truncated = pipes[0].buf.render(s.maxOut)
	} else {
		var t1, t2 bool
		out.Stdout, t1 = pipes[0].buf.render(s.maxOut)
		out.Stderr, t2 = pipes[1].buf.render(s.maxOut)
		out.Truncated = t1 || t2
	}
	return out, true, nil
}
