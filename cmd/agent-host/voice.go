package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"regexp"
	"strings"
	"syscall"

	"github.com/agenthost/agenthost/host"
)

// The exit codes every subcommand shares (README, "Exit codes"). exec
// exits with its command's status instead, check-ignore and walk as git
// check-ignore and rg do, and hook as Claude Code reads a hook's code.
const (
	exitOK       = 0
	exitOther    = 1 // anything not below: permission, not a regular file, too large, ...
	exitUsage    = 2 // a bad flag, a missing or extra argument, a bad --root or --add-dir
	exitEscape   = 3 // a path outside every root
	exitNotFound = 4 // a path that does not exist
)

// exitCode is the code for err: exitEscape, exitUsage, exitNotFound or
// exitOther.
func exitCode(err error) int {
	switch errKind(err) {
	case "escape":
		return exitEscape
	case "usage":
		return exitUsage
	case "not_found":
		return exitNotFound
	}
	return exitOther
}

// errKind names err's row of the exit-code table, as --json reports it.
func errKind(err error) string {
	switch {
	case errors.Is(err, host.ErrEscape):
		return "escape"
	case errors.Is(err, errUsage), errors.Is(err, host.ErrInvalidRoot):
		return "usage"
	case errors.Is(err, iofs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return "not_found"
	}
	return "other"
}

// errUsage is wrapped by the errors of a bad command line.
var errUsage = errors.New("usage")

type usageError struct{ err error }

func (u usageError) Error() string         { return u.err.Error() }
func (u usageError) Unwrap() []error       { return []error{u.err, errUsage} }
func usageErr(err error) error             { return usageError{err} }
func usagef(format string, a ...any) error { return usageErr(fmt.Errorf(format, a...)) }

// errOut is the program's standard error, as run hands it to a subcommand:
// it remembers whether --json was given, so that fail writes a JSON object
// instead of a line.
type errOut struct {
	io.Writer
	json bool
}

// fail reports err, the error that ends subcommand name, and returns
// code: one line "agent-host NAME: MESSAGE" on stderr, or with --json one
// JSON object {"command", "error", "kind", "path" (when one is known),
// "exit_code"}. The message says each thing once and names no system call
// (see message).
func fail(stderr io.Writer, name string, err error, code int) int {
	say(stderr, name, err, code)
	return code
}

// warn reports an error the subcommand goes on after (one path of many
// that could not be judged, a directory a walk could not read), in the
// same voice as fail; exit_code in its JSON form is the code the
// subcommand will end with.
func warn(stderr io.Writer, name string, err error, code int) { say(stderr, name, err, code) }

// usageFail reports a usage problem (a missing or extra argument) with the
// synopsis and returns exitUsage.
func usageFail(stderr io.Writer, name string, format string, a ...any) int {
	err := usagef(format, a...)
	say(stderr, name, err, exitUsage)
	if e, ok := stderr.(*errOut); !ok || !e.json {
		fmt.Fprintf(stderr, "usage: agent-host %s\n", commands[name].synopsis())
	}
	return exitUsage
}

func say(stderr io.Writer, name string, err error, code int) {
	msg, path := message(name, err)
	if e, ok := stderr.(*errOut); ok && e.json {
		v := errJSON{Command: name, Error: msg, Kind: errKind(err), Path: path, ExitCode: code}
		writeJSON(stderr, v)
		return
	}
	fmt.Fprintf(stderr, "agent-host %s: %s\n", name, msg)
}

// errJSON is the --json form of an error.
type errJSON struct {
	Command  string `json:"command"`
	Error    string `json:"error"`
	Kind     string `json:"kind"` // escape, usage, not_found or other
	Path     string `json:"path,omitempty"`
	ExitCode int    `json:"exit_code"`
}

// message is err in the program's voice, and the path it concerns ("" if
// none): each thing said once ("d: is a directory", not "open d: not a
// regular file: is a directory (is a directory)"), no system call named
// ("x: no such file or directory", not "openat x: ..."), and for an escape
// the flag that widens the jail.
func message(name string, err error) (msg, path string) {
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
	return tidy(name, msg), path
}

// reason is what went wrong with a path, in a few words.
func reason(err error) string {
	var md missingDirError
	switch {
	case errors.As(err, &md):
		return md.Error()
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

// syscallOp matches a system call's name heading a part of a message
// flattened by fmt ("lstat /x: no such file"): names no user types.
var syscallOp = regexp.MustCompile(`^(lstat|fstat|fstatat|newfstatat|statx|openat|openat2|mkdirat|unlinkat|renameat|renameat2|readlinkat|linkat|symlinkat|fchdir|fchmodat|utimensat|getdents|getdents64|getwd|copy_file_range|inotify_init1|inotify_add_watch|fork/exec) `)

// tidy says each part of msg once: it drops a leading part that only
// repeats the subcommand's name ("exec: exec: ..."), a system call's name
// before a path, a part equal to the one before it ("/x: /x: ..."), and a
// closing parenthesis that repeats what was said ("is a directory (is a
// directory)").
func tidy(name, msg string) string {
	parts := strings.Split(msg, ": ")
	out := parts[:0:0]
	for i, p := range parts {
		if i < len(parts)-1 {
			p = syscallOp.ReplaceAllString(p, "")
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

// writeJSON writes v as one line of JSON, with <, > and & as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
