package fs

import (
	"errors"
	"sync"
	"time"
)

// LockTimeout bounds how long a write waits for another agenthost writer
// of the same file (in this process or another) to finish its replace.
// The lock is held for one read-modify-write (UpdateFile) or one rename
// (WriteFile): milliseconds, unless the holder is stopped. Thirty seconds
// is far beyond any honest holder and short enough that a stopped one
// gives the caller an error instead of a hang.
const LockTimeout = 30 * time.Second

// maxLockTries bounds how often lockTarget starts again because the name
// was given another file between its open and its lock. Each retry means
// another writer completed a replace, so this is only reached under a
// storm of writers; the caller then gets ErrChanged.
const maxLockTries = 1000

// ErrLocked is wrapped by a write's error when another writer held the
// file's lock for longer than LockTimeout; nothing was written.
var ErrLocked = errors.New("file is locked by another writer")

// fileLocks serialises the writers of one file inside this process, by
// the file's identity (device and inode on Unix). Every FS of the process
// (so every Host) shares it. The kernel lock (flock, see lock_unix.go) is
// taken after it, so goroutines of one process queue here, fairly, and
// only one of them at a time waits on the kernel.
var fileLocks = keyedMutex{m: map[fileKey]*keyedEntry{}}

type keyedMutex struct {
	mu sync.Mutex
	m  map[fileKey]*keyedEntry
}

type keyedEntry struct {
	mu   sync.Mutex
	refs int
}

// lock locks the mutex of k and returns its unlock.
func (km *keyedMutex) lock(k fileKey) (unlock func()) {
	km.mu.Lock()
	e := km.m[k]
	if e == nil {
		e = &keyedEntry{}
		km.m[k] = e
	}
	e.refs++
	km.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		km.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(km.m, k)
		}
		km.mu.Unlock()
	}
}
