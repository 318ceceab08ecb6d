package jail

import "path/filepath"

// needSlash: on Windows roots are opened by name (below), so "/" is held
// only for the Unrestricted policy.
func needSlash(p Policy) bool { return p == Unrestricted }

// openRoot canonicalizes abs by name and opens it as an os.Root. Windows
// has no descriptor walk here: a directory swapped for a link between the
// two steps is not detected (Linux and macOS walk by descriptors).
func (j *Jail) openRoot(rs *rootSet, abs string) (*Dir, string, error) {
	canon, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, "", err
	}
	if canon, err = filepath.Abs(canon); err != nil {
		return nil, "", err
	}
	d, err := openRootDir(canon)
	if err != nil {
		return nil, "", err
	}
	return d, canon, nil
}
