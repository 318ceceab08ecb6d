//go:build linux || darwin

package senduserfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes an exclusive flock on the file at path without waiting.
// ok is false when another process holds it or it cannot be opened.
func tryLock(path string) (unlock func(), ok bool) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
