// Package fs reads, writes, creates, removes and stats files through a
// jail.Jail. Every operation resolves its path through the jail's directory
// descriptors and then acts on a descriptor or on a name inside an open
// directory: a path string that was checked is never opened again, so a
// symbolic link swapped in between cannot redirect an operation out of the
// roots. Import it as hostfs.
package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agenthost/agenthost/host/jail"
)

// DefaultMaxReadBytes is the largest file ReadFile returns when no limit is
// configured: 16 MiB. A model's context holds far less than that, so a
// larger file is almost always a mistake (a log, a binary, a dataset), and
// refusing it keeps one tool call from filling memory.
const DefaultMaxReadBytes = 16 << 20

var (
	// ErrNotRegular is wrapped by ReadFile's and WriteFile's error for a
	// directory, FIFO, socket or device.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is wrapped by ReadFile's error for a file over the limit.
	ErrTooLarge = errors.New("file is larger than the read limit")
)

// FileStat describes a file as an operation saw it.
type FileStat struct {
	Path    string // canonical absolute path
	Size    int64
	Mode    iofs.FileMode
	ModTime time.Time
	IsDir   bool
}

// FileRead is what ReadFile returns.
type FileRead struct {
	Path     string // canonical absolute path that was read
	Contents string // lossy UTF-8: each invalid byte became U+FFFD
	Stat     FileStat
}

// FS performs file operations inside a Jail. Its zero value is not usable;
// make one with New. It is safe for concurrent use.
type FS struct {
	j       *jail.Jail
	maxRead int64
}

// New returns an FS on j. maxRead caps ReadFile (0 or less means
// DefaultMaxReadBytes).
func New(j *jail.Jail, maxRead int64) *FS {
	if maxRead <= 0 {
		maxRead = DefaultMaxReadBytes
	}
	return &FS{j: j, maxRead: maxRead}
}

func statOf(path string, fi iofs.FileInfo) FileStat {
	return FileStat{Path: path, Size: fi.Size(), Mode: fi.Mode(), ModTime: fi.ModTime(), IsDir: fi.IsDir()}
}

// Lossy returns b as a string in which every byte that is not part of a
// valid UTF-8 sequence is replaced by U+FFFD.
func Lossy(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return string(out)
}

// pathErr wraps err with the operation and the path as the caller gave it.
func pathErr(op, path string, err error) error {
	if errors.Is(err, jail.ErrEscape) || errors.Is(err, jail.ErrInvalidPath) {
		return err // already names the path
	}
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return &iofs.PathError{Op: op, Path: path, Err: pe.Err}
	}
	return &iofs.PathError{Op: op, Path: path, Err: err}
}

func isDirErr(path string) error {
	return &iofs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: is a directory (%w)", ErrNotRegular, syscall.EISDIR)}
}
