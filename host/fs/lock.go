package fs

import (
	"errors"
	"fmt"
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

// lockWait is LockTimeout, shortened by tests.
var lockWait = LockTimeout

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

// keyedEntry is one file's mutex: a channel of one slot, so that a wait
// can give up (senders queue in order, so waiters are served first come,
// first served).
type keyedEntry struct {
	ch   chan struct{}
	refs int
}

// lock locks the mutex of k and returns its unlock, or fails with
// ErrLocked after LockTimeout (a holder stuck in its own callback: an
// UpdateFile whose fn writes the same file through agenthost waits for
// itself, and gets this error rather than a hang).
func (km *keyedMutex) lock(k fileKey) (unlock func(), err error) {
	km.mu.Lock()
	e := km.m[k]
	if e == nil {
		e = &keyedEntry{ch: make(chan struct{}, 1)}
		km.m[k] = e
	}
	e.refs++
	km.mu.Unlock()
	release := func() {
		km.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(km.m, k)
		}
		km.mu.Unlock()
	}
	select {
	case e.ch <- struct{}{}:
	default:
		t := time.NewTimer(lockWait)
		defer t.Stop()
		select {
		case e.ch <- struct{}{}:
		case <-t.C:
			release()
			return nil, fmt.Errorf("%w (waited %v in this process)", ErrLocked, lockWait)
		}
	}
	return func() {
		<-e.ch
		release()
	}, nil
}
