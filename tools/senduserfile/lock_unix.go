//go:build linux || darwin

package senduserfile

import (
	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive flock on the file at path without waiting.
// ok is false when another process holds it or it cannot be opened as a
// regular file (a FIFO or a device there is not waited on: openRegular). The
// descriptor is a bare one, not an *os.File: os.OpenFile tries each file
// it opens on the runtime's poller (four more system calls for a
// regular file, and the poller's set-up the first time).
func tryLock(path string) (unlock func(), ok bool) {
	fd, err := openRegular(path, unix.O_RDWR|unix.O_CREAT, 0o600)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		return nil, false
	}
	return func() { unix.Close(fd) }, true
}
