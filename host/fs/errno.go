package fs

import (
	"bytes"
	"errors"
	"syscall"
)

// errorsIsErrno reports whether err is, or wraps, the errno e.
func errorsIsErrno(err error, e syscall.Errno) bool { return errors.Is(err, e) }

// bytesReader is bytes.NewReader, named for the writer's callers.
func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
