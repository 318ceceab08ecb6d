package fs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"syscall"

	"github.com/agenthost/agenthost/host/jail"
)

// WriteFile creates or replaces the file path names with contents and
// returns its stat after the write.
//
// It is atomic: the bytes go to a new temporary file in the same directory,
// which is synced and then renamed over the target, so a crash, a full disk
// or a concurrent reader sees either the old file or the new one, never a
// mix, and a failed write leaves no temporary file. An existing file keeps
// its permission bits (not its owner, inode or hard links: it is a new
// file). A path that is a symbolic link whose target lies inside the jail
// replaces the target (the link stays); a link leading out, dangling or not,
// wraps jail.ErrEscape and nothing is written anywhere.
//
// Errors: a missing parent directory wraps fs.ErrNotExist (no directory is
// created); a directory, FIFO, socket or device at path wraps ErrNotRegular.
func (f *FS) WriteFile(cwd, path string, contents []byte) (FileStat, error) {
	var st FileStat
	err := f.j.Do(cwd, path, true, func(l *jail.Location) error {
		if l.Name == "." || l.Slash {
			return isDirErr(path)
		}
		mode := os.FileMode(0o666) // before the umask, as for a new file
		existing := false
		fi, err := l.Dir.Lstat(l.Name)
		switch {
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			return &os.PathError{Op: "write", Path: path, Err: syscall.ELOOP} // follow it
		case err == nil && fi.IsDir():
			return isDirErr(path)
		case err == nil && !fi.Mode().IsRegular():
			return &iofs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
		case err == nil:
			mode, existing = fi.Mode().Perm(), true
		case !errors.Is(err, iofs.ErrNotExist):
			return err
		}
		s, err := writeAtomic(l, contents, mode, existing)
		st = s
		return err
	})
	if err != nil {
		return FileStat{}, pathErr("write", path, err)
	}
	return st, nil
}

func writeAtomic(l *jail.Location, contents []byte, mode os.FileMode, keepMode bool) (FileStat, error) {
	return writeAtomicChecked(l, contents, mode, keepMode, nil)
}

// writeAtomicChecked is writeAtomic with a check run just before the
// rename; its error leaves the target alone.
func writeAtomicChecked(l *jail.Location, contents []byte, mode os.FileMode, keepMode bool, check func() error) (FileStat, error) {
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := "." + l.Name + ".tmp-" + hex.EncodeToString(rnd[:])
	if len(tmp) > 255 {
		tmp = ".agenthost.tmp-" + hex.EncodeToString(rnd[:])
	}
	file, err := l.Dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return FileStat{}, err
	}
	ok := false
	defer func() {
		if !ok {
			file.Close()
			l.Dir.Unlink(tmp)
		}
	}()
	if _, err := file.Write(contents); err != nil {
		return FileStat{}, err
	}
	if keepMode {
		// The umask applied at creation: restore the old bits exactly.
		if err := file.Chmod(mode); err != nil {
			return FileStat{}, err
		}
	}
	if err := file.Sync(); err != nil {
		return FileStat{}, err
	}
	fi, err := file.Stat()
	if err != nil {
		return FileStat{}, err
	}
	if err := file.Close(); err != nil {
		return FileStat{}, err
	}
	if check != nil {
		if err := check(); err != nil {
			return FileStat{}, err
		}
	}
	if err := l.Dir.Rename(tmp, l.Name); err != nil {
		return FileStat{}, err
	}
	ok = true
	return statOf(l.Path, fi), nil
}
