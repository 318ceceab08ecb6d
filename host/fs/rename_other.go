//go:build !linux && !darwin

package fs

import "errors"

// Rename is not supported on this platform yet: the jail's directories
// here are os.Root values, which rename only within one root.
func (f *FS) Rename(cwd, src, dst string) (from, to string, err error) {
	return "", "", errors.New("rename is not supported on this platform yet")
}
