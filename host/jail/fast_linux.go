package jail

import (
	"io/fs"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 is found missing (Linux before 5.6) or
// forbidden (a seccomp filter), or at start by NoOpenat2Env; the walk
// then does all the work, one component at a time (the macOS and BSD
// path).
var noOpenat2 atomic.Bool

// NoOpenat2Env is the environment variable that, set to anything
// non-empty when the process starts, switches openat2 off: every
// resolution takes the portable descriptor walk alone. It is a testing and
// diagnostic knob (the test suites run the escape table and the race tests
// a second time with it), read once at start; it never widens what the
// jail allows.
const NoOpenat2Env = "AGENTHOST_NO_OPENAT2"

func init() {
	if os.Getenv(NoOpenat2Env) != "" {
		noOpenat2.Store(true)
	}
}

// beneath makes the kernel refuse any symbolic link and any escape from
// the directory; whatever it refuses, the walk judges.
var beneath = unix.OpenHow{Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}

func openat2(dirfd int, rel string, flag int, perm fs.FileMode) (int, error) {
	how := beneath
	how.Flags = uint64(flag | unix.O_CLOEXEC)
	if flag&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
		how.Mode = uint64(perm.Perm())
	}
	for {
		fd, err := unix.Openat2(dirfd, rel, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err == unix.ENOSYS {
			// Before Linux 5.6, or a seccomp filter that answers ENOSYS.
			// (An EPERM may concern one file only, and costs just the
			// walk for that call.)
			noOpenat2.Store(true)
		}
		return fd, err
	}
}

// openBeneath opens rel (names only, no "..") below d with one openat2
// that refuses every symbolic link, the final one included. The file's
// Name is name.
func (d *Dir) openBeneath(rel string, flag int, perm fs.FileMode, name string) (*os.File, error) {
	fd, err := openat2(d.fd, rel, flag, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openBeneathFd is openBeneath returning the bare descriptor (-1 on error).
func (d *Dir) openBeneathFd(rel string, flag int, perm fs.FileMode) (int, error) {
	fd, err := openat2(d.fd, rel, flag, perm)
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// openDirBeneath opens the directory rel (names only) below d, to stand
// in, with one openat2 that refuses every symbolic link.
func (d *Dir) openDirBeneath(rel string) (*Dir, error) {
	fd, err := openat2(d.fd, rel, oPath|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return &Dir{fd: fd}, nil
}
