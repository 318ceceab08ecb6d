package jail_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// checkBareDirFd fails t unless fd, which OpenDirFd returned for path, is
// close-on-exec and an O_PATH descriptor (nothing to read or write
// through).
func checkBareDirFd(t *testing.T, fd int, path string) {
	t.Helper()
	fdFlags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil || fdFlags&unix.FD_CLOEXEC == 0 {
		t.Errorf("OpenDirFd(%q): descriptor flags %#x, %v: not close-on-exec", path, fdFlags, err)
	}
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || fl&unix.O_PATH == 0 {
		t.Errorf("OpenDirFd(%q): status flags %#x, %v: not O_PATH", path, fl, err)
	}
}
