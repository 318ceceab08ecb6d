package fs

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agenthost/agenthost/host/jail"
)

// RemoveEmptyDir removes the directory path names when it is empty, in
// one step (rmdir(2) through the descriptor of its parent, so that a file
// put in it meanwhile keeps it), and returns its canonical path. A
// directory that holds anything gives an error matching
// syscall.ENOTEMPTY and is left as it is; a missing one wraps
// fs.ErrNotExist; anything but a directory (a link included: the final
// component is never followed) gives an error matching syscall.ENOTDIR;
// with NoFollow a link on the way wraps ErrSymlink. A root, a directory
// holding one, or "." cannot be removed. Not supported on Windows yet
// (errors.ErrUnsupported).
func (f *FS) RemoveEmptyDir(cwd, path string, opts Options) (string, error) {
	var canon string
	do := f.locate
	if !opts.NoFollow {
		do = func(cwd, path string, _ bool, op func(*jail.Location) error) error {
			return f.j.Do(cwd, path, false, op) // a final link is not followed
		}
	}
	err := do(cwd, path, opts.NoFollow, func(l *jail.Location) error {
		if l.Name == "." {
			return &os.PathError{Op: "rmdir", Path: path, Err: errors.New("a root or \".\" cannot be removed")}
		}
		for _, r := range f.j.Roots() {
			if r == l.Path || strings.HasPrefix(r, l.Path+"/") {
				return &os.PathError{Op: "rmdir", Path: path, Err: fmt.Errorf("%s is, or holds, the root %s, which cannot be removed", l.Path, r)}
			}
		}
		canon = l.Path
		return rmdirAt(l.Dir, l.Name)
	})
	if err != nil {
		return "", pathErr("rmdir", path, err)
	}
	return canon, nil
}
