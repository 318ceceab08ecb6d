package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"strings"
	"syscall"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/rawname"
)

// The exit codes every subcommand shares (README, "Exit codes"). exec
// exits with its command's status instead, check-ignore and walk as git
// check-ignore and rg do, and hook as Claude Code reads a hook's code.
const (
	ExitOK       = 0
	ExitOther    = 1 // anything not below: permission, not a regular file, too large, ...
	ExitUsage    = 2 // a bad flag, a missing or extra argument, a bad --root or --add-dir
	ExitEscape   = 3 // a path outside every root
	ExitNotFound = 4 // a path that does not exist
)

// ExitCode is the code for err: ExitEscape, ExitUsage, ExitNotFound or
// ExitOther.
func ExitCode(err error) int {
	switch ErrKind(err) {
	case "escape":
		return ExitEscape
	case "usage":
		return ExitUsage
	case "not_found":
		return ExitNotFound
	}
	return ExitOther
}

// ErrKind names err's row of the exit-code table, as --json reports it:
// "escape", "usage", "not_found" or "other".
func ErrKind(err error) string {
	switch {
	case errors.Is(err, host.ErrEscape):
		return "escape"
	case errors.Is(err, ErrUsage), errors.Is(err, host.ErrInvalidRoot):
		return "usage"
	case errors.Is(err, iofs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return "not_found"
	}
	return "other"
}

// ErrUsage is wrapped by the errors of a bad command line.
var ErrUsage = errors.New("usage")

type usageError struct{ err error }

func (u usageError) Error() string   { return u.err.Error() }
func (u usageError) Unwrap() []error { return []error{u.err, ErrUsage} }

// UsageErr is err marked as a bad command line: its message is err's, and
// it matches both err and ErrUsage.
func UsageErr(err error) error { return usageError{err} }

// Usagef is UsageErr of fmt.Errorf(format, a...).
func Usagef(format string, a ...any) error { return UsageErr(fmt.Errorf(format, a...)) }

// ErrOut is the program's standard error, as the program hands it to a
// subcommand: it remembers whether --json was given (JSON), so that Fail
// writes a JSON object instead of a line.
type ErrOut struct {
	io.Writer
	JSON bool
}

// Plain is an error whose own message already says, in words, what is
// wrong with a path (a missing parent directory, say): the voice gives it
// as it is instead of the generic reason its errors.Is matches.
type Plain interface {
	error
	Plain()
}

// Fail reports err, the error that ends subcommand name, and returns
// code: one line "agent-host NAME: MESSAGE" on stderr, or with --json (an
// *ErrOut with JSON set) one JSON object {"command", "error", "kind",
// "path" (when one is known), "exit_code"}. The message says each thing
// once and names no system call (see Message).
func Fail(stderr io.Writer, name string, err error, code int) int {
	say(stderr, name, err, code)
	return code
}

// Warn reports an error the subcommand goes on after (one path of many
// that could not be judged, a directory a walk could not read), in the
// same voice as Fail; exit_code in its JSON form is the code the
// subcommand will end with.
func Warn(stderr io.Writer, name string, err error, code int) { say(stderr, name, err, code) }

// UsageFail reports a usage problem (a missing or extra argument) with the
// synopsis (see Describe) and returns ExitUsage.
func UsageFail(stderr io.Writer, name string, format string, a ...any) int {
	err := Usagef(format, a...)
	say(stderr, name, err, ExitUsage)
	if e, ok := stderr.(*ErrOut); !ok || !e.JSON {
		fmt.Fprintf(stderr, "usage: agent-host %s\n", Synopsis(name))
	}
	return ExitUsage
}

func say(stderr io.Writer, name string, err error, code int) {
	msg, path := Message(name, err)
	if e, ok := stderr.(*ErrOut); ok && e.JSON {
		v := ErrorJSON{Command: name, Error: msg, Kind: ErrKind(err), Path: path, PathB64: rawname.B64(path), ExitCode: code}
		WriteJSON(stderr, v)
		return
	}
	fmt.Fprintf(stderr, "agent-host %s: %s\n", name, msg)
}

// ErrorJSON is the --json form of an error, one object on stderr: the
// subcommand, the message, its kind (ErrKind), the path it concerns if
// known, and the code the subcommand exits with.
type ErrorJSON struct {
	Command  string `json:"command"`
	Error    string `json:"error"`
	Kind     string `json:"kind"` // escape, usage, not_found or other
	Path     string `json:"path,omitempty"`
	PathB64  string `json:"path_b64,omitempty"` // Path's bytes when it is not UTF-8 (see AddRaw)
	ExitCode int    `json:"exit_code"`
}

// Message is err, the error of subcommand name, in the program's voice,
// and the path it concerns ("" if none): each thing said once ("d: is a
// directory", not "open d: not a regular file: is a directory (is a
// directory)"), no system call named ("x: no such file or directory", not
// "openat x: ..."), and for an escape the flag that widens the jail.
func Message(name string, err error) (msg, path string) {
	var esc *host.EscapeError
	var pe *iofs.PathError
	switch {
	case errors.As(err, &esc):
		path = esc.Path
		msg = strings.Replace(err.Error(), esc.Error(), fmt.Sprintf(
			"%s: path escapes the allowed directories (allowed: %s; --add-dir DIR allows another)",
			esc.Path, strings.Join(esc.Roots, ", ")), 1)
	case errors.As(err, &pe):
		path = pe.Path
		msg = strings.Replace(err.Error(), pe.Error(), pe.Path+": "+reason(pe.Err), 1)
	default:
		msg = err.Error()
	}
	return Tidy(name, msg), path
}

// reason is what went wrong with a path, in a few words.
func reason(err error) string {
	var p Plain
	switch {
	case errors.As(err, &p):
		return p.Error()
	case errors.Is(err, syscall.EISDIR):
		return "is a directory"
	case errors.Is(err, syscall.ENOTDIR):
		return "not a directory"
	case errors.Is(err, syscall.ELOOP):
		return "too many levels of symbolic links"
	case errors.Is(err, iofs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, iofs.ErrExist):
		return "already exists"
	case errors.Is(err, iofs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// syscallNames are the system calls whose name heads a part of a message
// flattened by fmt ("lstat /x: no such file"): names no user types.
var syscallNames = [...]string{
	"lstat", "fstat", "fstatat", "newfstatat", "statx", "openat", "openat2",
	"mkdirat", "unlinkat", "renameat", "renameat2", "readlinkat", "linkat",
	"symlinkat", "fchdir", "fchmodat", "utimensat", "getdents", "getdents64",
	"getwd", "copy_file_range", "inotify_init1", "inotify_add_watch", "fork/exec",
}

// trimSyscall returns p without a leading system call's name and the
// space after it. It is plain string work, not a regexp: a regexp links
// the regexp compiler and the unicode package's tables into the program,
// whose initialisers every start pays for, and most runs print no error.
func trimSyscall(p string) string {
	name, rest, ok := strings.Cut(p, " ")
	if !ok {
		return p
	}
	for _, s := range syscallNames {
		if name == s {
			return rest
		}
	}
	return p
}

// Tidy says each part of msg once: it drops a leading part that only
// repeats the subcommand's name ("exec: exec: ..."), a system call's name
// before a path, a part equal to the one before it ("/x: /x: ..."), and a
// closing parenthesis that repeats what was said ("is a directory (is a
// directory)").
func Tidy(name, msg string) string {
	parts := strings.Split(msg, ": ")
	out := parts[:0:0]
	for i, p := range parts {
		if i < len(parts)-1 {
			p = trimSyscall(p)
		}
		if len(out) == 0 && p == name && i < len(parts)-1 {
			continue
		}
		if p == "getwd" && i < len(parts)-1 {
			p = "the current directory"
		}
		if len(out) > 0 && out[len(out)-1] == p {
			continue
		}
		out = append(out, p)
	}
	msg = strings.Join(out, ": ")
	for {
		open := strings.LastIndex(msg, " (")
		if open < 0 || !strings.HasSuffix(msg, ")") {
			break
		}
		inner := msg[open+2 : len(msg)-1]
		if !strings.Contains(msg[:open], inner) {
			break
		}
		msg = msg[:open]
	}
	return msg
}

// AddRaw adds to m, for each of keys whose value is a string that is not
// valid UTF-8, the key KEY_b64 with its exact bytes in standard base64
// (the rule of package internal/rawname: the string itself is written
// with U+FFFD for each bad byte, which no reader can undo). A valid
// string gets no such key. It returns m.
func AddRaw(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			if b := rawname.B64(s); b != "" {
				m[k+rawname.Suffix] = b
			}
		}
	}
	return m
}

// WriteJSON writes v to w as one line of JSON, with <, > and & as they
// are, and returns the write's error.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
