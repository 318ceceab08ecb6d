package exec

import (
	"sort"
	"sync"

	"golang.org/x/sys/unix"
)

// Sandboxed runs are serialised per root, from the protected set's
// baseline to its restore. Two runs that overlapped on one root could not
// both be right: the second would take the first one's plant (a hook) as
// its baseline and write it back after the first run had removed it. The
// hold is an in-process mutex keyed by the root directory's device and
// inode, then flock(LOCK_EX) on a descriptor of the root directory, which
// other processes (another agent-host) see too. Roots are taken in
// device+inode order, so two runs over overlapping sets of roots cannot
// deadlock.

type rootID struct{ dev, ino uint64 }

var (
	rootLocksMu sync.Mutex
	rootLocks   = map[rootID]*sync.Mutex{}
)

func rootLock(id rootID) *sync.Mutex {
	rootLocksMu.Lock()
	defer rootLocksMu.Unlock()
	m := rootLocks[id]
	if m == nil {
		m = &sync.Mutex{}
		rootLocks[id] = m
	}
	return m
}

// lockRoots waits until it holds every root that can be opened and
// returns the function that lets them go. A root that cannot be opened is
// not held (there is nothing in it to protect either).
func lockRoots(roots []string) func() {
	type held struct {
		id rootID
		fd int
	}
	var hs []held
	seen := map[rootID]bool{}
	for _, r := range roots {
		fd, err := unix.Open(r, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			unix.Close(fd)
			continue
		}
		id := rootID{uint64(st.Dev), st.Ino}
		if seen[id] {
			unix.Close(fd)
			continue
		}
		seen[id] = true
		hs = append(hs, held{id, fd})
	}
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].id.dev != hs[j].id.dev {
			return hs[i].id.dev < hs[j].id.dev
		}
		return hs[i].id.ino < hs[j].id.ino
	})
	for _, h := range hs {
		rootLock(h.id).Lock()
		for unix.Flock(h.fd, unix.LOCK_EX) == unix.EINTR {
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for i := len(hs) - 1; i >= 0; i-- {
				unix.Close(hs[i].fd) // drops the flock
				rootLock(hs[i].id).Unlock()
			}
		})
	}
}
