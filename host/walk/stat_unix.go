//go:build unix

package walk

import (
	"io"
	"os"

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

// readFileNoFollow reads a whole file; without follow a final symbolic
// link is refused, as git refuses to follow an in-tree .gitignore link.
func readFileNoFollow(path string, follow bool) ([]byte, error) {
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := openRetry(path, flags)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	return readAllLimited(f)
}

func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// readAllLimited reads r to the end, giving up past maxIgnoreFileSize.
func readAllLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxIgnoreFileSize+1))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// isDirPath reports whether path names a directory (without following a
// final symbolic link).
func isDirPath(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}
