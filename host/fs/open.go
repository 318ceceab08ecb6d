package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/agenthost/agenthost/host/jail"
)

// StatWith is Stat with options: with Options.NoFollow a link anywhere
// on the way, the final component included, is refused (ErrSymlink)
// rather than followed. Other fields of opts are ignored.
func (f *FS) StatWith(cwd, path string, opts Options) (FileStat, error) {
	if !opts.NoFollow {
		return f.Stat(cwd, path)
	}
	var st FileStat
	err := f.locate(cwd, path, true, func(l *jail.Location) error {
		fi, err := l.Dir.Lstat(l.Name)
		if err != nil {
			return err
		}
		if fi.Mode()&iofs.ModeSymlink != 0 {
			return &iofs.PathError{Op: "stat", Path: path, Err: fmt.Errorf("%w: %s is a link", ErrSymlink, l.Path)}
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

// MakeDir creates the one directory path names (its parent must exist:
// otherwise fs.ErrNotExist) and returns whether it made it, with its
// canonical path. A directory already there is not an error (created is
// false); anything else there wraps fs.ErrExist (with NoFollow, a link
// wraps ErrSymlink). perm is 0o777 before the umask.
func (f *FS) MakeDir(cwd, path string, opts Options) (created bool, canon string, err error) {
	err = f.locate(cwd, path, opts.NoFollow, func(l *jail.Location) error {
		canon = l.Path
		// What is there is looked at first: a directory that exists (the
		// hook's outbox at every call but the first) costs one lstat, not
		// a failed mkdir and then the lstat.
		for {
			fi, err := l.Dir.Lstat(l.Name)
			switch {
			case errors.Is(err, iofs.ErrNotExist) && l.Name != ".":
				err := l.Dir.Mkdir(l.Name, 0o777)
				if err == nil {
					created = true
					return nil
				}
				if !errors.Is(err, iofs.ErrExist) {
					return err
				}
				continue // made meanwhile: look at what it is
			case err != nil:
				return err
			case fi.Mode()&iofs.ModeSymlink != 0 && opts.NoFollow:
				return &iofs.PathError{Op: "mkdir", Path: path, Err: fmt.Errorf("%w: %s is a link", ErrSymlink, l.Path)}
			case fi.Mode()&iofs.ModeSymlink != 0:
				return &os.PathError{Op: "mkdir", Path: path, Err: syscall.ELOOP} // follow it
			case !fi.IsDir():
				return &iofs.PathError{Op: "mkdir", Path: path, Err: fmt.Errorf("%w: not a directory", iofs.ErrExist)}
			}
			return nil
		}
	})
	if err != nil {
		return false, "", pathErr("mkdir", path, err)
	}
	return created, canon, nil
}

// ReadDir lists the directory path names: one FileStat per entry (Path
// canonical, in directory order), each taken without following a link (a
// link is reported as one: Mode has fs.ModeSymlink). With NoFollow the
// directory itself must be reached without a link.
func (f *FS) ReadDir(cwd, path string, opts Options) ([]FileStat, error) {
	var out []FileStat
	err := f.locate(cwd, path, opts.NoFollow, func(l *jail.Location) error {
		if l.Name != "." {
			// O_NOFOLLOW|O_DIRECTORY says ENOTDIR for a link: look first.
			if fi, err := l.Dir.Lstat(l.Name); err == nil && fi.Mode()&iofs.ModeSymlink != 0 {
				return &os.PathError{Op: "readdir", Path: path, Err: syscall.ELOOP} // follow it
			}
		}
		// No O_NONBLOCK: O_DIRECTORY refuses a FIFO (ENOTDIR) before it
		// is opened, so the open cannot wait for a writer; and a
		// blocking descriptor is not tried on the runtime's poller,
		// whose set-up (four system calls) a one-shot process such as
		// the hook would otherwise pay for this listing alone.
		d, err := l.Dir.OpenFile(l.Name, os.O_RDONLY|jail.O_DIRECTORY, 0)
		if err != nil {
			return err // ELOOP for a final link: followed, or ErrSymlink
		}
		defer d.Close()
		out, err = readDirAt(d, l.Path)
		return err
	})
	if err != nil {
		return nil, pathErr("readdir", path, err)
	}
	return out, nil
}

// Touch sets the access and modification times of what path names to t
// (a final link is followed inside the jail, or, with NoFollow, refused)
// and returns its canonical path.
func (f *FS) Touch(cwd, path string, t time.Time, opts Options) (string, error) {
	var canon string
	err := f.locate(cwd, path, opts.NoFollow, func(l *jail.Location) error {
		if l.Name != "." {
			fi, err := l.Dir.Lstat(l.Name)
			if err != nil {
				return err
			}
			if fi.Mode()&iofs.ModeSymlink != 0 {
				return &os.PathError{Op: "touch", Path: path, Err: syscall.ELOOP}
			}
		}
		canon = l.Path
		return touchAt(l.Dir, l.Name, t)
	})
	if err != nil {
		return "", pathErr("touch", path, err)
	}
	return canon, nil
}

// RemoveTreeMaxDepth bounds how deep RemoveTree descends: it holds one
// descriptor per level, and a tree deeper than this was not made by a
// tool (a model-made tree of 128 levels would be a mistake or an attack).
const RemoveTreeMaxDepth = 128

// RemoveTree removes what path names and, when it is a directory,
// everything beneath it, and returns its canonical path. It works through
// descriptors from the directory that holds path and never follows a
// link: a link anywhere in the tree is removed, not its target, so it
// never leaves the tree and so never the jail. The final component is
// taken as it is (a link at path is removed itself); with NoFollow a link
// on the way to it, or at it, is refused. A missing path (in an existing directory)
// is not an error. A root, a directory holding one, and "." cannot be
// removed; a tree deeper than RemoveTreeMaxDepth is left
// (partly removed) with an error.
func (f *FS) RemoveTree(cwd, path string, opts Options) (string, error) {
	var canon string
	do := f.locate
	if !opts.NoFollow {
		do = func(cwd, path string, _ bool, op func(*jail.Location) error) error {
			return f.j.Do(cwd, path, false, op) // a final link is removed itself
		}
	}
	err := do(cwd, path, opts.NoFollow, func(l *jail.Location) error {
		if l.Name == "." {
			return &os.PathError{Op: "remove", Path: path, Err: errors.New("a root or \".\" cannot be removed")}
		}
		// A root nested in another one is reached as an ordinary name;
		// removing it (or a directory holding it) would leave the jail a
		// root whose path leads nowhere. (Compared as Rename does.)
		for _, r := range f.j.Roots() {
			if r == l.Path || strings.HasPrefix(r, l.Path+"/") {
				return &os.PathError{Op: "remove", Path: path, Err: fmt.Errorf("%s is, or holds, the root %s, which cannot be removed", l.Path, r)}
			}
		}
		canon = l.Path
		return removeTreeAt(l.Dir, l.Name)
	})
	if err != nil {
		return "", pathErr("remove", path, err)
	}
	return canon, nil
}
