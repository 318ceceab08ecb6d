package fs

import (
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
)

// procFd is the directory whose entries name this process's descriptors;
// linking one (AT_SYMLINK_FOLLOW) links the open file.
const procFd = "/proc/self/fd/"

// haveProcFd is whether procFd exists, checked once: without it (and
// without the privilege AT_EMPTY_PATH wants on older kernels) an unnamed
// file could not be given a name, so it is not used at all.
var haveProcFd = sync.OnceValue(func() bool {
	var st unix.Stat_t
	return unix.Stat(procFd, &st) == nil
})

// openUnnamed opens an unnamed file in d (O_TMPFILE) for writing with
// mode perm, locked (lockNew). ok is false when the kernel or the
// filesystem has no O_TMPFILE (EOPNOTSUPP, EISDIR on kernels before 3.11,
// EINVAL), or it could not be linked later; the caller then names its
// temporary file.
func openUnnamed(d *jail.Dir, perm os.FileMode) (*os.File, bool) {
	if noTmpfile.Load() || !haveProcFd() {
		return nil, false
	}
	for {
		fd, err := unix.Openat(d.Fd(), ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		f := os.NewFile(uintptr(fd), "")
		lockNew(f)
		return f, true
	}
}

// linkUnnamed gives the unnamed file f the name name in the directory
// dirfd (failing with EEXIST if it exists): linkat with AT_EMPTY_PATH,
// which recent kernels allow the file's opener, else through procFd.
func linkUnnamed(f *os.File, dirfd int, name string) error {
	fd := int(f.Fd())
	err := unix.Linkat(fd, "", dirfd, name, unix.AT_EMPTY_PATH)
	if err == unix.EPERM || err == unix.ENOENT || err == unix.EINVAL {
		err = unix.Linkat(unix.AT_FDCWD, procFd+strconv.Itoa(fd), dirfd, name, unix.AT_SYMLINK_FOLLOW)
	}
	if err != nil {
		return &os.LinkError{Op: "linkat", Old: "(unnamed)", New: name, Err: err}
	}
	return nil
}
