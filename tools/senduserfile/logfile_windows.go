package senduserfile

import (
	"fmt"
	"os"

	"github.com/agenthost/agenthost/host"
)

// openRegular opens path with flag and returns it only when it is a
// regular file; anything else is closed and refused with an error
// wrapping host.ErrNotRegular.
func openRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: host.ErrNotRegular}
	}
	return f, nil
}

// appendLine appends line to the file at path (made 0600 when missing)
// with one write in append mode; anything but a regular file is refused.
// A short write is cut back to the file's size before it, so that the log
// stays whole lines.
func appendLine(path string, line []byte) error {
	f, err := openRegular(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	var before int64 = -1
	if fi, err := f.Stat(); err == nil {
		before = fi.Size()
	}
	n, err := f.Write(line)
	if n > 0 && n < len(line) && before >= 0 {
		if terr := f.Truncate(before); terr != nil {
			err = fmt.Errorf("%w; the %d bytes written could not be cut back: %w", err, n, terr)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readSmallRegular reads the regular file at path when it holds at most
// limit bytes; anything else, or a longer file, is refused.
func readSmallRegular(path string, limit int64) ([]byte, error) {
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}
