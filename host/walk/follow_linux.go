//go:build linux

package walk

import (
	"golang.org/x/sys/unix"
)

// openLinkedDir opens the directory the symbolic link name (in h, at path)
// leads to, for Options.Follow: through j when set (links followed only
// inside its roots; a link out of them is not followed), else by openat
// following the link. ok is false when the link leads to no directory it
// may enter (a file, nothing, outside the roots): it is then listed as a
// file, as without Follow.
func openLinkedDir(j Jail, h dirHandle, name, path string) (dirHandle, bool) {
	if j != nil {
		f, err := j.Open(path)
		if err != nil {
			return invalidHandle, false
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || !fi.IsDir() {
			return invalidHandle, false
		}
		d, err := handleFromFile(f, path)
		if err != nil {
			return invalidHandle, false
		}
		return d, true
	}
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(int(h), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return invalidHandle, false
	}
	return dirHandle(fd), true
}

// dirIdentity is the device and inode of the open directory h.
func dirIdentity(h dirHandle) (dirID, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(int(h), &st); err != nil {
		return dirID{}, false
	}
	return dirID{dev: uint64(st.Dev), ino: st.Ino}, true
}
