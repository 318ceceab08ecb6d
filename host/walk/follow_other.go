//go:build !linux

package walk

// openLinkedDir: Options.Follow is not supported off Linux (a link is
// listed as a file, as without it).
func openLinkedDir(j Jail, h dirHandle, name, path string) (dirHandle, bool) {
	return invalidHandle, false
}

// dirIdentity is not known off Linux.
func dirIdentity(h dirHandle) (dirID, bool) { return dirID{}, false }
