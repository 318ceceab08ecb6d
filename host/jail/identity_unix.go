//go:build linux || darwin

package jail

import (
	"os"

	"golang.org/x/sys/unix"
)

// HeldRoot returns the canonical path of a root that is the directory the
// Location names, or lies beneath it, and "" when there is none (or the
// final component is not a directory). It compares what the kernel says,
// not path strings: the final component's device and inode (fstatat,
// without following a link) against each root's descriptor and every
// directory above it, climbed by opening ".." from the root's descriptor
// up to "/". A spelling ("ws//sub", a link, a root's given form) cannot
// hide a root from it. It is for operations that must not move or remove
// a root (Rename): the answer holds at the time of the call, and only
// another process moving a root into the directory meanwhile can change it.
func (l *Location) HeldRoot() (string, error) {
	var st unix.Stat_t
	if err := fstatat(l.Dir.fd, l.Name, &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || l.rs == nil {
		return "", nil
	}
	for _, r := range l.rs.list {
		in, err := r.dir.within(&st)
		if err != nil {
			return "", err
		}
		if in {
			return r.canon, nil
		}
	}
	return "", nil
}

// within reports whether d is the directory target describes or lies
// beneath it. It holds at most two descriptors of its own at once.
func (d *Dir) within(target *unix.Stat_t) (bool, error) {
	fd, owned := d.fd, false
	defer func() {
		if owned {
			unix.Close(fd)
		}
	}()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, &os.PathError{Op: "fstat", Path: ".", Err: err}
	}
	for range MaxPathLen / 2 {
		if st.Dev == target.Dev && st.Ino == target.Ino {
			return true, nil
		}
		up, err := unix.Openat(fd, "..", oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return false, &os.PathError{Op: "openat", Path: "..", Err: err}
		}
		var ust unix.Stat_t
		if err := unix.Fstat(up, &ust); err != nil {
			unix.Close(up)
			return false, &os.PathError{Op: "fstat", Path: "..", Err: err}
		}
		if owned {
			unix.Close(fd)
		}
		fd, owned = up, true
		if ust.Dev == st.Dev && ust.Ino == st.Ino {
			return false, nil // "/" is its own parent
		}
		st = ust
	}
	return false, nil
}

// sameDir returns the root whose descriptor is the directory d, by device
// and inode, or nil.
func (rs *rootSet) sameDir(d *Dir) *root {
	var st unix.Stat_t
	if unix.Fstat(d.fd, &st) != nil {
		return nil
	}
	for _, r := range rs.list {
		var rst unix.Stat_t
		if unix.Fstat(r.dir.fd, &rst) == nil && rst.Dev == st.Dev && rst.Ino == st.Ino {
			return r
		}
	}
	return nil
}

func fstatat(fd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "fstatat", Path: name, Err: err}
		}
		return nil
	}
}
