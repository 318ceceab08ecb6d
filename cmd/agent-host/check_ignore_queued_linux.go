//go:build linux

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// queuedFunc returns the test that f has bytes queued to read (FIONREAD, TIOCINQ on Linux),
// so that a Read returns without waiting; false when the count cannot be
// had.
func queuedFunc(f *os.File) func() bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return func() bool { return false }
	}
	return func() bool {
		n := 0
		if cerr := rc.Control(func(fd uintptr) {
			n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ)
		}); cerr != nil || err != nil {
			return false
		}
		return n > 0
	}
}
