//go:build linux || darwin

package senduserfile

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive flock on the file at path without waiting.
// ok is false when another process holds it or it cannot be opened. The
// descriptor is a bare one, not an *os.File: os.OpenFile tries each file
// it opens on the runtime's poller (four more system calls for a
// regular file, and the poller's set-up the first time).
func tryLock(path string) (unlock func(), ok bool) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		return nil, false
	}
	return func() { unix.Close(fd) }, true
}

// appendLine appends line to the file at path (made 0600 when missing)
// with one write(2) in append mode, on a bare descriptor (see tryLock).
func appendLine(path string, line []byte) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	n, err := unix.Write(fd, line)
	for err == unix.EINTR {
		n, err = unix.Write(fd, line)
	}
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if cerr := unix.Close(fd); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}
