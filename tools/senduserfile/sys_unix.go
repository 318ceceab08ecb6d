//go:build linux || darwin

package senduserfile

import (
	"bufio"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openSource opens the file to stage for reading. O_NONBLOCK: a FIFO
// swapped in after the stat must not hang the call (it is then refused as
// not a regular file).
func openSource(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
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
