package jail

import (
	"os"
	"path/filepath"
	"strings"
)

// EnterRoots resolves the symbolic links of path (absolute, outside the
// roots) one component at a time, by Lstat and Readlink, and reports
// where the resolution first enters a root: the path from there on, with
// the components still to resolve after it, for an open through the jail
// to finish from inside (so that a file outside the roots that links into
// them, such as a global excludes file linked to one in the workspace, is
// read by the jail's rules, and a link the workspace's writer swaps in
// cannot redirect the read). The final component is followed only when
// follow is set. It returns "", false when the resolution never enters a
// root, meets an error, or follows more than MaxSymlinks links; for a path
// already inside, it returns path itself. What it returns is not cleaned:
// a ".." after the point of entry is left for the jail's walk, which
// applies it after the links as the kernel does.
//
// The links outside the roots are the user's own and are trusted as they
// are read: this is resolution of a trusted path, not a confinement, and
// the caller reads what stays outside by path as before.
func (j *Jail) EnterRoots(path string, follow bool) (string, bool) {
	if !filepath.IsAbs(path) {
		return "", false
	}
	if j.Contains(path) {
		return path, true
	}
	vol := filepath.VolumeName(path)
	sep := string(filepath.Separator)
	done := vol + sep
	rest := splitComponents(path[len(vol):])
	for links := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		if name == ".." {
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		if j.Contains(next) {
			// Joined, not cleaned: ".." in rest is the jail's to apply.
			return strings.Join(append([]string{next}, rest...), string(filepath.Separator)), true
		}
		if len(rest) == 0 && !follow {
			return "", false
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return "", false
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > MaxSymlinks {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", false
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			done = v + sep
			target = target[len(v):]
		}
		rest = append(splitComponents(target), rest...)
	}
	return "", false
}

// splitComponents splits a path into its components, dropping empty ones
// and ".".
func splitComponents(p string) []string {
	var out []string
	for _, s := range strings.FieldsFunc(p, func(r rune) bool { return os.IsPathSeparator(uint8(r)) }) {
		if s != "." {
			out = append(out, s)
		}
	}
	return out
}
