package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"

	"github.com/agenthost/agenthost/host/jail"
)

// ErrChanged is wrapped by UpdateFile's error when the file was modified,
// replaced or removed between the read and the write by a writer that is
// not agenthost's (an editor, a formatter, git): nothing was written, and
// the caller may read again and retry. Writers through agenthost never
// cause it: they wait for each other.
var ErrChanged = errors.New("file changed since it was read")

// UpdateFile reads the regular file path names, passes it to fn, and
// atomically replaces it with the bytes fn returns, and no concurrent
// update is lost.
//
// The file is locked before it is read and until it is replaced: an
// in-process mutex keyed by its device and inode, then an exclusive
// flock(2) on its open descriptor, which every agenthost writer in every
// process takes (UpdateFile for its whole read-modify-write, WriteFile
// for its replace). So an UpdateFile or WriteFile through any Host on the
// machine either completes before this one reads, and is read, or starts
// its replace after this one is done; a second UpdateFile waits and then
// reads this one's result. All of it goes through one open directory: the
// file replaced is the file read, never another one a link or a rename
// put at the same path meanwhile.
//
// A writer outside agenthost takes no lock. Just before the rename the
// name is checked again (device, inode, size, modification and change
// time); if it changed, nothing is written and the error wraps ErrChanged.
// What that check cannot see: a write outside agenthost in the instant
// between the check and the rename is replaced (lost); one that keeps the
// size and restores both times is invisible (a program cannot restore the
// change time without changing the clock). See docs/adr/0009.
//
// fn runs with the file locked: it must not write the same file through
// agenthost (that write would wait for this update, and fail with
// ErrLocked after LockTimeout). When fn returns an error, nothing is
// written and that error is returned. The write is WriteFrom's (same temporary file, sync, and what
// is kept of the old file: its permission bits, without setuid, setgid
// and sticky). Errors are otherwise ReadFile's and WriteFile's, and
// ErrLocked when another writer held the lock longer than LockTimeout.
func (f *FS) UpdateFile(cwd, path string, fn func(FileRead) ([]byte, error)) (FileStat, error) {
	var st FileStat
	var fnErr error
	err := f.j.Do(cwd, path, true, func(l *jail.Location) error {
		if l.Name == "." || l.Slash {
			return isDirErr(path)
		}
		sweepTemps(l.Dir) // before the lock: it is not the update's business
		lf, err := lockTarget(l.Dir, l.Name, l.Path)
		if err != nil {
			return err // ELOOP for a final link: Do follows it
		}
		st, err = f.update(l, path, lf, fn, &fnErr)
		return err
	})
	if fnErr != nil {
		return FileStat{}, fnErr
	}
	if err != nil {
		return FileStat{}, pathErr("write", path, err)
	}
	return st, nil
}

// update is UpdateFile's read-modify-write with the file locked; it
// unlocks it.
func (f *FS) update(l *jail.Location, path string, lf *lockedFile, fn func(FileRead) ([]byte, error), fnErr *error) (FileStat, error) {
	defer lf.unlock()
	fi := lf.fi
	if fi.Size() > f.maxRead {
		return FileStat{}, &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes > %d", ErrTooLarge, fi.Size(), f.maxRead)}
	}
	b, err := readAllLimit(lf.f, make([]byte, 0, fi.Size()+1), f.maxRead)
	if err != nil {
		return FileStat{}, err
	}
	read := statOf(l.Path, fi)
	read.Size = int64(len(b))
	next, err := fn(FileRead{Path: l.Path, Contents: Lossy(b), Stat: read})
	if err != nil {
		*fnErr = err
		return FileStat{}, err
	}
	tmp, tfi, err := writeTemp(l.Dir, bytesReader(next), fi.Mode().Perm(), true, nil)
	if err != nil {
		return FileStat{}, err
	}
	defer tmp.discard() // before lf.unlock: the new file's lock goes first
	// Under the lock, only a writer outside agenthost can have changed it.
	now, err := l.Dir.Lstat(l.Name)
	if err != nil || !sameFile(fi, now) {
		return FileStat{}, &iofs.PathError{Op: "write", Path: path, Err: ErrChanged}
	}
	if err := tmp.replace(l.Name); err != nil {
		return FileStat{}, err
	}
	return statOf(l.Path, tfi), nil
}
