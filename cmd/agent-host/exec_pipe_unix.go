//go:build unix

package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// brokenPipeIsError returns writers onto the same files as stdout and
// stderr but on descriptors of their own, when they are agent-host's
// standard output and error, and the function that closes them. A Go
// program kills itself with SIGPIPE for a write on descriptor 1 or 2
// whose reader went away (`| head`); on any other descriptor the write
// fails with EPIPE instead, so a streaming exec stops copying (and the
// command's next write fails) while agent-host lives on to stop the
// command and report. The alternative, signal.Notify for SIGPIPE, costs a
// round trip to the runtime's signal thread at every start. A writer that
// is not one of them, or a failure to duplicate, is given back as it is.
func brokenPipeIsError(stdout, stderr io.Writer) (io.Writer, io.Writer, func()) {
	var opened []*os.File
	dup := func(w io.Writer) io.Writer {
		f, ok := w.(*os.File)
		if !ok || f == nil || (f != os.Stdout && f != os.Stderr) {
			return w
		}
		rc, err := f.SyscallConn()
		if err != nil {
			return w
		}
		nfd := -1
		if cerr := rc.Control(func(fd uintptr) { nfd, err = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 3) }); cerr != nil || err != nil {
			return w
		}
		d := os.NewFile(uintptr(nfd), f.Name())
		opened = append(opened, d)
		return d
	}
	stdout, stderr = dup(stdout), dup(stderr)
	return stdout, stderr, func() {
		for _, f := range opened {
			f.Close()
		}
	}
}
