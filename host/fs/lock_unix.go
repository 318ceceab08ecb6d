//go:build linux || darwin

package fs

import (
	"fmt"
	iofs "io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
)

// fileKey is a file's identity: its device and inode.
type fileKey struct{ dev, ino uint64 }

func keyOf(fi iofs.FileInfo) fileKey {
	switch st := fi.Sys().(type) {
	case *syscall.Stat_t:
		return fileKey{uint64(st.Dev), uint64(st.Ino)}
	case *unix.Stat_t:
		return fileKey{uint64(st.Dev), uint64(st.Ino)}
	}
	return fileKey{}
}

// lockedFile is a target held for a replace: f is open on it (read-only,
// non-blocking), fi its stat taken after the lock, and the name still
// named this file when the lock was taken.
type lockedFile struct {
	f       *os.File
	fi      iofs.FileInfo
	release func()
}

// unlock releases both locks and closes the file.
func (lf *lockedFile) unlock() {
	lf.release()
	lf.f.Close()
}

// lockTarget opens the regular file name in d and locks it against every
// other agenthost writer: first the in-process mutex of its identity,
// then an exclusive flock(2) on the open descriptor, which conflicts with
// the flock of any other open file description, in this process or
// another. After the lock it checks that name still names the locked
// file; if another writer replaced it meanwhile, it starts again on the
// new file. So while the lock is held, name names f's file, and only a
// writer that does not take the lock (one outside agenthost) can change
// that.
//
// A link at name gives an error matching ELOOP (the caller follows it), a
// missing file fs.ErrNotExist, anything but a regular file ErrNotRegular.
// A filesystem without flock (some network and FUSE filesystems) is
// locked within this process only.
func lockTarget(d *jail.Dir, name, path string) (*lockedFile, error) {
	for try := 0; try < maxLockTries; try++ {
		f, err := d.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			if errorsIsErrno(err, syscall.ENXIO) {
				return nil, &iofs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w (%v)", ErrNotRegular, syscall.ENXIO)}
			}
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if fi.IsDir() {
			f.Close()
			return nil, isDirErr(path)
		}
		if !fi.Mode().IsRegular() {
			f.Close()
			return nil, &iofs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
		}
		unlockMu, err := fileLocks.lock(keyOf(fi))
		if err != nil {
			f.Close()
			return nil, &iofs.PathError{Op: "write", Path: path, Err: err}
		}
		if err := flockWait(f); err != nil {
			unlockMu()
			f.Close()
			return nil, &iofs.PathError{Op: "write", Path: path, Err: err}
		}
		release := func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); unlockMu() }
		now, err := d.Lstat(name)
		if err == nil && keyOf(now) == keyOf(fi) {
			if fi, err = f.Stat(); err == nil {
				return &lockedFile{f: f, fi: fi, release: release}, nil
			}
		}
		release()
		f.Close()
		if err != nil && !errorsIsErrno(err, syscall.ENOENT) {
			return nil, err
		}
		// Replaced (or removed) by another writer before we held it: the
		// name's new file is the one to lock.
	}
	return nil, &iofs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w: replaced %d times while it was being locked", ErrChanged, maxLockTries)}
}

// flockWait takes an exclusive flock on f, waiting at most LockTimeout.
// It polls (LOCK_NB, with a growing pause) rather than block, so that a
// stopped holder costs an error and not a thread blocked for good. A
// filesystem that cannot flock is not an error: the caller is then
// serialised within this process only.
func flockWait(f *os.File) error {
	fd := int(f.Fd())
	pause := 20 * time.Microsecond
	var deadline time.Time
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		switch err {
		case nil:
			return nil
		case unix.EINTR:
			continue
		case unix.EWOULDBLOCK:
		case unix.ENOLCK, unix.EOPNOTSUPP, unix.EBADF, unix.EINVAL:
			return nil // no kernel lock here: in-process only (see the ADR)
		default:
			return err
		}
		now := time.Now()
		if deadline.IsZero() {
			deadline = now.Add(lockWait)
		} else if now.After(deadline) {
			return fmt.Errorf("%w (waited %v)", ErrLocked, lockWait)
		}
		time.Sleep(pause)
		if pause < 2*time.Millisecond {
			pause *= 2
		}
	}
}

// lockNew takes the liveness lock of a temporary file just made: an
// exclusive flock that lasts as long as its writer holds it open, so that
// sweepTemps can tell a dead writer's leftover (unlocked) from a live
// writer's file (locked). It never waits (the file is new).
func lockNew(f *os.File) {
	for unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == unix.EINTR {
	}
}
