//go:build linux || darwin

package fs

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
)

// Rename moves src to dst (a file, a directory or a link, moved as the
// link) and returns their canonical paths. Both ends are resolved through
// the jail's descriptors: the source's directory is resolved and its
// descriptor kept (duplicated, so the jail is released before the
// destination is resolved), then renameat(2) moves the name between the
// two open directories, refusing to replace anything
// (renameat2 RENAME_NOREPLACE on Linux, renameatx_np RENAME_EXCL on macOS).
// Neither end is ever reopened by path, so a link swapped in meanwhile
// cannot lead out of the roots. A root, or a directory holding one, cannot
// be moved. Errors are *RenameError, naming the end they concern.
func (f *FS) Rename(cwd, src, dst string) (from, to string, err error) {
	j := f.j
	srcFd, srcName := -1, ""
	err = j.Do(cwd, src, false, func(l *jail.Location) error {
		if l.Name == "." {
			return &os.PathError{Op: "move", Path: src, Err: errors.New("a root or \".\" cannot be moved; name a file or directory inside it")}
		}
		if _, err := l.Dir.Lstat(l.Name); err != nil {
			return err
		}
		// A root nested in another root (or a directory holding one) is
		// reached as an ordinary name; moving it would leave the jail with
		// a root whose path no longer leads to it. The jail compares
		// devices and inodes, not spellings.
		if r, err := l.HeldRoot(); err != nil {
			return err
		} else if r != "" {
			return &os.PathError{Op: "move", Path: src, Err: fmt.Errorf("%s is, or holds, the root %s, which cannot be moved", l.Path, r)}
		}
		fd, err := unix.FcntlInt(uintptr(l.Dir.Fd()), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return err
		}
		srcFd, srcName, from = fd, l.Name, l.Path
		return nil
	})
	if err != nil {
		return "", "", &RenameError{src, err}
	}
	defer unix.Close(srcFd)
	var renameFailed bool
	err = j.Do(cwd, dst, false, func(l *jail.Location) error {
		if l.Name == "." {
			return syscall.EEXIST
		}
		to = l.Path
		if err := renameNoReplace(srcFd, srcName, l.Dir.Fd(), l.Name); err != nil {
			renameFailed = true
			return err
		}
		return nil
	})
	if err != nil {
		if renameFailed || errors.Is(err, syscall.EEXIST) {
			return "", "", renameErr(src, dst, unwrapErrno(err))
		}
		return "", "", &RenameError{dst, err}
	}
	return from, to, nil
}

// unwrapErrno returns the syscall.Errno err holds, or err.
func unwrapErrno(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}
