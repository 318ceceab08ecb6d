package senduserfile

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/agenthost/agenthost/host/jail"
)

// oDirectory: Windows has no such flag; the jail's Dir checks the type.
const oDirectory = 0

// openSource opens the file to stage for reading.
func openSource(path string) (*os.File, error) { return os.Open(path) }

// ctimeNs is the creation time of fi in nanoseconds, which is what Python's
// st_ctime_ns is on Windows; 0 when unknown.
func ctimeNs(fi fs.FileInfo) int64 {
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		return d.CreationTime.Nanoseconds()
	}
	return 0
}

// touchDir sets the times of the directory at path to now. Windows goes by
// path: the jail's Dir there is an os.Root.
func touchDir(_ *jail.Dir, path string) error {
	now := time.Now()
	return os.Chtimes(path, now, now)
}

// removeTree removes the directory at path with everything in it, by path
// (os.RemoveAll removes links, it does not follow them).
func removeTree(_ *jail.Dir, _, path string) error { return os.RemoveAll(path) }

// lookupHome: "~user" is not expanded on Windows by this package.
func lookupHome(string) (string, bool) { return "", false }

// modTimeAt returns the mtime of the entry e of the open directory d; on
// Windows the directory listing carries it.
func modTimeAt(_ *os.File, e os.DirEntry) (time.Time, bool) {
	fi, err := e.Info()
	if err != nil || !fi.IsDir() {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}
