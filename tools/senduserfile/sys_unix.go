//go:build linux || darwin

package senduserfile

import (
	"bufio"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openSource opens the file to stage for reading, by its real path (links
// already resolved, as Python's realpath does): no link on the way is
// followed (on Linux openat2 with RESOLVE_NO_SYMLINKS; elsewhere the final
// component only), so the file opened is the one real names, and a link
// swapped in after the resolution cannot lead the copy (or the secret
// check made on real) to another file. O_NONBLOCK: a FIFO swapped in must
// not hang the call (it is then refused as not a regular file).
func openSource(real string) (*os.File, error) {
	fd, err := openNoLinks(real, sourceFlags)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: real, Err: err}
	}
	return sourceFile(fd, real), nil
}

// sourceFlags are the flags a source is opened with.
const sourceFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC

// openSourceNoLinks opens p, an absolute path, as openSource opens a real
// path, when no component on its way is a symbolic link, and returns the
// file with its real path (pyRealpath's answer, made without a system
// call: no link, so nothing to resolve). ok is false when the kernel
// cannot say so (a link on the way, a missing part, anything that fails
// the open, no openat2): the caller then takes the real path as Python
// does, one lstat per component, and opens that. One openat2 instead of
// an lstat per component and then the open; and the file opened is the
// one the path named when its real path was taken.
func openSourceNoLinks(p string) (f *os.File, real string, ok bool) {
	if !strings.HasPrefix(p, "/") {
		return nil, "", false
	}
	fd, err := openOnlyNoLinks(p, sourceFlags)
	if err != nil {
		return nil, "", false
	}
	real = pyRealpathNoLinks(p)
	return sourceFile(fd, real), real, true
}

// sourceFile makes the *os.File of a source descriptor opened with
// O_NONBLOCK. For a regular file the flag is cleared first (a read of
// one never blocks): os.NewFile would otherwise try the descriptor on the
// runtime's poller, and the first such try sets the poller up, four
// system calls (epoll_create1, eventfd2, two epoll_ctl) that the hook
// has no use for. Anything else keeps the flag; it is refused as not a
// regular file before it is read.
func sourceFile(fd int, name string) *os.File {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		unix.FcntlInt(uintptr(fd), unix.F_SETFL, 0) // if it fails, the file stays non-blocking: still correct
	}
	return os.NewFile(uintptr(fd), name)
}

// lookupHome finds a user's home directory in /etc/passwd, as Python's
// pwd.getpwnam does for local users. (os/user would link the C library.)
func lookupHome(name string) (string, bool) {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) >= 6 && fields[0] == name {
			return fields[5], true
		}
	}
	return "", false
}
