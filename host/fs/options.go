package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/agenthost/agenthost/host/jail"
)

// ErrSymlink is wrapped by the error of an operation with Options.NoFollow
// when a symbolic link stands anywhere on the way from cwd to the file,
// the final component included. Nothing was done.
// It is the jail's ErrSymlink, and matches syscall.ELOOP too.
var ErrSymlink = jail.ErrSymlink

// Options shape how an operation reaches and writes its file. The zero
// value is what ReadFile and WriteFile do: links inside the jail followed,
// an existing file replaced, a new one made with mode 0666 before the
// umask.
type Options struct {
	// NoFollow refuses a symbolic link anywhere on the way from cwd to the
	// file, the final component included (the error wraps ErrSymlink);
	// cwd itself is resolved as usual. The path must then be plain: no "."
	// or ".." component (an error wrapping jail.ErrInvalidPath). A link
	// swapped in while the operation runs is not followed either: the
	// directory reached must be the one the path names lexically, and the
	// final component is opened, replaced or removed without following.
	NoFollow bool
	// Exclusive makes a write fail with an error wrapping fs.ErrExist when
	// anything is at path already. The file then appears whole, at once
	// (linked in, never renamed over), or not at all.
	Exclusive bool
	// Perm is the permission of a file a write creates, before the umask;
	// 0 means 0o666. An existing file keeps its own permission bits,
	// unless ReplacePerm.
	Perm iofs.FileMode
	// ReplacePerm gives a file that replaces another Perm (before the
	// umask), as a new file, instead of the old one's permission bits
	// (what a copy made with mkstemp and renamed over its target gets).
	ReplacePerm bool
	// Verify, when set, is called by a write after the contents are
	// written and synced, before the file is put in place, with the number
	// of bytes written. Its error is returned as is and nothing is left
	// behind.
	Verify func(written int64) error
}

func (o Options) perm() os.FileMode {
	if o.Perm == 0 {
		return 0o666
	}
	return o.Perm.Perm()
}

// locate resolves path and runs op on its Location. Without NoFollow it is
// jail.Jail.Do, following links inside the jail (a final link too: op
// reports it with an error matching ELOOP). With NoFollow, cwd is resolved
// as usual, then path by jail.Jail.DoNoLinks, which refuses a link met
// anywhere on the way. An error of op matching ELOOP (a link swapped in at
// the final component) becomes ErrSymlink.
func (f *FS) locate(cwd, path string, noFollow bool, op func(*jail.Location) error) error {
	if !noFollow {
		return f.j.Do(cwd, path, true, op)
	}
	for _, c := range strings.Split(path, "/") {
		if c == "." || c == ".." {
			return fmt.Errorf("%w: %q has a %q component, which a path not following links may not have", jail.ErrInvalidPath, path, c)
		}
	}
	// The jail's own no-link walk: a link anywhere on the way (the final
	// component included) is refused by what the kernel says, on the
	// descriptors walked, not by comparing path strings.
	return f.j.DoNoLinks(cwd, path, func(l *jail.Location) error {
		err := op(l)
		if errors.Is(err, syscall.ELOOP) && !errors.Is(err, ErrSymlink) {
			return &iofs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: %s became a link", ErrSymlink, l.Path)}
		}
		return err
	})
}
