package fs

import (
	"fmt"
	"syscall"
)

// RenameError is Rename's error for one end of the move: Path is that end
// as the caller gave it, and Err says what is wrong there (it wraps the
// usual sentinels: jail.ErrEscape, fs.ErrNotExist, fs.ErrExist, ...).
type RenameError struct {
	Path string
	Err  error
}

// Error returns "PATH: ERR".
func (e *RenameError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }

// Unwrap returns Err.
func (e *RenameError) Unwrap() error { return e.Err }

// renameErr attributes an error of the rename itself to the end it is about.
func renameErr(src, dst string, err error) error {
	switch err {
	case syscall.EEXIST, syscall.ENOTEMPTY:
		return &RenameError{dst, fmt.Errorf("the destination exists, and a rename never replaces anything (%w)", syscall.EEXIST)}
	case syscall.EXDEV:
		return &RenameError{src, fmt.Errorf("the source and the destination are on different filesystems; copy, then remove (%w)", err)}
	case syscall.EINVAL:
		return &RenameError{dst, fmt.Errorf("a directory cannot be moved into itself (%w)", err)}
	case syscall.ENOTDIR, syscall.EISDIR:
		return &RenameError{dst, fmt.Errorf("a directory and a file cannot replace each other (%w)", err)}
	}
	return &RenameError{src, err}
}
