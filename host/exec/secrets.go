package exec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxSecretScan bounds how many entries of each denied directory
// CheckRead looks at to find a hard link to a secret. The secret
// directories are small (~/.ssh holds a few keys, ~/.kube a config and a
// cache); a browser profile is not. Each denied directory has a budget of
// its own, so a full one cannot use up the search of another, and a
// directory that holds more than this is not taken to hold no link: the
// check says it could not tell (ErrSecretUnchecked).
const maxSecretScan = 10000

var (
	// ErrSecretDenied is wrapped by CheckRead's error for a file the deny
	// list covers: a denied path, a file beneath one, or the same file by
	// device and inode as one (a hard link).
	ErrSecretDenied = errors.New("exec: a secret the sandbox denies commands")
	// ErrSecretUnchecked is wrapped by CheckRead's error for a file that
	// has hard links elsewhere when the search for a secret it could be
	// stopped before it finished: a denied directory held more than
	// maxSecretScan entries, or part of one could not be read. Such a file
	// may be a secret; a caller that copies files must treat it as one.
	// The error names the bound and the directory.
	ErrSecretUnchecked = errors.New("exec: could not check that a hard-linked file is no secret")
)

// DeniesRead reports whether sb's deny list covers a file, or might (see
// CheckRead): it is CheckRead(real, fi) != nil, so a check that could not
// finish answers true.
func (sb *Sandbox) DeniesRead(real string, fi os.FileInfo) bool {
	return sb.CheckRead(real, fi) != nil
}

// CheckRead tells whether sb's deny list (DefaultDenyRead under Home,
// plus DenyRead) covers a file: real is its absolute path with links
// resolved, and fi, when not nil, is the stat of the file as opened. It is
// for tools that copy a file somewhere a sandboxed command could read it
// (the SendUserFile outbox): what a command may not read must not be
// copied into its reach. It returns
//
//   - an error wrapping ErrSecretDenied when real is a denied path or lies
//     beneath one (by whole components), or when fi is, by device and
//     inode, a file a denied path names or holds (a hard link to a secret
//     elsewhere);
//   - an error wrapping ErrSecretUnchecked when fi has more than one link
//     and the search for it could not finish: a denied directory with more
//     than maxSecretScan entries, or one part of which could not be read;
//   - nil otherwise: the file is not a secret.
//
// The denied paths that are files are compared with fi first, one stat
// each; only then are the denied directories searched, each with a budget
// of its own, and only for a regular file with more than one link.
func (sb *Sandbox) CheckRead(real string, fi os.FileInfo) error {
	real = filepath.Clean(real)
	deny := sb.denyPaths()
	for _, d := range deny {
		if real == d || strings.HasPrefix(real, d+string(filepath.Separator)) {
			return fmt.Errorf("%w: %s is %s", ErrSecretDenied, real, d)
		}
	}
	if fi == nil || !fi.Mode().IsRegular() || links(fi) < 2 {
		return nil
	}
	var dirs []string
	for _, d := range deny {
		st, err := os.Stat(d)
		switch {
		case err != nil:
			// A missing path holds nothing; one that cannot be stat'ed
			// is searched, which reports what stops it.
			if !errors.Is(err, fs.ErrNotExist) {
				dirs = append(dirs, d)
			}
		case st.IsDir():
			dirs = append(dirs, d)
		case os.SameFile(fi, st):
			return fmt.Errorf("%w: %s is a hard link to %s", ErrSecretDenied, real, d)
		}
	}
	for _, d := range dirs {
		if err := searchLink(d, real, fi); err != nil {
			return err
		}
	}
	return nil
}

// searchLink looks through the directory d, its links not followed, for
// the file fi (whose real path is real), over at most maxSecretScan
// entries: an error wrapping ErrSecretDenied when it is there, one
// wrapping ErrSecretUnchecked when the search stopped before its end,
// nil when it is not there.
func searchLink(d, real string, fi os.FileInfo) error {
	var stop error
	seen := 0
	filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == d && errors.Is(err, fs.ErrNotExist) {
				return nil // gone meanwhile
			}
			stop = fmt.Errorf("%w: %s has %d links, and %s could not be read (%v)", ErrSecretUnchecked, real, links(fi), p, err)
			return filepath.SkipAll
		}
		if p == d {
			return nil // the directory itself; its entries count
		}
		if seen++; seen > maxSecretScan {
			stop = fmt.Errorf("%w: %s has %d links, and %s holds more than %d entries, the bound of the search",
				ErrSecretUnchecked, real, links(fi), d, maxSecretScan)
			return filepath.SkipAll
		}
		if !e.Type().IsRegular() {
			return nil
		}
		efi, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			stop = fmt.Errorf("%w: %s has %d links, and %s could not be read (%v)", ErrSecretUnchecked, real, links(fi), p, err)
			return filepath.SkipAll
		}
		if os.SameFile(fi, efi) {
			stop = fmt.Errorf("%w: %s is a hard link to %s", ErrSecretDenied, real, p)
			return filepath.SkipAll
		}
		return nil
	})
	return stop
}
