package fs

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace moves oldName in oldDir to newName in newDir unless
// newName exists: renameat2 with RENAME_NOREPLACE, atomic. A filesystem
// without the flag (EINVAL on some network filesystems) gets a check, then
// a plain renameat: a race with a creator of newName there could replace
// it.
func renameNoReplace(oldDir int, oldName string, newDir int, newName string) error {
	err := unix.Renameat2(oldDir, oldName, newDir, newName, unix.RENAME_NOREPLACE)
	if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(newDir, newName, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		return unix.EEXIST
	}
	return unix.Renameat(oldDir, oldName, newDir, newName)
}
