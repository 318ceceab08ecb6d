//go:build linux || darwin

package fs

import (
	"fmt"
	iofs "io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
)

// touchAt sets the times of name in d (or of d itself for ".") to t,
// without following a link.
func touchAt(d *jail.Dir, name string, t time.Time) error {
	ts := unix.NsecToTimespec(t.UnixNano())
	if err := unix.UtimesNanoAt(d.Fd(), name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &os.PathError{Op: "utimensat", Path: name, Err: err}
	}
	return nil
}

// removeTreeAt removes name in d with everything beneath it.
func removeTreeAt(d *jail.Dir, name string) error {
	if err := removeAt(d.Fd(), name, 0); err != nil {
		return &os.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

func removeAt(dirfd int, name string, depth int) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || err == unix.ENOENT {
		return nil
	}
	if err != unix.EISDIR && err != unix.EPERM {
		return err
	}
	if depth >= RemoveTreeMaxDepth {
		return fmt.Errorf("deeper than %d levels: %w", RemoveTreeMaxDepth, err)
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT {
		return nil
	}
	if err != nil {
		return err
	}
	dir := os.NewFile(uintptr(fd), name)
	names, rerr := dir.Readdirnames(-1)
	for _, n := range names {
		if err := removeAt(fd, n, depth+1); err != nil && rerr == nil {
			rerr = err
		}
	}
	dir.Close()
	if rerr != nil {
		return rerr
	}
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && err != unix.ENOENT {
		return err
	}
	return nil
}

// readDirAt lists the open directory d, whose canonical path is canon,
// with an fstatat (no link followed) per entry relative to d.
func readDirAt(d *os.File, canon string) ([]FileStat, error) {
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make([]FileStat, 0, len(names))
	for _, n := range names {
		var st unix.Stat_t
		if unix.Fstatat(int(d.Fd()), n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue // gone meanwhile
		}
		mode := modeOf(uint32(st.Mode))
		p := canon + "/" + n
		if canon == "/" {
			p = "/" + n
		}
		out = append(out, FileStat{Path: p, Size: st.Size, Mode: mode, ModTime: time.Unix(st.Mtim.Unix()), IsDir: mode.IsDir()})
	}
	return out, nil
}

// modeOf is the fs.FileMode of a stat's st_mode (as os.Lstat gives it).
func modeOf(m uint32) iofs.FileMode {
	mode := iofs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= iofs.ModeDevice
	case unix.S_IFCHR:
		mode |= iofs.ModeDevice | iofs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= iofs.ModeDir
	case unix.S_IFIFO:
		mode |= iofs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= iofs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= iofs.ModeSocket
	}
	if m&unix.S_ISUID != 0 {
		mode |= iofs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= iofs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= iofs.ModeSticky
	}
	return mode
}

// rmdirAt removes the empty directory name in d; a directory that is not
// empty gives ENOTEMPTY (EEXIST, which POSIX allows too, is reported as
// ENOTEMPTY).
func rmdirAt(d *jail.Dir, name string) error {
	err := unix.Unlinkat(d.Fd(), name, unix.AT_REMOVEDIR)
	if err == unix.EEXIST {
		err = unix.ENOTEMPTY
	}
	if err != nil {
		return &os.PathError{Op: "rmdir", Path: name, Err: err}
	}
	return nil
}
