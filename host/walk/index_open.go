package walk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrIndexUnreadable is reported like ErrIndexUnsupported, which it wraps
// (errors.Is matches both), for an index file that is there but cannot be
// opened: no permission on it, or on a directory on its way (which then
// cannot be stat'ed either), a loop of symbolic links. git stops there
// ("fatal: .git/index: index file open failed: Permission denied"); an
// index that is not there at all (ENOENT) is an empty one, for git as
// here. The answer given with it is the one without the index.
var ErrIndexUnreadable = fmt.Errorf("%w: index file open failed", ErrIndexUnsupported)

// indexOpenErr tells why the index file path, which the Cache found
// absent, is: nil when it does not exist (or now opens: the next look
// reads it), the ErrIndexUnreadable error naming it when the open fails
// otherwise, as git's open would. A file inside the roots is opened
// through the Jail (an escape is absent, as everywhere in the Cache);
// nothing is read.
func (c *Cache) indexOpenErr(path string) error {
	var f *os.File
	var err error
	if c.Jail != nil && c.Jail.Contains(path) {
		f, err = c.Jail.Open(path)
	} else {
		f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	if err == nil {
		f.Close()
		return nil
	}
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.As(err, &errno):
	case errors.Is(err, syscall.ELOOP): // the Jail's too many links
		errno = syscall.ELOOP
	default: // an escape: absent, as for every file the Cache reads
		return nil
	}
	return fmt.Errorf("%s: %w: %v", path, ErrIndexUnreadable, errno)
}
