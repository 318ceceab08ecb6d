//go:build linux || darwin

package senduserfile

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host"
)

// openRegular opens path with flag (O_NONBLOCK and O_CLOEXEC added) on a
// bare descriptor (see tryLock) and returns it only when it is a regular
// file; anything else (a FIFO, a device, a directory, a socket) is closed
// and refused with an error wrapping host.ErrNotRegular. O_NONBLOCK is what
// keeps the open itself from waiting: a FIFO opened for writing with no
// reader fails at once (ENXIO) instead of blocking until one comes, one
// opened for reading returns at once, and a device that would wait for a
// carrier does not. On a regular file the flag changes nothing.
func openRegular(path string, flag int, perm uint32) (int, error) {
	fd, err := unix.Open(path, flag|unix.O_NONBLOCK|unix.O_CLOEXEC, perm)
	for err == unix.EINTR {
		fd, err = unix.Open(path, flag|unix.O_NONBLOCK|unix.O_CLOEXEC, perm)
	}
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (mode %#o)", host.ErrNotRegular, st.Mode&unix.S_IFMT)}
	}
	return fd, nil
}

// appendLine appends line to the file at path (made 0600 when missing)
// with one write(2) in append mode, on a bare descriptor (see tryLock).
// Anything but a regular file at path is refused (openRegular): the hook
// never waits on a FIFO. A short write (a full disk, RLIMIT_FSIZE) is cut
// back: the file is truncated to where this write began, so that the log
// stays whole lines of JSON for every reader, and the error says so.
func appendLine(path string, line []byte) error {
	fd, err := openRegular(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, 0o600)
	if err != nil {
		return err
	}
	n, err := unix.Write(fd, line)
	for err == unix.EINTR {
		n, err = unix.Write(fd, line)
	}
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
		if terr := cutBack(fd, n); terr != nil {
			err = fmt.Errorf("%w; the %d bytes written could not be cut back: %w", err, n, terr)
		}
	}
	if cerr := unix.Close(fd); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// cutBack truncates the file open on fd (in append mode) to where its
// last write, of n bytes, began. With O_APPEND the kernel placed that
// write at the end of the file as it was then, and left the offset after
// it, so the offset less n is the size before this append, whatever other
// writers appended before it. (A row another writer appended after these
// n bytes goes too: glued to a torn row it was no whole line either.)
func cutBack(fd, n int) error {
	end, err := unix.Seek(fd, 0, io.SeekCurrent)
	if err != nil {
		return err
	}
	return unix.Ftruncate(fd, end-int64(n))
}

// readSmallRegular reads the regular file at path when it holds at most
// limit bytes. A FIFO, a device or anything else is refused without
// waiting (openRegular), and so is a longer file (an error wrapping
// errTooLarge): what is read is bounded whatever stands at path.
func readSmallRegular(path string, limit int64) ([]byte, error) {
	fd, err := openRegular(path, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return readLimited(fdReader(fd), path, limit)
}

// fdReader reads a bare descriptor (no *os.File: see tryLock).
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	n, err := unix.Read(int(r), p)
	for err == unix.EINTR {
		n, err = unix.Read(int(r), p)
	}
	switch {
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}
