package senduserfile

import (
	"os"

	"golang.org/x/sys/windows"
)

// tryLock takes an exclusive lock on the file at path without waiting.
// ok is false when another process holds it or it cannot be opened.
func tryLock(path string) (unlock func(), ok bool) {
	f, err := openRegular(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false
	}
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
