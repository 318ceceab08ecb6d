package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"syscall"
)

// OpenRegular opens the regular file path names for reading (see
// jail.Jail.Resolve for how cwd and path combine) and returns the open
// file with its stat, both from the one descriptor: what the caller reads
// is the file that was checked. There is no size limit; the caller closes
// the file. The errors are ReadFile's but ErrTooLarge: a missing file
// fs.ErrNotExist, an escape jail.ErrEscape, a directory, FIFO, socket or
// device ErrNotRegular (the open never blocks on them).
func (f *FS) OpenRegular(cwd, path string) (*os.File, FileStat, error) {
	file, canon, err := f.j.OpenFile(cwd, path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		// A socket (or a device with no driver) cannot be opened at all.
		return nil, FileStat{}, &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%v)", ErrNotRegular, syscall.ENXIO)}
	}
	if err != nil {
		return nil, FileStat{}, pathErr("read", path, err)
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, FileStat{}, pathErr("read", path, err)
	}
	st := statOf(canon, fi)
	switch {
	case fi.IsDir():
		err = isDirErr(path)
	case !fi.Mode().IsRegular():
		err = &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	if err != nil {
		file.Close()
		return nil, st, err
	}
	return file, st, nil
}
