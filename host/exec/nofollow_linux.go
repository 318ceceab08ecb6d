package exec

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// These are the protected set's file operations: each opens the root by
// its path (the caller's canonical root, outside what a sandboxed command
// can change) and every component below it with O_NOFOLLOW, so a link the
// command left anywhere on the way is refused rather than followed.

// dirent is one directory entry.
type dirent struct {
	name string
	typ  uint8
}

// openParent opens the directory holding rel, without following links,
// and returns it with rel's last component. rel "" is the root itself
// (name "").
func openParent(root, rel string) (int, string, error) { return walkParent(root, rel, false) }

// openParentMaking is openParent for a restore: a directory on the way
// that is missing is made (0755), and one the command replaced by a link
// or a file is replaced by a directory again, so that what is put back
// lands where it was, never where a link points, and is never silently
// dropped.
func openParentMaking(root, rel string) (int, string, error) { return walkParent(root, rel, true) }

// walkParent is openParent, and with mk openParentMaking.
func walkParent(root, rel string, mk bool) (int, string, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", err
	}
	if rel == "" || rel == "." {
		return fd, "", nil
	}
	parts := strings.Split(rel, "/")
	for _, c := range parts[:len(parts)-1] {
		if c == "" || c == "." || c == ".." {
			unix.Close(fd)
			return -1, "", unix.EINVAL
		}
		nfd, err := openatOwner(fd, c, unix.O_RDONLY|unix.O_DIRECTORY)
		if mk && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)) {
			if rerr := removeAt(fd, c); rerr == nil {
				if merr := unix.Mkdirat(fd, c, 0o755); merr == nil || errors.Is(merr, unix.EEXIST) {
					nfd, err = openatOwner(fd, c, unix.O_RDONLY|unix.O_DIRECTORY)
				}
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, "", err
		}
		fd = nfd
	}
	return fd, parts[len(parts)-1], nil
}

// openDirsNoFollow opens, beneath dfd (which stays open), each of names
// in turn, following no link, and with mk makes those that are missing
// (the first with firstMode, the others 0700). It returns the last one's
// descriptor, or -1 when a step fails: a link or a file in the way is
// refused, never followed.
func openDirsNoFollow(dfd int, names []string, mk bool, firstMode uint32) int {
	cur := dfd
	for i, name := range names {
		mode := uint32(0o700)
		if i == 0 {
			mode = firstMode
		}
		if mk {
			if err := unix.Mkdirat(cur, name, mode); err != nil && !errors.Is(err, unix.EEXIST) {
				if cur != dfd {
					unix.Close(cur)
				}
				return -1
			}
		}
		fd, err := unix.Openat(cur, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if cur != dfd {
			unix.Close(cur)
		}
		if err != nil {
			return -1
		}
		cur = fd
	}
	return cur
}

// openNoFollow opens rel with flags (O_NOFOLLOW added).
func openNoFollow(root, rel string, flags int) (int, error) {
	dfd, name, err := openParent(root, rel)
	if err != nil {
		return -1, err
	}
	if name == "" {
		return dfd, nil
	}
	defer unix.Close(dfd)
	return openatOwner(dfd, name, flags)
}

// openatOwner opens name in dfd without following a link. When the mode
// refuses it (EACCES: a command that cannot be stopped from chmod-ing its
// own files made a directory unlistable, 0311, or a file unreadable, to
// hide what it planted from this check while git or direnv can still use
// it by name), the owner's read, write and search bits are added, which
// the owner may always do, and the open is tried again. As root the
// first open succeeds anyway.
func openatOwner(dfd int, name string, flags int) (int, error) {
	flags |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(dfd, name, flags, 0)
	if err != unix.EACCES {
		return fd, err
	}
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return -1, err
	}
	if unix.Fchmodat(dfd, name, st.Mode&0o7777|0o700, 0) != nil {
		return -1, err
	}
	return unix.Openat(dfd, name, flags, 0)
}

func lstatNoFollow(root, rel string) (*unix.Stat_t, error) {
	dfd, name, err := openParent(root, rel)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if name == "" {
		err = unix.Fstat(dfd, &st)
	} else {
		err = unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err != nil {
		return nil, err
	}
	return &st, nil
}

func readDirNoFollow(root, rel string) ([]dirent, error) {
	fd, err := openNoFollow(root, rel, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	return direntsOf(os.NewFile(uintptr(fd), rel))
}

// direntsOf lists the directory f, with each entry's type as getdents
// gives it, and closes f.
func direntsOf(f *os.File) ([]dirent, error) {
	defer f.Close()
	ents, err := f.ReadDir(-1)
	out := make([]dirent, 0, len(ents))
	for _, e := range ents {
		t := uint8(unix.DT_REG)
		switch {
		case e.IsDir():
			t = unix.DT_DIR
		case e.Type()&os.ModeSymlink != 0:
			t = unix.DT_LNK
		case !e.Type().IsRegular():
			t = unix.DT_UNKNOWN
		}
		out = append(out, dirent{name: e.Name(), typ: t})
	}
	return out, err
}

func readFileNoFollow(root, rel string) ([]byte, error) {
	fd, err := openNoFollow(root, rel, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, unix.EINVAL
	}
	b := make([]byte, 0, fi.Size())
	buf := make([]byte, 32<<10)
	for len(b) <= maxProtectedBytes {
		n, err := f.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			break
		}
	}
	return b, nil
}

func readlinkNoFollow(root, rel string) (string, error) {
	dfd, name, err := openParent(root, rel)
	if err != nil {
		return "", err
	}
	defer unix.Close(dfd)
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(dfd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// removeNoFollow removes rel, a directory with everything beneath it.
// A path already gone is no error; one that is still there afterwards
// is.
func removeNoFollow(root, rel string) error {
	dfd, name, err := openParent(root, rel)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	defer unix.Close(dfd)
	if name == "" {
		return nil
	}
	return removeAt(dfd, name)
}

// removeAt removes name in dfd and everything beneath it. A directory
// the command made unwritable (chmod 555, which stops its owner from
// unlinking in it when the owner is not root) is made writable first.
func removeAt(dfd int, name string) error {
	err := unix.Unlinkat(dfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	fd, oerr := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if oerr != nil {
		return err // not a directory: the unlink's own failure
	}
	unix.Fchmod(fd, 0o700)
	f := os.NewFile(uintptr(fd), name)
	names, _ := f.Readdirnames(-1)
	for _, n := range names {
		removeAt(fd, n)
	}
	f.Close()
	if err := unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return err
	}
	return nil
}

// writeBack makes rel as e describes: a file by writing a new one beside
// it under a name no one can guess and renaming it over (a hard link the
// command made to the old one keeps what it wrote, the protected name
// does not), a directory, or a link. It reports whether it changed
// anything, and an error when rel is not as e describes afterwards.
func writeBack(root, rel string, e protEntry) (bool, error) {
	dfd, name, err := openParentMaking(root, rel)
	if err != nil {
		return false, err
	}
	defer unix.Close(dfd)
	if name == "" {
		return false, nil
	}
	perm := uint32(e.mode.Perm())
	switch {
	case e.mode.IsDir():
		var st unix.Stat_t
		if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if st.Mode&0o777 == perm {
				return false, nil
			}
			return true, unix.Fchmodat(dfd, name, perm, 0)
		}
		if err := removeAt(dfd, name); err != nil {
			return false, err
		}
		return true, unix.Mkdirat(dfd, name, perm)
	case e.mode&os.ModeSymlink != 0:
		if err := removeAt(dfd, name); err != nil {
			return false, err
		}
		return true, unix.Symlinkat(e.link, dfd, name)
	case e.mode.IsRegular() && !e.big:
		tmp := "." + name + ".agenthost-restore-" + strconv.FormatUint(rand.Uint64(), 36)
		fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err != nil {
			return false, err
		}
		f := os.NewFile(uintptr(fd), tmp)
		_, werr := f.Write(e.data)
		unix.Fchmod(fd, perm)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			unix.Unlinkat(dfd, tmp, 0)
			// No room to write the old contents (a disk the command
			// filled, a quota): what is there now must still go, and
			// emptying or removing it needs no room. A git config is
			// emptied (git reads an empty one as defaults), anything
			// else removed. The run's error names the path either way.
			err := errors.Join(werr, cerr)
			what := "removed"
			if e.gitConfig {
				what = "emptied"
				var st unix.Stat_t
				tfd, terr := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
				if terr == nil {
					if unix.Fstat(tfd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 || unix.Ftruncate(tfd, 0) != nil {
						what = "removed"
					}
					unix.Close(tfd)
				} else {
					what = "removed"
				}
			}
			if what == "removed" {
				if rerr := removeAt(dfd, name); rerr != nil {
					return false, errors.Join(err, rerr)
				}
			}
			return true, fmt.Errorf("its contents could not be written back (%w), so it was %s", err, what)
		}
		var st unix.Stat_t
		if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			removeAt(dfd, name)
		}
		if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
			unix.Unlinkat(dfd, tmp, 0)
			return false, err
		}
		return true, nil
	default:
		// A file too large to have been kept: remove what is there now
		// rather than leave a changed one.
		return true, removeAt(dfd, name)
	}
}
