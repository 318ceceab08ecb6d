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
//
// Every write runs it before it makes its own temporary file, so a
// directory written to by one writer at a time holds at most one
// leftover (the last interrupted write's) at any moment, and none after
// a write completes. A sweep reads the whole directory (about 3 ms for
// 10,000 entries on tmpfs), so in a directory that had more than
// SweepAlways entries at its last sweep, a process sweeps at most once
// per SweepInterval: there the next write after that interval removes a
// leftover.
func sweepTemps(d *jail.Dir) {
	var st unix.Stat_t
	if unix.Fstat(d.Fd(), &st) != nil {
		return
	}
	key := fileKey{uint64(st.Dev), uint64(st.Ino)}
	if !sweeps.due(key, time.Now()) {
		return
	}
	fd, err := unix.Openat(d.Fd(), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	dir := os.NewFile(uintptr(fd), ".")
	defer dir.Close()
	entries := 0
	for {
		names, err := dir.Readdirnames(1024)
		entries += len(names)
		for _, n := range names {
			if isTempName(n) {
				sweepOne(d, n)
			}
		}
		if err != nil || len(names) < 1024 {
			break
		}
	}
	sweeps.done(key, time.Now(), entries)
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
