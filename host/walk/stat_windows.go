//go:build windows

package walk

import (
	"errors"
	"io"
	"os"
)

// fileKey is a file's identity and version as far as a stat can tell.
type fileKey struct {
	exists bool
	isDir  bool
	isLink bool
	size   int64
	mtime  int64 // nanoseconds since the epoch
}

// statKey stats path (through a final symbolic link when follow is set).
// Any error gives the zero key: absent.
func statKey(path string, follow bool) fileKey {
	var fi os.FileInfo
	var err error
	if follow {
		fi, err = os.Stat(path)
	} else {
		fi, err = os.Lstat(path)
	}
	if err != nil {
		return fileKey{}
	}
	return fileKey{
		exists: true,
		isDir:  fi.IsDir(),
		isLink: fi.Mode()&os.ModeSymlink != 0,
		size:   fi.Size(),
		mtime:  fi.ModTime().UnixNano(),
	}
}

// readFileNoFollow reads a whole regular file; without follow a symbolic
// link is refused (checked before opening: Windows has no O_NOFOLLOW), and
// anything but a regular file is refused before a read.
func readFileNoFollow(path string, follow bool, limit int64) ([]byte, error) {
	if !follow {
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return nil, os.ErrNotExist
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	_, data, err := readRegularFile(f, limit)
	return data, err
}

// readRegularFile reads f if it is a regular file of at most limit bytes,
// and returns its key either way.
func readRegularFile(f *os.File, limit int64) (fileKey, []byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return fileKey{}, nil, err
	}
	key := fileKey{exists: true, isDir: fi.IsDir(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if !fi.Mode().IsRegular() {
		return key, nil, errNotRegular
	}
	if fi.Size() > limit {
		return key, nil, errTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(b)) > limit {
		return key, nil, errTooLarge
	}
	return key, b, nil
}

var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
)

// readJailed is readFile for a file inside j's roots, opened through j.
// Without follow a final symbolic link is refused by an Lstat before the
// open: Windows has no openat, so that check and the open are separate
// steps (a link swapped in between is still resolved by j, inside the
// roots only).
func readJailed(j Jail, path string, follow, statOnly bool, limit int64) (fileKey, []byte) {
	if !follow {
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return fileKey{}, nil
		}
	}
	f, err := j.Open(path)
	if err != nil {
		return fileKey{}, nil
	}
	defer f.Close()
	if statOnly {
		fi, err := f.Stat()
		if err != nil {
			return fileKey{}, nil
		}
		return fileKey{exists: true, isDir: fi.IsDir(), size: fi.Size(), mtime: fi.ModTime().UnixNano()}, nil
	}
	key, data, _ := readRegularFile(f, limit)
	return key, data
}

// isDirPath reports whether path names a directory (without following a
// final symbolic link).
func isDirPath(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// statKeyAt is never called here: no caller has a directory descriptor
// to give (jail.OpenDirFd is unsupported), so at is always -1.
func statKeyAt(dirfd int, name string) fileKey { return fileKey{} }

// readAt: see statKeyAt.
func readAt(dirfd int, name string, statOnly bool, key fileKey, limit int64) (fileKey, []byte) {
	return fileKey{}, nil
}

// closeDirFd: see statKeyAt (no descriptor is ever opened here).
func closeDirFd(fd int) {}

// dupFd: see statKeyAt (no descriptor is ever opened here).
func dupFd(int) (int, error) { return -1, errors.ErrUnsupported }
