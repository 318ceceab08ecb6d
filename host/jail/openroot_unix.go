//go:build linux || darwin

package jail

import (
	"os"

	"golang.org/x/sys/unix"
)

// needSlash: the walk from "/" opens every root, so the Jail always holds
// "/".
func needSlash(Policy) bool { return true }

// openRoot opens the directory abs names by the jail's walk from "/"
// (see AddRoot) and returns it with its canonical path. j.mu is held, so
// rs, the current set, holds "/" open throughout.
func (j *Jail) openRoot(rs *rootSet, abs string) (*Dir, string, error) {
	fo := &finalOpen{flag: oPath | unix.O_DIRECTORY}
	if err := j.run(rs, j.slashSet, abs, &mode{follow: true, open: fo}, openFinal); err != nil {
		return nil, "", err
	}
	f, canon := fo.file, fo.canon
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, "", &os.PathError{Op: "dup", Path: canon, Err: err}
	}
	return &Dir{fd: fd}, canon, nil
}
