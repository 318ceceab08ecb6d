package jail_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// checkBareDirFd fails t unless fd, which OpenDirFd returned for path, is
// close-on-exec (macOS has no O_PATH: the directory is open for reading).
func checkBareDirFd(t *testing.T, fd int, path string) {
	t.Helper()
	if fdFlags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || fdFlags&unix.FD_CLOEXEC == 0 {
		t.Errorf("OpenDirFd(%q): descriptor flags %#x, %v: not close-on-exec", path, fdFlags, err)
	}
}
