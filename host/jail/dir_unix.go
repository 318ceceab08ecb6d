//go:build linux || darwin

package jail

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Dir is an open directory inside the jail. Every method takes a single
// name (no slash) and never follows a symbolic link in it.
type Dir struct {
	fd int
}

// O_DIRECTORY is the open flag that makes opening a non-directory fail
// (0 where the platform has none).
const O_DIRECTORY = oDirectory

const (
	eloop      = syscall.ELOOP
	enotdir    = syscall.ENOTDIR
	oDirectory = unix.O_DIRECTORY
)

func openRootDir(path string) (*Dir, error) {
	fd, err := unix.Open(path, oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &Dir{fd: fd}, nil
}

// Fd returns the directory's descriptor, valid until the Location that
// holds it is closed.
func (d *Dir) Fd() int { return d.fd }

func (d *Dir) close() error { return unix.Close(d.fd) }

// openDir opens the directory name, refusing a symbolic link (ELOOP or
// ENOTDIR, depending on the platform).
func (d *Dir) openDir(name string) (*Dir, error) {
	for {
		fd, err := unix.Openat(d.fd, name, oPath|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &Dir{fd: fd}, nil
	}
}

// Readlink returns the target of the symbolic link name. A name that is
// not a link gives an error matching syscall.EINVAL.
func (d *Dir) Readlink(name string) (string, error) {
	for n := 256; ; n *= 2 {
		buf := make([]byte, n)
		k, err := unix.Readlinkat(d.fd, name, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", &os.PathError{Op: "readlinkat", Path: name, Err: err}
		}
		if k < n {
			return string(buf[:k]), nil
		}
		if n > MaxPathLen*2 {
			return "", &os.PathError{Op: "readlinkat", Path: name, Err: unix.ENAMETOOLONG}
		}
	}
}

// OpenFile opens name in the directory with flag; O_NOFOLLOW and O_CLOEXEC
// are always added, so a symbolic link gives an error matching
// syscall.ELOOP. The file's Name is name.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	for {
		fd, err := unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "openat", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

// openFd is OpenFile returning the bare descriptor (-1 on error), for
// OpenDirFd.
func (d *Dir) openFd(name string, flag int, perm fs.FileMode) (int, error) {
	for {
		fd, err := unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "openat", Path: name, Err: err}
		}
		return fd, nil
	}
}

// rawFds: descriptors are plain numbers here (OpenDirFd).
const rawFds = true

func closeFd(fd int) { unix.Close(fd) }

// CloseFd closes a descriptor OpenDirFd returned.
func CloseFd(fd int) error { return unix.Close(fd) }

// Lstat returns the information of name without following a link; "."
// names the directory itself.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "fstatat", Path: name, Err: err}
		}
		return newFileInfo(name, &st), nil
	}
}

// Mkdir creates the directory name with perm (before the umask).
func (d *Dir) Mkdir(name string, perm fs.FileMode) error {
	if err := unix.Mkdirat(d.fd, name, uint32(perm.Perm())); err != nil {
		return &os.PathError{Op: "mkdirat", Path: name, Err: err}
	}
	return nil
}

// Unlink removes the file or symbolic link name (a link, not its target).
// A directory gives an error (EISDIR on Linux, EPERM on macOS).
func (d *Dir) Unlink(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return &os.PathError{Op: "unlinkat", Path: name, Err: err}
	}
	return nil
}

// Rename atomically renames oldname to newname, both in this directory,
// replacing newname if it exists.
func (d *Dir) Rename(oldname, newname string) error {
	if err := unix.Renameat(d.fd, oldname, d.fd, newname); err != nil {
		return &os.LinkError{Op: "renameat", Old: oldname, New: newname, Err: err}
	}
	return nil
}

// isNotLink reports whether a Readlink error means "there is no link here"
// (not a link, or nothing at all).
func isNotLink(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT)
}

// isMaybeLink reports whether an openDir error may mean "that is a link".
func isMaybeLink(err error) bool {
	return err == unix.ELOOP || err == unix.ENOTDIR || err == unix.EMLINK
}

type fileInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
	sys   unix.Stat_t
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.size }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return fi.mtime }
func (fi *fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any           { return &fi.sys }

func newFileInfo(name string, st *unix.Stat_t) *fileInfo {
	fi := &fileInfo{name: name, size: st.Size, mtime: time.Unix(st.Mtim.Unix()), sys: *st}
	m := uint32(st.Mode)
	fi.mode = fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		fi.mode |= fs.ModeDevice
	case unix.S_IFCHR:
		fi.mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		fi.mode |= fs.ModeDir
	case unix.S_IFIFO:
		fi.mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		fi.mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		fi.mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		fi.mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		fi.mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		fi.mode |= fs.ModeSticky
	}
	return fi
}
