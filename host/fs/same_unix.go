//go:build linux || darwin

package fs

import (
	iofs "io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// sameFile reports whether a (from os.File.Stat) and b (from
// jail.Dir.Lstat) describe the same, unmodified file.
func sameFile(a, b iofs.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*unix.Stat_t)
	if !ok1 || !ok2 {
		return false
	}
	return uint64(sa.Dev) == uint64(sb.Dev) && uint64(sa.Ino) == uint64(sb.Ino) &&
		sa.Size == sb.Size && a.ModTime().Equal(b.ModTime()) &&
		ctimeOf(sa) == ctimeOfUnix(sb)
}
