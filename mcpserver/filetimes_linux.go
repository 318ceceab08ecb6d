package mcpserver

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// fileTimes reads the birth and access times of an open file (statx on its
// descriptor). birth is zero when the file system does not record it; ok
// is false when statx fails.
func fileTimes(f *os.File) (birth, access time.Time, ok bool) {
	var sx unix.Statx_t
	if err := unix.Statx(int(f.Fd()), "", unix.AT_EMPTY_PATH, unix.STATX_BTIME|unix.STATX_ATIME, &sx); err != nil {
		return time.Time{}, time.Time{}, false
	}
	if sx.Mask&unix.STATX_BTIME != 0 {
		birth = time.Unix(sx.Btime.Sec, int64(sx.Btime.Nsec))
	}
	if sx.Mask&unix.STATX_ATIME != 0 {
		access = time.Unix(sx.Atime.Sec, int64(sx.Atime.Nsec))
	} else {
		return time.Time{}, time.Time{}, false
	}
	return birth, access, true
}
