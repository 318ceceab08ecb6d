package fs

import (
	"fmt"
	"io"
	iofs "io/fs"
)

// ReadFile reads the regular file path names (see jail.Jail.Resolve for how
// cwd and path combine). It returns the file's canonical path, its contents
// as lossy UTF-8 and its stat, taken from the same open descriptor.
//
// Errors: a path outside the jail wraps jail.ErrEscape; a missing file
// fs.ErrNotExist; a directory, FIFO, socket or device ErrNotRegular (and
// never blocks: the file is opened non-blocking and checked before any
// read); a file larger than the limit ErrTooLarge.
func (f *FS) ReadFile(cwd, path string) (FileRead, error) {
	b, st, err := f.ReadBytes(cwd, path)
	if err != nil {
		return FileRead{}, err
	}
	return FileRead{Path: st.Path, Contents: Lossy(b), Stat: st}, nil
}

// ReadBytes is ReadFile without the UTF-8 conversion: the raw bytes.
func (f *FS) ReadBytes(cwd, path string) ([]byte, FileStat, error) {
	file, st, err := f.OpenRegular(cwd, path)
	if err != nil {
		return nil, st, err
	}
	defer file.Close()
	if st.Size > f.maxRead {
		return nil, st, &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes > %d", ErrTooLarge, st.Size, f.maxRead)}
	}
	// The file may grow while we read: never take more than the limit.
	buf := make([]byte, 0, st.Size+1)
	b, err := readAllLimit(file, buf, f.maxRead)
	if err != nil {
		return nil, st, pathErr("read", path, err)
	}
	st.Size = int64(len(b))
	return b, st, nil
}

func readAllLimit(r io.Reader, b []byte, max int64) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if int64(len(b)) > max {
			return nil, fmt.Errorf("%w: grew past %d bytes while read", ErrTooLarge, max)
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func kind(m iofs.FileMode) string {
	switch {
	case m&iofs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&iofs.ModeSocket != 0:
		return "a socket"
	case m&iofs.ModeCharDevice != 0:
		return "a character device"
	case m&iofs.ModeDevice != 0:
		return "a device"
	case m&iofs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "irregular"
}
