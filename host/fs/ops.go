package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"syscall"

	"github.com/agenthost/agenthost/host/jail"
)

// CreateDir creates the directory path names and returns the canonical
// paths of the directories it created (none when it already existed).
//
// With parents, missing parents are created first, each one inside the
// jail through descriptors (a parent is found by removing the last
// component of the path). With existOK, a directory (or a symbolic link to
// a directory inside the jail) already at path is not an error; otherwise
// it wraps fs.ErrExist, as does a file at path in either case.
func (f *FS) CreateDir(cwd, path string, parents, existOK bool) ([]string, error) {
	created, err := f.mkdir(cwd, path, parents, existOK)
	if err != nil {
		return created, pathErr("mkdir", path, err)
	}
	return created, nil
}

func (f *FS) mkdir(cwd, path string, parents, existOK bool) ([]string, error) {
	if parents {
		return f.j.MkdirAll(cwd, path, 0o777, existOK) // the jail walks: ".." after a link as the kernel means it
	}
	var created []string
	err := f.j.Do(cwd, path, false, func(l *jail.Location) error {
		if l.Name == "." {
			return &os.PathError{Op: "mkdir", Path: path, Err: syscall.EEXIST}
		}
		err := l.Dir.Mkdir(l.Name, 0o777)
		if err == nil {
			created = append(created, l.Path)
		}
		return err
	})
	switch {
	case err == nil:
		return created, nil
	case errors.Is(err, iofs.ErrExist):
		if !existOK {
			return nil, err
		}
		st, serr := f.Stat(cwd, path)
		if serr != nil {
			return nil, serr
		}
		if !st.IsDir {
			return nil, fmt.Errorf("%w: not a directory", iofs.ErrExist)
		}
		return nil, nil
	}
	return nil, err
}

// RemoveFile removes the file or symbolic link path names (a link is
// removed, not its target) and returns its canonical path. A directory is
// an error (this is not rm -r); a missing file wraps fs.ErrNotExist.
func (f *FS) RemoveFile(cwd, path string) (string, error) {
	var canon string
	err := f.j.Do(cwd, path, false, func(l *jail.Location) error {
		if l.Name == "." || l.Slash {
			return &os.PathError{Op: "remove", Path: path, Err: syscall.EISDIR}
		}
		fi, err := l.Dir.Lstat(l.Name)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return &os.PathError{Op: "remove", Path: path, Err: syscall.EISDIR}
		}
		canon = l.Path
		return l.Dir.Unlink(l.Name)
	})
	if err != nil {
		return "", pathErr("remove", path, err)
	}
	return canon, nil
}

// Stat returns the stat of what path names, following symbolic links
// inside the jail. Path in the result is canonical. A missing file wraps
// fs.ErrNotExist; a link leading out wraps jail.ErrEscape.
func (f *FS) Stat(cwd, path string) (FileStat, error) {
	var st FileStat
	err := f.j.Do(cwd, path, true, func(l *jail.Location) error {
		fi, err := l.Dir.Lstat(l.Name)
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return &os.PathError{Op: "stat", Path: path, Err: syscall.ELOOP} // follow it
		}
		if l.Slash && !fi.IsDir() {
			return &os.PathError{Op: "stat", Path: path, Err: syscall.ENOTDIR}
		}
		st = statOf(l.Path, fi)
		return nil
	})
	if err != nil {
		return FileStat{}, pathErr("stat", path, err)
	}
	return st, nil
}
