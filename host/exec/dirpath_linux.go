package exec

import (
	"os"
	"strconv"
	"sync"
)

// haveProcFD reports, once per process, whether /proc/self/fd can be used.
var haveProcFD = sync.OnceValue(func() bool {
	fi, err := os.Stat("/proc/self/fd")
	return err == nil && fi.IsDir()
})

// dirPath is the path the child changes into for the open directory dir:
// /proc/self/fd/N, which the child (a copy of this process until it execs)
// resolves to dir itself, whatever dir's path names by then. Without /proc
// it returns cwd, which is never used: the run then goes through the
// helper, which changes into the descriptor with fchdir, or is refused
// with ErrNoStartDir (see wrap).
func dirPath(dir *os.File, cwd string) string {
	if !haveProcFD() {
		return cwd
	}
	return "/proc/self/fd/" + strconv.Itoa(int(dir.Fd()))
}
