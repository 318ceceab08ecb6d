package senduserfile

import (
	"io/fs"
	"syscall"
)

// ctimeNs is the inode change time of fi in nanoseconds (Python's
// st_ctime_ns), 0 when unknown.
func ctimeNs(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano()
	}
	return 0
}
