package exec

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// The protected set's walk reads most protected paths in groups that
// share a directory (the hooks of a .git/hooks, a git directory's
// config, config.worktree, commondir and gitdir). Each read used to walk
// from the root down to the path's directory again, one openat per
// component (openParent): a repository's sample hooks alone cost about
// 120 openat and as many close of every scan (issue 21). The walk now
// keeps the directories it reached this way open for the rest of the
// scan, by their path relative to the root, and reads beside them with
// the *at calls. They are reached as before (from the root's path, one
// component at a time, no link followed); only the descent is not
// repeated within one scan. A scan runs before the command starts or
// after its whole tree has ended, with the roots held against other
// runs (lockRoots), so a directory does not move between two reads of
// one scan but by another program of the user's.

// maxScanDirs bounds the directories a walk keeps open; past it they are
// all closed and the cache starts again.
const maxScanDirs = 32

// parentAt returns a descriptor of the directory holding rel (reached
// from the root without following links) and rel's last component. The
// descriptor belongs to the walk (closeDirs closes it). ok is false when
// rel has no parent to keep (the root itself, a path ending in "/"):
// the caller then takes the path from the root as before.
func (w *protWalker) parentAt(rel string) (dfd int, name string, ok bool, err error) {
	i := strings.LastIndexByte(rel, '/')
	dir, name := "", rel
	if i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	if name == "" || name == "." || name == ".." || rel == "" {
		return -1, "", false, nil
	}
	if fd, found := w.dirs[dir]; found {
		return fd, name, true, nil
	}
	fd, last, err := openParent(w.root, rel)
	if err != nil {
		return -1, "", true, err
	}
	if last != name { // not expected: openParent splits as above
		unix.Close(fd)
		return -1, "", false, nil
	}
	if w.dirs == nil || len(w.dirs) >= maxScanDirs {
		w.closeDirs()
		w.dirs = map[string]int{}
	}
	w.dirs[dir] = fd
	return fd, name, true, nil
}

// closeDirs closes the directories the walk kept open.
func (w *protWalker) closeDirs() {
	for _, fd := range w.dirs {
		unix.Close(fd)
	}
	w.dirs = nil
}

// lstat is lstatNoFollow(w.root, rel) through the walk's directories.
func (w *protWalker) lstat(rel string) (*unix.Stat_t, error) {
	dfd, name, ok, err := w.parentAt(rel)
	if !ok {
		return lstatNoFollow(w.root, rel)
	}
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, err
	}
	return &st, nil
}

// readlink is readlinkNoFollow(w.root, rel) through the walk's
// directories.
func (w *protWalker) readlink(rel string) (string, error) {
	dfd, name, ok, err := w.parentAt(rel)
	if !ok {
		return readlinkNoFollow(w.root, rel)
	}
	if err != nil {
		return "", err
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(dfd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// readFile is readFileNoFollow(w.root, rel) through the walk's
// directories, read with bare system calls: a protected file opened
// O_NONBLOCK (so that a FIFO in its place does not block) and wrapped in
// an os.File was offered to the runtime's poller first, three more
// system calls a file.
func (w *protWalker) readFile(rel string) ([]byte, error) {
	dfd, name, ok, err := w.parentAt(rel)
	if !ok {
		return readFileNoFollow(w.root, rel)
	}
	if err != nil {
		return nil, err
	}
	fd, err := openatOwner(dfd, name, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, unix.EINVAL
	}
	// As readFileNoFollow: up to a little past maxProtectedBytes, the
	// caller's cap deciding; a read error ends the file where it is.
	b := make([]byte, 0, min(max(st.Size, 0)+1, maxProtectedBytes+1))
	for len(b) <= maxProtectedBytes {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			break
		}
		b = b[:len(b)+n]
	}
	return b, nil
}

// readDir is readDirNoFollow(w.root, rel) through the walk's
// directories.
func (w *protWalker) readDir(rel string) ([]dirent, error) {
	dfd, name, ok, err := w.parentAt(rel)
	if !ok {
		return readDirNoFollow(w.root, rel)
	}
	if err != nil {
		return nil, err
	}
	fd, err := openatOwner(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	return direntsOf(os.NewFile(uintptr(fd), rel))
}
