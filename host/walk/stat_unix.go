//go:build unix

package walk

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// fileKey is a file's identity and version as far as a stat can tell.
type fileKey struct {
	exists bool
	isDir  bool
	isLink bool
	dev    uint64
	ino    uint64
	size   int64
	mtime  int64 // nanoseconds since the epoch
	ctime  int64
}

// keyOf is the key of what st describes.
func keyOf(st *unix.Stat_t) fileKey {
	return fileKey{
		exists: true,
		isDir:  st.Mode&unix.S_IFMT == unix.S_IFDIR,
		isLink: st.Mode&unix.S_IFMT == unix.S_IFLNK,
		dev:    uint64(st.Dev),
		ino:    st.Ino,
		size:   st.Size,
		mtime:  st.Mtim.Nano(),
		ctime:  st.Ctim.Nano(),
	}
}

// statKey stats path (through a final symbolic link when follow is set).
// Any error gives the zero key: absent.
func statKey(path string, follow bool) fileKey {
	var st unix.Stat_t
	var err error
	for {
		if follow {
			err = unix.Stat(path, &st)
		} else {
			err = unix.Lstat(path, &st)
		}
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fileKey{}
	}
	return keyOf(&st)
}

// statKeyAt is statKey for the entry name of the directory open on dirfd,
// a final symbolic link not followed: one fstatat on the descriptor, no
// path walk. Any error gives the zero key: absent.
func statKeyAt(dirfd int, name string) fileKey {
	var st unix.Stat_t
	if _, err := retryEINTR(func() (int, error) { return 0, unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return fileKey{}
	}
	return keyOf(&st)
}

// closeDirFd closes a descriptor a DirFdOpener returned.
func closeDirFd(fd int) { unix.Close(fd) }

// readAt is readJailed without follow for the entry name of the
// directory open on dirfd, which the caller opened through the jail: a
// symbolic link counts as absent, the file is opened relative to the
// descriptor with O_NOFOLLOW (nothing is looked up by path), and only a
// regular file is read, of at most limit bytes. key is what statKeyAt
// gave a moment before: an absent, link or statOnly key is the answer
// without another call.
func readAt(dirfd int, name string, statOnly bool, key fileKey, limit int64) (fileKey, []byte) {
	if !key.exists || key.isLink {
		return fileKey{}, nil
	}
	if statOnly || key.isDir {
		return key, nil
	}
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return fileKey{}, nil
	}
	defer unix.Close(fd)
	return readOpened(fd, false, limit)
}

// readFileNoFollow reads a whole regular file of at most limit bytes by
// path; without follow a final symbolic link is refused, as git refuses
// to follow an in-tree .gitignore link. Anything but a regular file is
// refused (see readRegular). The open itself cannot wait: O_NONBLOCK lets
// a FIFO open without a writer.
func readFileNoFollow(path string, follow bool, limit int64) ([]byte, error) {
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := retryEINTR(func() (int, error) { return unix.Open(path, flags, 0) })
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	data, _, err := readRegular(fd, limit)
	return data, err
}

// readRegular reads the whole file open on fd and returns it with the
// file's key. fd is fstat'ed first and anything but a regular file (a
// FIFO, a socket, a device, a directory) is refused with EINVAL before a
// single read, so no read can wait for a writer: git, which reads st_size
// bytes after an fstat, sees a FIFO as an empty file, and no rules is what
// both answers give. Reads are raw read(2) calls on the descriptor, never
// through Go's poller (which would park a goroutine on a non-blocking
// descriptor until it is readable). A file over limit bytes is refused
// with EFBIG (maxIgnoreFileSize, git's limit for pattern files, for every
// file but the index; config files share it, where git has none: a config
// of that size is not one). A read that
// returns exactly the size fstat gave is taken for the end (git reads
// st_size bytes); a file that grew since is read to its end.
func readRegular(fd int, limit int64) ([]byte, fileKey, error) {
	var st unix.Stat_t
	if _, err := retryEINTR(func() (int, error) { return 0, unix.Fstat(fd, &st) }); err != nil {
		return nil, fileKey{}, err
	}
	key := keyOf(&st)
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, key, unix.EINVAL
	}
	if st.Size > limit {
		return nil, key, unix.EFBIG
	}
	buf := make([]byte, 0, st.Size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := retryEINTR(func() (int, error) { return unix.Read(fd, buf[len(buf):cap(buf)]) })
		if err != nil {
			return nil, key, err
		}
		if n <= 0 {
			return buf, key, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) == int(st.Size) && len(buf) < cap(buf) {
			// Asked for one byte more than fstat said and got the
			// size: the end, as git reads it (st_size bytes, no more),
			// without a read that returns 0 to say so.
			return buf, key, nil
		}
		if int64(len(buf)) > limit {
			return nil, key, unix.EFBIG
		}
	}
}

// readJailed is readFile for a file that lies inside j's roots: every
// system call is made on a descriptor that j opened, so a symbolic link
// swapped in anywhere on the way is followed only inside the roots. With
// follow, j opens the file itself (a final link is followed inside the
// roots, as git follows it for info/exclude and config files); without,
// j opens the directory and the file is looked at and opened relative to
// it with O_NOFOLLOW (a final link counts as absent, as for git's
// .gitignore). A regular file over limit bytes gives its key without
// data. Any other error, including an escape, gives absent.
func readJailed(j Jail, path string, follow, statOnly bool, limit int64) (key fileKey, data []byte) {
	name := path
	if !follow {
		name = filepath.Dir(path)
		if d, ok := j.(DirFdOpener); ok {
			// The directory as a bare descriptor: no os.File to make.
			if fd, err := d.OpenDirFd(name); err == nil {
				defer unix.Close(fd)
				base := filepath.Base(path)
				return readAt(fd, base, statOnly, statKeyAt(fd, base), limit)
			}
		}
	}
	f, err := j.Open(name)
	if err != nil {
		return fileKey{}, nil
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return fileKey{}, nil
	}
	_ = rc.Control(func(fdp uintptr) {
		fd := int(fdp)
		if follow {
			key, data = readOpened(fd, statOnly, limit)
			return
		}
		base := filepath.Base(path)
		var st unix.Stat_t
		if _, err := retryEINTR(func() (int, error) { return 0, unix.Fstatat(fd, base, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
			return
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return
		}
		key = keyOf(&st)
		if statOnly || st.Mode&unix.S_IFMT != unix.S_IFREG {
			return
		}
		ffd, err := retryEINTR(func() (int, error) {
			return unix.Openat(fd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		})
		if err != nil {
			key = fileKey{}
			return
		}
		defer unix.Close(ffd)
		key, data = readOpened(ffd, false, limit)
	})
	return key, data
}

// readOpened returns the key of the file open on fd and, unless statOnly,
// its contents when it is a regular file of at most limit bytes.
func readOpened(fd int, statOnly bool, limit int64) (fileKey, []byte) {
	if statOnly {
		var st unix.Stat_t
		if _, err := retryEINTR(func() (int, error) { return 0, unix.Fstat(fd, &st) }); err != nil {
			return fileKey{}, nil
		}
		return keyOf(&st), nil
	}
	data, key, err := readRegular(fd, limit)
	if err != nil {
		return key, nil
	}
	return key, data
}

func retryEINTR[T any](f func() (T, error)) (T, error) {
	for {
		v, err := f()
		if err != unix.EINTR {
			return v, err
		}
	}
}

// isDirPath reports whether path names a directory (without following a
// final symbolic link).
func isDirPath(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}

// dupFd is a second descriptor (close-on-exec) for the open file fd.
func dupFd(fd int) (int, error) { return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0) }
