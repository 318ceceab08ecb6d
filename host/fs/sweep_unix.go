//go:build linux || darwin

package fs

import (
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
)

// sweepTemps removes the leftovers of interrupted writes from d: every
// TempPrefix file whose writer is gone. A live writer holds an exclusive
// flock on its temporary file from before it has a name until it closes
// it, and the kernel drops that lock when the writer dies, so a file
// whose lock can be taken without waiting is a leftover; it is removed
// while the lock is held, and only if the name still names that file.
// Where flock does not work, a file is removed when its change time is
// older than StaleTempAge. Everything is done through d's descriptor and
// without following a link; failures are ignored (it is housekeeping).
// Every write runs it before it makes its own temporary file, so a
// directory written to by one writer at a time holds at most one
// leftover (the last interrupted write's) at any moment, and none after
// a write completes.
//
// It costs one readdir of d per write: a few microseconds for a source
// directory, about a millisecond for one of ten thousand entries.
func sweepTemps(d *jail.Dir) {
	fd, err := unix.Openat(d.Fd(), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	dir := os.NewFile(uintptr(fd), ".")
	defer dir.Close()
	for {
		names, err := dir.Readdirnames(256)
		for _, n := range names {
			if isTempName(n) {
				sweepOne(d, n)
			}
		}
		if err != nil || len(names) == 0 {
			return
		}
	}
}

func sweepOne(d *jail.Dir, name string) {
	f, err := d.OpenFile(name, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return
	}
	switch err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err {
	case nil:
		// Its writer is gone.
	case unix.EWOULDBLOCK, unix.EINTR:
		return // a live writer's
	default:
		if time.Since(time.Unix(st.Ctim.Unix())) < StaleTempAge {
			return
		}
	}
	now, err := d.Lstat(name)
	if err != nil || keyOf(now) != (fileKey{uint64(st.Dev), uint64(st.Ino)}) {
		return
	}
	d.Unlink(name)
}
