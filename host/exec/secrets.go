package exec

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxSecretScan bounds how many entries of the denied directories
// DeniesRead looks at to find a hard link to a secret: the secret
// directories are small (~/.ssh holds a few keys); a browser profile is
// not, and is looked at only up to this many entries.
const maxSecretScan = 10000

// DeniesRead reports whether sb's deny list (DefaultDenyRead under Home,
// plus DenyRead) covers a file: real is its absolute path with links
// resolved, and fi, when not nil, is the stat of the file as opened. The
// file is covered when real is a denied path or lies beneath one (by whole
// components), or when fi is, by device and inode, a file a denied path
// names or holds (a hard link to a secret elsewhere; searched only when
// the file has more than one link, over at most maxSecretScan entries).
// It is for tools that copy a file somewhere a sandboxed command could
// read it (the SendUserFile outbox): what a command may not read must not
// be copied into its reach.
func (sb *Sandbox) DeniesRead(real string, fi os.FileInfo) bool {
	real = filepath.Clean(real)
	deny := sb.denyPaths()
	for _, d := range deny {
		if real == d || strings.HasPrefix(real, d+string(filepath.Separator)) {
			return true
		}
	}
	if fi == nil || !fi.Mode().IsRegular() || links(fi) < 2 {
		return false
	}
	budget := maxSecretScan
	for _, d := range deny {
		found := false
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if budget--; budget < 0 {
				return filepath.SkipAll
			}
			if err != nil || !e.Type().IsRegular() {
				return nil
			}
			if efi, err := e.Info(); err == nil && os.SameFile(fi, efi) {
				found = true
				return filepath.SkipAll
			}
			return nil
		})
		if found {
			return true
		}
	}
	return false
}
