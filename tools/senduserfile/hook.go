package senduserfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agenthost/agenthost/host"
)

// HookConfig is what Hook needs besides its input. The zero value reads the
// process's environment and uses the script's limits.
type HookConfig struct {
	// Options are the limits of the call; Home defaults to $HOME.
	Options Options
	// Getenv reads HOME and HARNESS_HOME (for the decision log and its
	// config); nil means os.Getenv.
	Getenv func(string) string
}

// MaxInput is the largest hook input Hook acts on, in bytes: a
// SendUserFile payload is a few KiB (a session id, a cwd, a few paths), so
// 1 MiB leaves room for any real call while a caller that reads its stdin
// up to MaxInput+1 bytes holds at most that much, whatever is piped in.
// A longer input is declined as bad JSON is. (The Python hook has no such
// bound: json.load reads everything.)
const MaxInput = 1 << 20

// hookPoint names this hook in its message and its decision log.
const hookPoint = "stage-user-files"

// Hook is the Claude Code PreToolUse hook: it reads the hook's JSON (in),
// stages the files of a SendUserFile call, and returns what the hook prints
// on standard output, nil when it prints nothing. It acts only on tool_name
// "SendUserFile" with an object tool_input whose files is a list and a cwd
// that is an absolute path to an existing directory; anything else, bad
// JSON, empty input or input longer than MaxInput returns nil.
//
// When a file was staged or kept, the output is one line of JSON:
// {"systemMessage": "stage-user-files: ...", "hookSpecificOutput":
// {"hookEventName": "PreToolUse", "updatedInput": ...}}, the second member
// only when something was staged. updatedInput is tool_input with the
// entries of staged files replaced by their copies and every other byte as
// it was. The hook never decides a permission: it has no
// permissionDecision. Then one row is appended to the decision log (see
// LogDecision); a failure to log changes nothing.
func Hook(ctx context.Context, in []byte, cfg HookConfig) []byte {
	call, ok := parseHookInput(in)
	if !ok {
		return nil
	}
	if cfg.Options.Home == "" {
		cfg.Options.Home = lookupEnv(cfg.Getenv, "HOME")
	}
	var res Result
	h, err := host.New(host.Config{WorkspaceRoot: call.cwd, Home: cfg.Options.Home})
	if err != nil {
		res = withoutHost(ctx, call.cwd, call.paths, cfg.Options, err)
	} else {
		res = Stage(ctx, h, call.cwd, call.paths, cfg.Options)
		h.Close()
	}
	if res.Staged == 0 && res.Kept == 0 {
		return nil
	}
	var top pyObject
	top.str("systemMessage", message(res, scriptName))
	if res.Staged > 0 {
		repl := make(map[int]string, res.Staged)
		for i, f := range res.Files {
			if f.Status == Staged || f.Status == Reused {
				repl[i] = f.Path
			}
		}
		var hso pyObject
		hso.str("hookEventName", "PreToolUse")
		hso.field("updatedInput", rewrite(call.input, "files", call.elems, repl))
		top.field("hookSpecificOutput", hso.bytes())
	}
	LogDecision(Decision{SessionID: call.sessionID, Result: res, Entries: len(call.elems), Names: sentNames(call, res)}, cfg.Getenv)
	return append(top.bytes(), '\n')
}

// hookCall is the part of the hook's input Hook acts on.
type hookCall struct {
	cwd       string
	sessionID *string
	input     []member // tool_input's members
	elems     [][]byte // tool_input.files, raw
	paths     []string // the string elements decoded, "" for the others
}

// parseHookInput reads the hook's JSON; ok is false when the hook has
// nothing to do.
func parseHookInput(in []byte) (c hookCall, ok bool) {
	if len(in) > MaxInput {
		return c, false
	}
	// Valid text is split and its strings decoded here, as json.Unmarshal
	// into a map and strings would (jsonString): encoding/json's
	// reflection costs its first use a tenth of a millisecond.
	if !json.Valid(in) {
		return c, false
	}
	top, ok := objectMembers(in)
	if !ok {
		return c, false
	}
	if name, ok := jsonString(memberValue(top, "tool_name")); !ok || name != ToolName {
		return c, false
	}
	if c.cwd, ok = jsonString(memberValue(top, "cwd")); !ok || !filepath.IsAbs(c.cwd) || strings.IndexByte(c.cwd, 0) >= 0 {
		return c, false
	}
	if fi, err := os.Stat(c.cwd); err != nil || !fi.IsDir() {
		return c, false
	}
	if sid, ok := jsonString(memberValue(top, "session_id")); ok {
		c.sessionID = &sid
	}
	if c.input, ok = objectMembers(memberValue(top, "tool_input")); !ok {
		return c, false
	}
	var files []byte
	for _, m := range c.input {
		if m.key == "files" {
			files = m.val
		}
	}
	if files == nil {
		return c, false
	}
	if c.elems, ok = arrayElements(files); !ok || len(c.elems) == 0 {
		return c, false
	}
	c.paths = make([]string, len(c.elems))
	for i, e := range c.elems {
		if e[0] == '"' {
			c.paths[i], _ = jsonString(e)
		}
	}
	return c, true
}

// Message is the systemMessage of a call that staged or kept something:
// "stage-user-files: " and the notes joined by "; ", then ".". The files
// not copied are named as given. A file kept because the check that it is
// no secret stopped at a bound (host.ErrSecretUnchecked) gets a note of
// its own that names the bound.
func Message(res Result) string {
	return message(res, func(f File) string { return f.Given })
}

// message is Message with the files not copied named by name.
func message(res Result, name func(File) string) string {
	var notes []string
	if res.Staged > 0 {
		notes = append(notes, "copied "+strconv.Itoa(res.Staged)+" file(s) from outside the session's working directory into .agent-harness/outbox/, so Remote Control can open them")
	}
	if res.Kept > 0 {
		var kept []string
		for _, f := range res.Files {
			if f.Status == Kept {
				kept = append(kept, name(f))
			}
		}
		notes = append(notes, "could not copy "+strings.Join(kept, ", ")+" into the working directory, so Remote Control may not open it")
		for _, f := range res.Files {
			if f.Status == Kept && errors.Is(f.Err, host.ErrSecretUnchecked) {
				notes = append(notes, name(f)+" was not copied, as it may be a secret: "+
					strings.TrimPrefix(f.Err.Error(), ErrSecret.Error()+": "))
			}
		}
	}
	return hookPoint + ": " + strings.Join(notes, "; ") + "."
}

// lookupEnv reads k with f, or with os.Getenv when f is nil.
func lookupEnv(f func(string) string, k string) string {
	if f == nil {
		return os.Getenv(k)
	}
	return f(k)
}

// errNoHost is the error of every would-be-staged file when no Host could
// be made for cwd.
var errNoHost = errors.New("senduserfile: no host for the working directory")

// withoutHost is the hook's Result when no Host could be made for cwd
// (herr): nothing can be staged, so each entry the script would have
// staged is kept with errNoHost, and every other one is left alone, as
// the script leaves it.
func withoutHost(ctx context.Context, cwd string, files []string, opts Options, herr error) Result {
	s := newStager(ctx, nil, cwd, opts)
	res := Result{Files: make([]File, len(files))}
	for i, entry := range files {
		f := &res.Files[i]
		f.Given = entry
		if src := s.source(f); src != nil {
			src.Close()
			f.Status, f.Err = Kept, fmt.Errorf("%w: %v", errNoHost, herr)
		}
		if f.Status == Kept {
			res.Kept++
		}
	}
	return res
}

// scriptName is how the script names a file it could not copy: by its
// real name (source.name) when it was over the budget or the deadline or
// found no outbox, and otherwise, when copying failed, by the entry's
// last component (os.path.basename(entry.rstrip("/")) or entry).
func scriptName(f File) string {
	if f.Source != "" && (errors.Is(f.Err, ErrBudget) || errors.Is(f.Err, ErrDeadline) || errors.Is(f.Err, errNoOutbox)) {
		return pyBasename(f.Source)
	}
	if n := pyBasename(strings.TrimRight(f.Given, "/")); n != "" {
		return n
	}
	return f.Given
}

// sentNames are the names the script's log row lists: the last component
// of every string entry of files as the call leaves it (a copy's path for
// a staged one), in order; entries that are not strings are left out.
func sentNames(c hookCall, res Result) []string {
	names := []string{}
	for i, e := range c.elems {
		if e[0] != '"' {
			continue
		}
		f := res.Files[i]
		p := f.Given
		if f.Status == Staged || f.Status == Reused {
			p = f.Path
		}
		names = append(names, pyBasename(p))
	}
	return names
}
