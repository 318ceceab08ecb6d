package fs

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// TempPrefix starts the name of every temporary file agenthost's writer
// gives a name to. No other program uses it, so a file named so that no
// live writer holds is a leftover of an interrupted write, and the next
// write to its directory removes it (see sweepTemps).
//
// On Linux the new contents are written to an unnamed file (O_TMPFILE),
// which a killed writer leaves nowhere; a name of this form exists only
// for the instant between linking it and renaming it over the target.
// Elsewhere (macOS, Windows, a Linux filesystem without O_TMPFILE) the
// temporary file carries such a name while it is written.
const TempPrefix = ".agenthost-tmp-"

// StaleTempAge is how old a leftover temporary file must be before a
// write removes it when it cannot tell whether its writer is alive (on a
// filesystem without flock, and on Windows). Where flock works, a
// leftover is removed at once: its writer's lock died with it. Ten
// minutes is far longer than any write of a file the host would write
// (a 64 MiB copy takes well under a second), so a live write is never
// removed under its writer.
const StaleTempAge = 10 * time.Minute

// SweepAlways is the directory size, in entries, up to which every write
// sweeps its directory for leftovers; SweepInterval is how often a
// process sweeps a larger one. Reading a directory costs about 0.15-0.5
// µs per entry (tmpfs, this VM), so 256 entries cost well under a tenth
// of an ext4 fsync; past that the cost grows with the directory while
// leftovers stay as rare as kills, so a large directory is swept at most
// once a minute per process (and always by a process's first write to
// it).
const (
	SweepAlways   = 256
	SweepInterval = time.Minute
)

// sweeps remembers, per directory (device and inode), when this process
// last swept it and how many entries it had.
var sweeps = sweepLog{m: map[fileKey]sweepEntry{}}

type sweepLog struct {
	mu sync.Mutex
	m  map[fileKey]sweepEntry
}

type sweepEntry struct {
	at      time.Time
	entries int
}

// maxSweepLog bounds the log; past it the log is cleared (a directory
// then gets swept once more, which is only a cost).
const maxSweepLog = 4096

func (l *sweepLog) due(k fileKey, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[k]
	return !ok || e.entries <= SweepAlways || now.Sub(e.at) >= SweepInterval
}

func (l *sweepLog) done(k fileKey, now time.Time, entries int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if entries <= SweepAlways {
		delete(l.m, k) // swept every time anyway
		return
	}
	if len(l.m) >= maxSweepLog {
		clear(l.m)
	}
	l.m[k] = sweepEntry{now, entries}
}

// noTmpfile, when set (by tests), makes the writer use the named
// fallback even where O_TMPFILE works.
var noTmpfile atomic.Bool

// tempName returns a fresh TempPrefix name. Its 64 bits come from
// math/rand/v2's ChaCha8, which the runtime seeds from the system's
// entropy: no other process can predict them, and none needs to fail to,
// since a temporary file is made with O_EXCL (or linkat, which does not
// replace) and a name taken is only tried again. crypto/rand's first read
// costs a one-shot process (the hook's new copy) the set-up of its
// getrandom state.
func tempName() string {
	var rnd [8]byte
	binary.LittleEndian.PutUint64(rnd[:], rand.Uint64())
	return TempPrefix + hex.EncodeToString(rnd[:])
}

// isTempName reports whether name is exactly of the form tempName gives
// (TempPrefix and 16 lowercase hex digits), so that a user's own file
// that merely starts with the prefix is never swept.
func isTempName(name string) bool {
	rest, ok := strings.CutPrefix(name, TempPrefix)
	if !ok || len(rest) != 16 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
