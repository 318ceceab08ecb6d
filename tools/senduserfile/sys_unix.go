//go:build linux || darwin

package senduserfile

import (
	"bufio"
	"os"
	"strings"
	"time"

	"github.com/agenthost/agenthost/host/jail"
	"golang.org/x/sys/unix"
)

// oDirectory makes an open fail on anything but a directory.
const oDirectory = unix.O_DIRECTORY

// openSource opens the file to stage for reading. O_NONBLOCK: a FIFO
// swapped in after the stat must not hang the call (it is then refused as
// not a regular file).
func openSource(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
}

// touchDir sets the times of the directory dir to now (path is only for
// the error).
func touchDir(dir *jail.Dir, path string) error {
	now := unix.NsecToTimespec(time.Now().UnixNano())
	if err := unix.UtimesNanoAt(dir.Fd(), ".", []unix.Timespec{now, now}, 0); err != nil {
		return &os.PathError{Op: "utimensat", Path: path, Err: err}
	}
	return nil
}

// removeTree removes name, a directory in dir, with everything in it,
// through descriptors: no symbolic link in it is followed (a link is
// removed, not its target).
func removeTree(dir *jail.Dir, name, path string) error {
	if err := removeAt(dir.Fd(), name, 0); err != nil {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

func removeAt(dirfd int, name string, depth int) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || err == unix.ENOENT {
		return nil
	}
	if (err != unix.EISDIR && err != unix.EPERM) || depth >= maxPruneDepth {
		return err
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	d := os.NewFile(uintptr(fd), name)
	names, rerr := d.Readdirnames(-1)
	for _, n := range names {
		if err := removeAt(fd, n, depth+1); err != nil && rerr == nil {
			rerr = err
		}
	}
	d.Close()
	if rerr != nil {
		return rerr
	}
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}

// lookupHome finds a user's home directory in /etc/passwd, as Python's
// pwd.getpwnam does for local users. (os/user would link the C library.)
func lookupHome(name string) (string, bool) {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) >= 6 && fields[0] == name {
			return fields[5], true
		}
	}
	return "", false
}

// modTimeAt returns the mtime of the entry e of the open directory d,
// without following a link (os.DirEntry.Info would stat by a path built
// from d's name, which here is relative to another directory).
func modTimeAt(d *os.File, e os.DirEntry) (time.Time, bool) {
	var st unix.Stat_t
	conn, err := d.SyscallConn()
	if err != nil {
		return time.Time{}, false
	}
	var serr error
	if err := conn.Control(func(fd uintptr) {
		serr = unix.Fstatat(int(fd), e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW)
	}); err != nil || serr != nil {
		return time.Time{}, false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return time.Time{}, false
	}
	return time.Unix(st.Mtim.Unix()), true
}
