package senduserfile

import (
	"os"
	"strings"
)

// The path rules of the script this hook replaces, as Python 3.11 has
// them: os.path.realpath, pathlib's normalization and os.path.basename.
// The hook follows them to the letter, so that it stages what the script
// staged and prints the paths the script printed.

// pyRealpath is Python 3.11's os.path.realpath(p) for an absolute p
// (strict=False): symbolic links are resolved as far as they exist, a
// missing or unreadable component is kept as written and the walk goes on
// (so "/a/missing/../f" is "/a/f"), ".." is taken after the links before
// it are resolved, and a link loop leaves the rest of the path as it is.
// The one error is a link that cannot be read (Python raises OSError).
func pyRealpath(p string) (string, error) {
	path, _, err := pyJoinRealpath("", p, map[string]*string{})
	if err != nil {
		return "", err
	}
	return pyNormpath(path), nil
}

// pyRealpathNoLinks is pyRealpath(p) for an absolute p on whose way no
// component is a symbolic link (the kernel said so: realNoLinks): the same
// walk, with every component taken as it is written, and no system call.
func pyRealpathNoLinks(p string) string {
	path, _, _ := pyJoinRealpath("", p, nil)
	return pyNormpath(path)
}

// pyJoinRealpath is posixpath._joinrealpath: path joined with rest, the
// links in rest resolved. seen maps a link to what it resolved to (nil:
// being resolved, so a loop); a nil seen means that no component is a
// link, so none is looked at.
func pyJoinRealpath(path, rest string, seen map[string]*string) (string, bool, error) {
	if strings.HasPrefix(rest, "/") {
		rest = rest[1:]
		path = "/"
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			if path != "" {
				var tail string
				path, tail = pySplit(path)
				if tail == ".." {
					path = pyJoin(pyJoin(path, ".."), "..")
				}
			} else {
				path = ".."
			}
			continue
		}
		newpath := pyJoin(path, name)
		if seen == nil {
			path = newpath
			continue
		}
		fi, err := os.Lstat(newpath)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			path = newpath
			continue
		}
		if r, ok := seen[newpath]; ok {
			if r != nil {
				path = *r
				continue
			}
			return pyJoin(newpath, rest), false, nil // a loop
		}
		seen[newpath] = nil
		target, err := os.Readlink(newpath)
		if err != nil {
			return "", false, err
		}
		var ok bool
		path, ok, err = pyJoinRealpath(path, target, seen)
		if err != nil {
			return "", false, err
		}
		if !ok {
			return pyJoin(path, rest), false, nil
		}
		resolved := path
		seen[newpath] = &resolved
	}
	return path, true, nil
}

// pyJoin is posixpath.join(a, b).
func pyJoin(a, b string) string {
	switch {
	case strings.HasPrefix(b, "/"):
		return b
	case a == "" || strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// pySplit is posixpath.split(p).
func pySplit(p string) (head, tail string) {
	i := strings.LastIndexByte(p, '/') + 1
	head, tail = p[:i], p[i:]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head, tail
}

// pyNormpath is posixpath.normpath(p) for an absolute p (what abspath
// makes of it): one leading slash (two when there were exactly two), no
// empty or "." component, and each ".." taking away the one before it.
func pyNormpath(p string) string {
	if p == "" {
		return "."
	}
	initial := ""
	if strings.HasPrefix(p, "/") {
		initial = "/"
		if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
			initial = "//"
		}
	}
	var comps []string
	for _, c := range strings.Split(p, "/") {
		switch {
		case c == "" || c == ".":
		case c != ".." || (initial == "" && len(comps) == 0) || (len(comps) > 0 && comps[len(comps)-1] == ".."):
			comps = append(comps, c)
		case len(comps) > 0:
			comps = comps[:len(comps)-1]
		}
	}
	if out := initial + strings.Join(comps, "/"); out != "" {
		return out
	}
	return "."
}

// pyPurePath is str(pathlib.PurePosixPath(p)): empty and "." components
// dropped, ".." kept, one leading slash (two when there were exactly two),
// no trailing slash.
func pyPurePath(p string) string {
	initial := ""
	if strings.HasPrefix(p, "/") {
		initial = "/"
		if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
			initial = "//"
		}
	}
	var comps []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			comps = append(comps, c)
		}
	}
	if out := initial + strings.Join(comps, "/"); out != "" {
		return out
	}
	return "."
}
