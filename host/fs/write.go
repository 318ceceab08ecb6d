package fs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"syscall"

	"github.com/agenthost/agenthost/host/jail"
)

// WriteFile creates or replaces the file path names with contents and
// returns its stat after the write. It is WriteFrom with the zero Options.
func (f *FS) WriteFile(cwd, path string, contents []byte) (FileStat, error) {
	return f.WriteFrom(cwd, path, bytes.NewReader(contents), Options{})
}

// WriteFrom creates or replaces the file path names with what r holds (up
// to io.EOF) and returns its stat after the write. It is the one atomic
// writer of the host: WriteFile, UpdateFile and every tool's write are it.
//
// Atomic: the bytes go to a new file in the target's directory (on Linux
// an unnamed O_TMPFILE; elsewhere a file named TempPrefix...), which is
// synced and then put in place in one step (linked in for a new file,
// renamed over an old one), so a crash, a kill, a full disk or a reader
// sees the old file or the new one, never a mix. An interrupted write
// leaves nothing that lasts: an unnamed file vanishes with its writer,
// and a named leftover is removed by the next write to the directory
// (see TempPrefix).
//
// Serialised: the replace of an existing file is made under that file's
// lock (see UpdateFile), so it never lands in the middle of an
// UpdateFile's read-modify-write by any agenthost process; the bytes are
// written and synced before the lock is taken.
//
// What is kept of a file it replaces: its permission bits (rwx for user,
// group and others). Not kept: setuid, setgid and sticky (an agent's write
// never leaves a privileged file), the owner and group (the new file's
// are the writer's, as for any new file, the group following a setgid
// directory), extended attributes and ACLs (a default ACL of the
// directory applies, as to any new file), the inode and so other hard
// links (they keep the old contents). A path that is a symbolic link
// whose target lies inside the jail replaces the target (the link stays);
// a link leading out, dangling or not, wraps jail.ErrEscape and nothing
// is written anywhere. See Options for NoFollow, Exclusive, Perm and
// Verify.
//
// Errors: a missing parent directory wraps fs.ErrNotExist (no directory is
// created); a directory, FIFO, socket or device at path wraps
// ErrNotRegular; r's error is returned wrapped; ErrLocked when another
// writer held the file too long. When the path turns out to be a link
// after r was read, a seekable r is read again from where it started, and
// any other fails with ErrChanged. Nothing is written in any error case.
func (f *FS) WriteFrom(cwd, path string, r io.Reader, opts Options) (FileStat, error) {
	var st FileStat
	var verr error // Verify's, returned as is
	start, rerr := int64(-1), error(nil)
	if s, ok := r.(io.Seeker); ok {
		start, rerr = s.Seek(0, io.SeekCurrent)
		if rerr != nil {
			start = -1
		}
	}
	if v := opts.Verify; v != nil {
		opts.Verify = func(n int64) error {
			verr = v(n)
			return verr
		}
	}
	tries := 0
	err := f.locate(cwd, path, opts.NoFollow, func(l *jail.Location) error {
		if l.Name == "." || l.Slash {
			return isDirErr(path)
		}
		mode := opts.perm() // before the umask, as for a new file
		existing := false
		fi, err := l.Dir.Lstat(l.Name)
		switch {
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			return &os.PathError{Op: "write", Path: path, Err: syscall.ELOOP} // follow it
		case err == nil && fi.IsDir():
			return isDirErr(path)
		case err == nil && !fi.Mode().IsRegular():
			return &iofs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
		case err == nil && opts.Exclusive:
			return &iofs.PathError{Op: "create", Path: path, Err: iofs.ErrExist}
		case err == nil && opts.ReplacePerm:
			existing = true
		case err == nil:
			mode, existing = fi.Mode().Perm(), true
		case !errors.Is(err, iofs.ErrNotExist):
			return err
		}
		if tries++; tries > 1 {
			if start < 0 {
				return &iofs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w: it became a link while it was written", ErrChanged)}
			}
			if _, err := r.(io.Seeker).Seek(start, io.SeekStart); err != nil {
				return err
			}
		}
		s, err := writeAtomic(l, path, r, mode, existing && !opts.ReplacePerm, existing, opts)
		st = s
		return err
	})
	if verr != nil {
		return FileStat{}, verr
	}
	if err != nil {
		return FileStat{}, pathErr("write", path, err)
	}
	return st, nil
}

// writeAtomic removes the leftovers of interrupted writes from l's
// directory (sweepTemps: so at most the last interrupted write's is ever
// there), writes r to a new temporary file in it and puts it at l.Name: linked in when nothing is there (or Exclusive), renamed
// over the existing file (existing: one was there when it looked) under
// its lock otherwise. keepMode sets mode
// exactly (the umask applied at creation) for a file that replaces one.
func writeAtomic(l *jail.Location, path string, r io.Reader, mode os.FileMode, keepMode, existing bool, opts Options) (FileStat, error) {
	sweepTemps(l.Dir)
	tmp, fi, err := writeTemp(l.Dir, r, mode, keepMode, opts.Verify)
	if err != nil {
		return FileStat{}, err
	}
	defer tmp.discard()
	for try := 0; ; try++ {
		if !existing || opts.Exclusive {
			err := tmp.linkNew(l.Name)
			if err == nil {
				break
			}
			if !errors.Is(err, iofs.ErrExist) || opts.Exclusive || try > maxLockTries {
				return FileStat{}, err
			}
			existing = true // made by someone else meanwhile: replace it
			continue
		}
		lf, err := lockTarget(l.Dir, l.Name, l.Path)
		switch {
		case errors.Is(err, iofs.ErrNotExist):
			existing = false // removed meanwhile: link the new file in
			continue
		case errors.Is(err, iofs.ErrPermission):
			// Unreadable, so it cannot be locked; nor can any UpdateFile
			// have read it. Replace it as it is.
			if err := tmp.replace(l.Name); err != nil {
				return FileStat{}, err
			}
		case err != nil:
			return FileStat{}, err // a link now (ELOOP: Do follows it), ...
		default:
			err = tmp.replace(l.Name)
			tmp.discard() // drop the new file's lock before the old one's
			lf.unlock()
			if err != nil {
				return FileStat{}, err
			}
		}
		break
	}
	tmp.discard()
	return statOf(l.Path, fi), nil
}

// writeTemp makes a temporary file in d and writes r to it: mode set
// exactly when keepMode (only the permission bits: setuid, setgid and
// sticky are never given), synced, then verify called. The file's stat
// comes from its descriptor. On error nothing is left.
func writeTemp(d *jail.Dir, r io.Reader, mode os.FileMode, keepMode bool, verify func(int64) error) (*tempFile, iofs.FileInfo, error) {
	mode = mode.Perm()
	tmp, err := newTemp(d, mode)
	if err != nil {
		return nil, nil, err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.discard()
		}
	}()
	// Between two *os.File (a copy), io.Copy is copy_file_range on Linux.
	n, err := io.Copy(tmp.f, r)
	if err != nil {
		return nil, nil, err
	}
	if keepMode {
		if err := tmp.f.Chmod(mode); err != nil {
			return nil, nil, err
		}
	}
	if err := tmp.f.Sync(); err != nil {
		return nil, nil, err
	}
	fi, err := tmp.f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if verify != nil {
		if err := verify(n); err != nil {
			return nil, nil, err
		}
	}
	ok = true
	return tmp, fi, nil
}
