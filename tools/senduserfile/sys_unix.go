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
	fd, err := openNoLinks(real, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: real, Err: err}
	}
	return os.NewFile(uintptr(fd), real), nil
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
