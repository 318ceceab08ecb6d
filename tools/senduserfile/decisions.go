package senduserfile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const (
	// LogRotateBytes is the size at which the decision log is rotated: the
	// script's 8 MiB, some 20,000 rows.
	LogRotateBytes = 8 << 20
	// LogKeep is how many rotated logs are kept (decisions.jsonl.1 to .3).
	LogKeep = 3
	// maxInputChars caps the "input" field of a row, in characters.
	maxInputChars = 2048
	// logSchema is the row format's version.
	logSchema = 1
	// maxConfigBytes bounds what is read of the harness's config.json: it
	// holds a few settings, so 1 MiB is far more than any real one, and a
	// longer file counts as unreadable (logging stays on).
	maxConfigBytes = 1 << 20
)

// errTooLarge is wrapped by readLimited's error for a file longer than
// its limit.
var errTooLarge = errors.New("senduserfile: file longer than its limit")

// readLimited reads r (the file at path) to its end when that is at most
// limit bytes, and refuses it with errTooLarge as soon as it is longer,
// having read no more than limit+1 bytes.
func readLimited(r io.Reader, path string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(b)) > limit {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%d bytes)", errTooLarge, limit)}
	}
	return b, nil
}

// Decision is one call to be logged.
type Decision struct {
	// SessionID is the hook's session_id (nil: it had none, logged as null).
	SessionID *string
	// Result is what the call did.
	Result Result
	// Entries is the number of entries in tool_input.files.
	Entries int
	// Names, when not nil, are the names the row's input lists (the hook's
	// are the script's: every string entry's last component as the call
	// leaves it); nil lists the staged and kept files.
	Names []string
}

// LogPath returns the decision log's path for the environment getenv reads
// (nil: the process's): ${HARNESS_HOME:-$HOME}/.local/state/agent-harness/
// decisions.jsonl, "" when neither is set.
func LogPath(getenv func(string) string) string {
	base := harnessHome(getenv)
	if base == "" {
		return ""
	}
	return filepath.Join(base, ".local", "state", "agent-harness", "decisions.jsonl")
}

// harnessHome is ${HARNESS_HOME:-$HOME}.
func harnessHome(getenv func(string) string) string {
	if h := lookupEnv(getenv, "HARNESS_HOME"); h != "" {
		return h
	}
	return lookupEnv(getenv, "HOME")
}

// LoggingEnabled reports whether decisions are logged: they are unless
// ${HARNESS_HOME:-$HOME}/.config/agent-harness/config.json says
// {"telemetry": {"decisions": false}}. A missing or unreadable config
// leaves logging on; so does one that is not a regular file (a FIFO is
// not waited on) or is longer than 1 MiB.
func LoggingEnabled(getenv func(string) string) bool {
	base := harnessHome(getenv)
	if base == "" {
		return false
	}
	data, err := readSmallRegular(filepath.Join(base, ".config", "agent-harness", "config.json"), maxConfigBytes)
	if err != nil {
		return true
	}
	var cfg struct {
		Telemetry struct {
			Decisions *bool `json:"decisions"`
		} `json:"telemetry"`
	}
	if json.Unmarshal(data, &cfg) != nil || cfg.Telemetry.Decisions == nil {
		return true
	}
	return *cfg.Telemetry.Decisions
}

// LogDecision appends d's row to the decision log (see LogPath): one JSON
// line, keys sorted, written with one write(2) in append mode, in a
// directory made 0700 and a file made 0600. A log (or its lock) that is
// not a regular file is not written, and not waited on: a FIFO there
// returns an error wrapping host.ErrNotRegular at once. A short write (a
// full disk, a file size limit) is cut back to the log's size before it
// and returns an error wrapping io.ErrShortWrite, so that the log stays
// whole JSON lines. Before it writes, a log of
// LogRotateBytes or more is rotated (decisions.jsonl.1 to .3, the oldest
// dropped) by whichever process gets the log's lock without waiting; the
// others just append. It does nothing when logging is off
// (LoggingEnabled). Errors are returned for tests; the hook ignores them.
func LogDecision(d Decision, getenv func(string) string) error {
	p := LogPath(getenv)
	if p == "" || !LoggingEnabled(getenv) {
		return nil
	}
	line := decisionRow(d, time.Now())
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	if unlock, ok := tryLock(p + ".lock"); ok {
		if fi, err := os.Stat(p); err == nil && fi.Size() >= LogRotateBytes {
			rotate(p)
		}
		defer unlock()
	}
	return appendLine(p, line)
}

// rotate shifts p to p.1, p.1 to p.2 and so on, dropping p.LogKeep.
func rotate(p string) {
	for i := LogKeep - 1; i >= 1; i-- {
		os.Rename(p+"."+strconv.Itoa(i), p+"."+strconv.Itoa(i+1))
	}
	os.Rename(p, p+".1")
}

// decisionRow is d's log line, newline included, as Python's
// json.dumps(row, sort_keys=True) writes it.
func decisionRow(d Decision, now time.Time) []byte {
	res := d.Result
	names := d.Names
	if names == nil {
		for _, f := range res.Files {
			switch f.Status {
			case Staged, Reused:
				names = append(names, path.Base(filepath.ToSlash(f.Path)))
			case Kept:
				names = append(names, pyBasename(f.Given))
			}
		}
	}
	input := strings.Join(names, ", ")
	sum := sha256.Sum256([]byte(input))
	answer := "staged"
	switch {
	case res.Staged > 0 && res.Kept > 0:
		answer = "staged+kept"
	case res.Staged == 0:
		answer = "kept"
	}
	// The id names a row; it keeps nothing secret. math/rand/v2's
	// generator is seeded by the runtime from the system's entropy at
	// start, and costs no system call (crypto/rand's first read sets up
	// per-thread getrandom state: a page fault and more, at every hook).
	var id [16]byte
	binary.LittleEndian.PutUint64(id[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(id[8:], rand.Uint64())
	sid := []byte("null")
	if d.SessionID != nil {
		sid = pyString(nil, *d.SessionID)
	}
	var o pyObject // keys in sorted order
	o.int("bytes_staged", res.BytesStaged)
	o.str("decision_id", hex.EncodeToString(id[:]))
	o.str("deterministic_answer", answer)
	o.int("files", int64(d.Entries))
	o.str("input", capRunes(input, maxInputChars))
	o.str("input_sha256", hex.EncodeToString(sum[:]))
	o.int("kept", int64(res.Kept))
	o.str("kind", "decision")
	o.field("outcome", []byte("null"))
	o.str("point", hookPoint)
	o.int("schema_version", logSchema)
	o.field("session_id", sid)
	o.int("staged", int64(res.Staged))
	o.str("ts", now.UTC().Format("2006-01-02T15:04:05Z"))
	return append(o.bytes(), '\n')
}

// pyBasename is Python's os.path.basename on POSIX: what follows the last
// slash.
func pyBasename(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}
