package senduserfile

import (
	"strings"

	"golang.org/x/sys/unix"
)

// openNoLinks opens path with flag, refusing a symbolic link anywhere on
// the way (ELOOP). Without openat2 (Linux before 5.6) only the final
// component is refused.
func openNoLinks(path string, flag int) (int, error) {
	fd, err := openat2NoLinks(path, flag)
	if err == unix.ENOSYS || err == unix.EPERM {
		return unix.Open(path, flag|unix.O_NOFOLLOW, 0)
	}
	return fd, err
}

// openOnlyNoLinks opens path with flag when no component on its way is a
// symbolic link, as the kernel walks it (openat2 RESOLVE_NO_SYMLINKS);
// any error (a link, a missing part, no openat2) means "don't know". An
// absolute path so opened is its own real path but for spelling (see
// pyRealpathNoLinks): that is what lets the hook skip Python's lstat of
// every component.
//
// A path with a ".." component is "don't know" (EXDEV) without a look:
// the kernel takes ".." from wherever the directory before it is when the
// walk gets there, so a directory moved meanwhile (a rename, no link
// anywhere) makes the open land beside its new parent, a file the lexical
// real path does not name (TestOpenSourceNoLinksDotDotRename). Python's
// way (pyRealpath, then openSource of the real path, which holds no "..")
// opens what the real path names.
func openOnlyNoLinks(path string, flag int) (int, error) {
	if hasDotDot(path) {
		return -1, unix.EXDEV
	}
	return openat2NoLinks(path, flag)
}

// hasDotDot reports whether some component of path is "..".
func hasDotDot(path string) bool {
	for i := 0; ; {
		j := strings.IndexByte(path[i:], '/')
		if j < 0 {
			return path[i:] == ".."
		}
		if path[i:i+j] == ".." {
			return true
		}
		i += j + 1
	}
}

// openat2NoLinks is openat2(AT_FDCWD, path, flag, RESOLVE_NO_SYMLINKS),
// retried on EINTR and EAGAIN.
func openat2NoLinks(path string, flag int) (int, error) {
	how := unix.OpenHow{Flags: uint64(flag), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		return fd, err
	}
}

// realNoLinks returns the real path of p, an absolute path, when no
// component on its way is a symbolic link (see openOnlyNoLinks and
// pyRealpathNoLinks): one openat2 and a close instead of an lstat per
// component. ok false: don't know, take it as Python does (pyRealpath).
func realNoLinks(p string) (real string, ok bool) {
	if len(p) == 0 || p[0] != '/' {
		return "", false
	}
	fd, err := openOnlyNoLinks(p, unix.O_PATH|unix.O_CLOEXEC)
	if err != nil {
		return "", false
	}
	unix.Close(fd)
	return pyRealpathNoLinks(p), true
}

// canTellNoLinks: realNoLinks and openSourceNoLinks can answer here (for
// tests).
const canTellNoLinks = true
