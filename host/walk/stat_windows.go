//go:build windows

package walk

import (
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

// readFileNoFollow reads a whole file; without follow a symbolic link is
// refused (checked before opening: Windows has no O_NOFOLLOW).
func readFileNoFollow(path string, follow bool) ([]byte, error) {
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
	return readAllLimited(f)
}

// readAllLimited reads r to the end, giving up past maxIgnoreFileSize.
func readAllLimited(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, maxIgnoreFileSize+1))
}

// isDirPath reports whether path names a directory (without following a
// final symbolic link).
func isDirPath(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}
