//go:build !linux && !darwin

package fs

import (
	"errors"
	iofs "io/fs"
	"os"
	"time"

	"github.com/agenthost/agenthost/host/jail"
)

// fileKey is a file's identity. Windows gives no inode through os.Root's
// Lstat, so the canonical path stands in for it (in-process locking only:
// there is no kernel lock on Windows yet).
type fileKey struct{ path string }

func keyOf(fi iofs.FileInfo) fileKey { return fileKey{fi.Name()} }

type lockedFile struct {
	f       *os.File
	fi      iofs.FileInfo
	release func()
}

func (lf *lockedFile) unlock() {
	lf.release()
	lf.f.Close()
}

// lockTarget locks the file within this process only, keyed by its
// canonical path: Windows has no kernel lock here yet.
func lockTarget(d *jail.Dir, name, path string) (*lockedFile, error) {
	unlock, err := fileLocks.lock(fileKey{path})
	if err != nil {
		return nil, err
	}
	f, err := d.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		unlock()
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		unlock()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		unlock()
		return nil, &iofs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	}
	return &lockedFile{f: f, fi: fi, release: unlock}, nil
}

type tempFile struct {
	d    *jail.Dir
	f    *os.File
	name string
}

func newTemp(d *jail.Dir, perm os.FileMode) (*tempFile, error) {
	for {
		name := tempName()
		f, err := d.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &tempFile{d: d, f: f, name: name}, nil
	}
}

// linkNew checks that name is free, then renames: not atomic on Windows.
func (t *tempFile) linkNew(name string) error {
	if _, err := t.d.Lstat(name); err == nil {
		return &os.LinkError{Op: "rename", Old: t.name, New: name, Err: iofs.ErrExist}
	}
	return t.replace(name)
}

func (t *tempFile) replace(name string) error {
	t.f.Close()
	if err := t.d.Rename(t.name, name); err != nil {
		return err
	}
	t.name = ""
	return nil
}

func (t *tempFile) discard() {
	t.f.Close()
	if t.name != "" {
		t.d.Unlink(t.name)
	}
}

// sweepTemps on Windows removes nothing yet: it cannot tell a live
// writer's file from a leftover without a lock.
func sweepTemps(*jail.Dir) {}

func touchAt(d *jail.Dir, name string, t time.Time) error { return errors.ErrUnsupported }

func removeTreeAt(d *jail.Dir, name string) error { return errors.ErrUnsupported }

func readDirAt(d *os.File, canon string) ([]FileStat, error) {
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	var out []FileStat
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			out = append(out, statOf(canon+`\`+e.Name(), fi))
		}
	}
	return out, nil
}

func rmdirAt(d *jail.Dir, name string) error { return errors.ErrUnsupported }
