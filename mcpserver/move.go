package mcpserver

import (
	"fmt"
	"syscall"
)

// moveError is an error of one end of a move: path is the end it concerns
// (as the model gave it), for explain.
type moveError struct {
	path string
	err  error
}

// Error returns "PATH: ERR".
func (e *moveError) Error() string { return fmt.Sprintf("%s: %v", e.path, e.err) }

// Unwrap returns the error of the end.
func (e *moveError) Unwrap() error { return e.err }

// renameErr attributes an error of the rename itself to the end it is about.
func renameErr(src, dst string, err error) error {
	switch err {
	case syscall.EEXIST, syscall.ENOTEMPTY:
		return &moveError{dst, fmt.Errorf("the destination exists and move_file never replaces anything (%w)", syscall.EEXIST)}
	case syscall.EXDEV:
		return &moveError{src, fmt.Errorf("the source and the destination are on different filesystems; copy with read_file and write_file, then remove_file (%w)", err)}
	case syscall.EINVAL:
		return &moveError{dst, fmt.Errorf("a directory cannot be moved into itself (%w)", err)}
	case syscall.ENOTDIR, syscall.EISDIR:
		return &moveError{dst, fmt.Errorf("a directory and a file cannot replace each other (%w)", err)}
	}
	return &moveError{src, err}
}
