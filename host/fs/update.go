package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"syscall"

	"github.com/agenthost/agenthost/host/jail"
)

// ErrChanged is wrapped by UpdateFile's error when the file was modified,
// replaced or removed between the read and the write: nothing was written.
var ErrChanged = errors.New("file changed since it was read")

// UpdateFile reads the regular file path names, passes it to fn, and
// atomically replaces it with the bytes fn returns, all through one open
// directory: the file that is replaced is the file that was read, never
// another one a link or a rename put at the same path meanwhile. Just
// before the rename the name is checked again (device, inode, size,
// modification and change time); if the file changed, nothing is written
// and the error wraps ErrChanged, so a concurrent write is never lost
// silently (the caller may read again and retry). When fn returns an
// error, nothing is written and that error is returned. The write is
// WriteFile's (temporary file, fsync, rename, mode kept). Errors are
// otherwise ReadFile's and WriteFile's.
func (f *FS) UpdateFile(cwd, path string, fn func(FileRead) ([]byte, error)) (FileStat, error) {
	var st FileStat
	var fnErr error
	err := f.j.Do(cwd, path, true, func(l *jail.Location) error {
		if l.Name == "." || l.Slash {
			return isDirErr(path)
		}
		file, err := l.Dir.OpenFile(l.Name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if errors.Is(err, syscall.ENXIO) {
			return &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%v)", ErrNotRegular, syscall.ENXIO)}
		}
		if err != nil {
			return err // ELOOP for a final link: Do follows it
		}
		fi, err := file.Stat()
		if err != nil {
			file.Close()
			return err
		}
		switch {
		case fi.IsDir():
			file.Close()
			return isDirErr(path)
		case !fi.Mode().IsRegular():
			file.Close()
			return &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
		case fi.Size() > f.maxRead:
			file.Close()
			return &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes > %d", ErrTooLarge, fi.Size(), f.maxRead)}
		}
		b, err := readAllLimit(file, make([]byte, 0, fi.Size()+1), f.maxRead)
		file.Close()
		if err != nil {
			return err
		}
		read := statOf(l.Path, fi)
		read.Size = int64(len(b))
		next, err := fn(FileRead{Path: l.Path, Contents: Lossy(b), Stat: read})
		if err != nil {
			fnErr = err
			return err
		}
		unchanged := func() error {
			now, err := l.Dir.Lstat(l.Name)
			if err != nil || !sameFile(fi, now) {
				return &iofs.PathError{Op: "write", Path: path, Err: ErrChanged}
			}
			return nil
		}
		s, err := writeAtomicChecked(l, next, fi.Mode().Perm(), true, unchanged)
		st = s
		return err
	})
	if fnErr != nil {
		return FileStat{}, fnErr
	}
	if err != nil {
		return FileStat{}, pathErr("write", path, err)
	}
	return st, nil
}
