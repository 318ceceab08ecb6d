package fs

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
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

// noTmpfile, when set (by tests), makes the writer use the named
// fallback even where O_TMPFILE works.
var noTmpfile atomic.Bool

// tempName returns a fresh TempPrefix name.
func tempName() string {
	var rnd [8]byte
	rand.Read(rnd[:])
	return TempPrefix + hex.EncodeToString(rnd[:])
}

// isTempName reports whether name is one of the writer's temporary names.
func isTempName(name string) bool { return strings.HasPrefix(name, TempPrefix) }
