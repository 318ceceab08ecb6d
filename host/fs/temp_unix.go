//go:build linux || darwin

package fs

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
)

// tempFile is new contents on their way to a name in d: an unnamed
// O_TMPFILE (name == "") or a named file (TempPrefix...). Its writer
// holds an exclusive flock on it from before it has a name until it is
// closed, so sweepTemps never removes it under a live writer.
type tempFile struct {
	d    *jail.Dir
	f    *os.File
	name string // "" while unnamed
}

// newTemp makes a temporary file in d for contents of mode perm (before
// the umask): an unnamed O_TMPFILE where the system and filesystem have
// it, else a named one (O_CREAT|O_EXCL, never following a link).
func newTemp(d *jail.Dir, perm os.FileMode) (*tempFile, error) {
	if f, ok := openUnnamed(d, perm); ok {
		return &tempFile{d: d, f: f}, nil
	}
	for {
		name := tempName()
		f, err := d.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errorsIsErrno(err, unix.EEXIST) {
			continue // 64 random bits taken: try others
		}
		if err != nil {
			return nil, err
		}
		lockNew(f)
		return &tempFile{d: d, f: f, name: name}, nil
	}
}

// linkNew gives the file the name name, which must not exist: linkat,
// which fails with EEXIST rather than replace. The file keeps no other
// name.
func (t *tempFile) linkNew(name string) error {
	if t.name == "" {
		return linkUnnamed(t.f, t.d.Fd(), name)
	}
	err := unix.Linkat(t.d.Fd(), t.name, t.d.Fd(), name, 0)
	if err == unix.EPERM || err == unix.EOPNOTSUPP || err == unix.EMLINK {
		// No hard links on this filesystem: a rename that refuses to
		// replace (where the filesystem has it) does the same.
		err = renameNoReplace(t.d.Fd(), t.name, t.d.Fd(), name)
		if err == nil {
			t.name = ""
			return nil
		}
	}
	if err != nil {
		return &os.LinkError{Op: "linkat", Old: t.name, New: name, Err: err}
	}
	unix.Unlinkat(t.d.Fd(), t.name, 0)
	t.name = ""
	return nil
}

// replace puts the file at name, atomically replacing what is there: a
// named file is renamed over it; an unnamed one is first linked to a
// fresh TempPrefix name (linkat cannot replace), then renamed. A writer
// killed between the two leaves that name, unlocked, for the next write's
// sweep.
func (t *tempFile) replace(name string) error {
	if t.name == "" {
		for {
			tmp := tempName()
			err := linkUnnamed(t.f, t.d.Fd(), tmp)
			if errorsIsErrno(err, unix.EEXIST) {
				continue
			}
			if err != nil {
				return err
			}
			t.name = tmp
			break
		}
		if afterLink != nil {
			afterLink()
		}
	}
	if err := unix.Renameat(t.d.Fd(), t.name, t.d.Fd(), name); err != nil {
		return &os.LinkError{Op: "renameat", Old: t.name, New: name, Err: err}
	}
	t.name = ""
	return nil
}

// afterLink, when set (by tests), runs between the link of an unnamed
// file to its temporary name and the rename over the target.
var afterLink func()

// discard closes the file and removes the name it still has.
func (t *tempFile) discard() {
	t.f.Close()
	if t.name != "" {
		unix.Unlinkat(t.d.Fd(), t.name, 0)
		t.name = ""
	}
}
