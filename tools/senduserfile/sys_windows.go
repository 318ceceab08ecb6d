package senduserfile

import (
	"io/fs"
	"os"
	"syscall"
)

// openSource opens the file to stage for reading.
func openSource(path string) (*os.File, error) { return os.Open(path) }

// openSourceNoLinks: not on Windows (the real path is always taken as
// Python takes it).
func openSourceNoLinks(string) (*os.File, string, bool) { return nil, "", false }

// realNoLinks: not on Windows.
func realNoLinks(string) (string, bool) { return "", false }

// canTellNoLinks: realNoLinks and openSourceNoLinks never answer here.
const canTellNoLinks = false

// ctimeNs is the creation time of fi in nanoseconds, which is what Python's
// st_ctime_ns is on Windows; 0 when unknown.
func ctimeNs(fi fs.FileInfo) int64 {
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		return d.CreationTime.Nanoseconds()
	}
	return 0
}

// lookupHome: "~user" is not expanded on Windows by this package.
func lookupHome(string) (string, bool) { return "", false }
