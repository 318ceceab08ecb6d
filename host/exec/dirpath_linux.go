package exec

import (
	"os"
	"strconv"
)

// dirPath is the path the child changes into for the open directory dir:
// /proc/self/fd/N, which the child (a copy of this process until it execs)
// resolves to dir itself, whatever dir's path names by then. Without /proc
// it falls back to cwd.
func dirPath(dir *os.File, cwd string) string {
	p := "/proc/self/fd/" + strconv.Itoa(int(dir.Fd()))
	if _, err := os.Stat(p); err != nil {
		return cwd
	}
	return p
}
