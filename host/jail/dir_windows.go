package jail

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Dir is an open directory inside the jail. On Windows it is an os.Root,
// so each method has os.Root's semantics: names are resolved beneath the
// directory, and a symbolic link is followed only inside it.
type Dir struct {
	r *os.Root
}

// O_DIRECTORY is the open flag that makes opening a non-directory fail
// (0 where the platform has none).
const O_DIRECTORY = oDirectory

const (
	eloop      = syscall.ELOOP
	oPath      = os.O_RDONLY
	enotdir    = syscall.ENOTDIR
	oDirectory = 0
)

var errNotLink = errors.New("not a symbolic link")

func openRootDir(path string) (*Dir, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Dir{r: r}, nil
}

func (d *Dir) close() error { return d.r.Close() }

func (d *Dir) openDir(name string) (*Dir, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, syscall.ELOOP
	}
	if !fi.IsDir() {
		return nil, syscall.ENOTDIR
	}
	r, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &Dir{r: r}, nil
}

// Readlink returns the target of the symbolic link name.
func (d *Dir) Readlink(name string) (string, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return "", err
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return "", &os.PathError{Op: "readlink", Path: name, Err: errNotLink}
	}
	return d.r.Readlink(name)
}

// OpenFile opens name in the directory with flag.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if fi, err := d.r.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.ELOOP}
	}
	return d.r.OpenFile(name, flag, perm)
}

// Lstat returns the information of name without following a link.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) { return d.r.Lstat(name) }

// Mkdir creates the directory name.
func (d *Dir) Mkdir(name string, perm fs.FileMode) error { return d.r.Mkdir(name, perm) }

// Unlink removes the file or symbolic link name; a directory is an error.
func (d *Dir) Unlink(name string) error {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return &os.PathError{Op: "unlink", Path: name, Err: syscall.EISDIR}
	}
	return d.r.Remove(name)
}

// Rename renames oldname to newname inside the directory.
func (d *Dir) Rename(oldname, newname string) error { return d.r.Rename(oldname, newname) }

func isNotLink(err error) bool {
	return errors.Is(err, errNotLink) || errors.Is(err, fs.ErrNotExist)
}

func isMaybeLink(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR)
}

// rawFds: a descriptor is a handle here, not a number OpenDirFd could
// return; it reports errors.ErrUnsupported.
const rawFds = false

func (d *Dir) openFd(name string, flag int, perm fs.FileMode) (int, error) {
	return -1, errors.ErrUnsupported
}

func closeFd(int) {}

// CloseFd closes a descriptor OpenDirFd returned: there are none here.
func CloseFd(int) error { return errors.ErrUnsupported }
