package fs

import "golang.org/x/sys/unix"

// renameNoReplace moves oldName in oldDir to newName in newDir unless
// newName exists: renameatx_np with RENAME_EXCL, atomic.
func renameNoReplace(oldDir int, oldName string, newDir int, newName string) error {
	return unix.RenameatxNp(oldDir, oldName, newDir, newName, unix.RENAME_EXCL)
}
