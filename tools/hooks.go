package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/invalidation"
)

// Event is when a hook runs.
type Event string

const (
	// PreToolUse hooks run before the tool and may refuse it or replace
	// its input.
	PreToolUse Event = "PreToolUse"
	// PostToolUse hooks run after a tool that returned without error and
	// may give the model feedback.
	PostToolUse Event = "PostToolUse"
)

// Writes is what a hook declares it may write. The zero value is the safe
// assumption: anywhere.
type Writes uint8

const (
	// WritesAnywhere: the hook may change any file, name or git state. Once
	// its process has started, the call's notice covers the whole workspace
	// as a possible change by a hook, whatever the hook or the tool did next.
	WritesAnywhere Writes = iota
	// WritesNothing: the hook only reads (a linter that reports, a policy
	// check); starting it records nothing.
	WritesNothing
	// WritesToolPaths: the hook may change only the paths the tool itself
	// names (a formatter run on the file just edited): a possible change of
	// those paths, when the tool is a PathTool; otherwise as WritesAnywhere.
	WritesToolPaths
)

// DefaultHookTimeout bounds a hook whose Timeout is 0: long enough for a
// formatter or a linter on one file, short enough that a stuck hook does not
// hold a tool for long. The Host's maximum exec timeout still applies.
const DefaultHookTimeout = 60 * time.Second

// Hook is one command hook, as in Claude Code's settings ("type":
// "command").
//
// The contract, as Claude Code's: the command runs through the shell (Host
// Exec, so sandboxed by the Host's policy unless Unsandboxed) in the
// call's working directory with CLAUDE_PROJECT_DIR set to the
// workspace root, and gets on standard input one JSON object with
// session_id, transcript_path (when set), cwd, hook_event_name, tool_name,
// tool_input, tool_use_id and, for PostToolUse, tool_response. Then:
//   - exit code 2 blocks: a PreToolUse hook refuses the tool with its
//     standard error as the reason; a PostToolUse hook's standard error goes
//     to Result.Feedback. Standard output is ignored.
//   - exit code 0: standard output, when it is a JSON object, is read:
//     "continue": false (with "stopReason") stops the agent and refuses a
//     tool not yet run; "systemMessage"; "hookSpecificOutput" with
//     "permissionDecision" ("allow", "deny", "ask"; deny refuses, ask asks
//     Invoker.Ask), "permissionDecisionReason", "updatedInput" (replaces the
//     tool's input) and "additionalContext"; the older top-level "decision"
//     ("block", or "approve") and "reason". Plain text is ignored.
//   - any other exit code, a timeout, a failure to start and bad JSON are
//     non-blocking errors: recorded in HookRun.Err, and the call goes on.
//
// Unlike Claude Code, hooks of one event run one after the other, in order,
// not in parallel: each PreToolUse hook sees the input as the hooks before it
// updated it, and the first refusal stops the rest, so that a refused tool
// starts no more hooks (each of which could write).
type Hook struct {
	// Event is PreToolUse or PostToolUse.
	Event Event
	// Matcher selects tools by name: "" or "*" matches every tool;
	// otherwise a regular expression that must match the whole name
	// ("Write", "Edit|Write", "mcp__.*").
	Matcher string
	// Command is the shell command.
	Command string
	// Timeout bounds the run; 0 means DefaultHookTimeout.
	Timeout time.Duration
	// Writes declares what the hook may write; the zero value,
	// WritesAnywhere, is the safe default.
	Writes Writes
	// Unsandboxed runs the hook unconfined, with every right of the user,
	// even when the Host sandboxes commands (host.SandboxPolicy). By
	// default a hook runs sandboxed like any command of the Host: it can
	// write only inside the roots, read no secret and reach no network. A
	// hook that must (a notifier that posts to a chat, a formatter that
	// writes a cache in the home directory) is declared so by the user;
	// a hook's own output cannot ask for it.
	Unsandboxed bool
}

// HookRun is what became of one hook.
type HookRun struct {
	// Event and Command are the hook's.
	Event   Event
	Command string
	// Started is true when the hook's process was started (and so may have
	// written).
	Started bool
	// ExitCode is the hook's exit status (-1 when a signal killed it; 0
	// when it did not start).
	ExitCode int
	// TimedOut is set when the hook ran past its timeout and was killed.
	TimedOut bool
	// Stdout and Stderr are the hook's output, within the Host's output
	// limit.
	Stdout, Stderr string
	// Duration is how long the hook ran, kill included.
	Duration time.Duration
	// Err is a non-blocking error: the hook could not start, exited with a
	// code other than 0 and 2, timed out, was cancelled, or printed bad JSON.
	Err error
}

// hookInput is the JSON a hook reads on standard input.
type hookInput struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path,omitempty"`
	Cwd            string          `json:"cwd"`
	HookEventName  Event           `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
}

// hookJSON is the JSON a hook may print on exit code 0.
type hookJSON struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	SystemMessage      string `json:"systemMessage"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// hookOutcome is what one hook run means for the call.
type hookOutcome struct {
	refuse            bool
	ask               bool
	reason            string
	updatedInput      json.RawMessage
	feedback          string
	additionalContext string
	systemMessage     string
	stop              bool
	stopReason        string
}

// runHook runs h for call and records into inv what h declares it may write,
// once its process has started, whatever it then did.
func (iv *Invoker) runHook(ctx context.Context, inv *invalidation.Invocation, h *Hook, tool Tool, call Call, response json.RawMessage) (run HookRun, out hookOutcome) {
	run = HookRun{Event: h.Event, Command: h.Command}
	in, err := json.Marshal(hookInput{
		SessionID:      iv.SessionID,
		TranscriptPath: iv.TranscriptPath,
		Cwd:            call.Cwd,
		HookEventName:  h.Event,
		ToolName:       tool.Name(),
		ToolInput:      rawOrNull(call.Input),
		ToolUseID:      call.ID,
		ToolResponse:   response,
	})
	if err != nil {
		run.Err = fmt.Errorf("hook input: %w", err)
		return run, out
	}

	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	req := host.ExecRequest{
		// The hook's JSON is its standard input, as Claude Code gives it;
		// the command is the user's, untouched (any shell, no temporary
		// file to leak when the hook is killed).
		Command: h.Command,
		Stdin:   bytes.NewReader(in),
		Cwd:     call.Cwd,
		Timeout: timeout,
		Env:     []string{"CLAUDE_PROJECT_DIR=" + iv.Host.WorkspaceRoot()},
	}
	// The Host would record any command as a possible change of everything;
	// the hook's declaration decides instead, recorded once it has started.
	returned := false
	defer func() {
		if !returned { // Exec panicked: whether the hook started is unknown
			inv.MayChangeAll(invalidation.ScopeAll, invalidation.CauseHook)
		}
	}()
	execute := iv.Host.Exec
	if h.Unsandboxed {
		execute = iv.Host.ExecUnconfined
	} else if p := hookScript(h.Command, iv.Host.Home()); p != "" {
		// The sandbox shows the command a view of the machine in which
		// a script outside the roots (~/.claude/hooks/check.sh) is
		// absent: the user's declaration names it, so it is shown,
		// read-only. The request keeps the Host's network and best
		// effort as they are.
		req.Sandbox = &host.ExecSandbox{Read: []string{p}, Network: true, BestEffort: true}
	}
	res, err := execute(invalidation.Without(ctx), req)
	returned = true
	if err != nil { // nothing was started (see Host.Exec)
		run.Err = fmt.Errorf("hook did not start: %w", err)
		return run, out
	}
	run.Started = true
	iv.recordHookWrites(ctx, inv, h, tool, call)
	run.ExitCode, run.TimedOut, run.Duration = res.ExitCode, res.TimedOut, res.Duration
	run.Stdout, run.Stderr = res.Stdout, res.Stderr

	switch {
	case res.TimedOut:
		run.Err = fmt.Errorf("hook timed out after %v", res.Timeout)
		return run, out
	case res.Cancelled:
		run.Err = fmt.Errorf("hook cancelled: %w", context.Cause(ctx))
		return run, out
	case res.ExitCode == 2:
		reason := strings.TrimSpace(res.Stderr)
		if h.Event == PreToolUse {
			out.refuse, out.reason = true, reason
		} else {
			out.feedback = reason
		}
		return run, out
	case res.ExitCode != 0:
		run.Err = fmt.Errorf("hook exited with code %d", res.ExitCode)
		if res.Signal != "" {
			run.Err = fmt.Errorf("hook killed by %s", res.Signal)
		}
		return run, out
	}

	stdout := bytes.TrimSpace([]byte(res.Stdout))
	if len(stdout) == 0 || stdout[0] != '{' {
		return run, out // plain text: shown in Claude Code's transcript only
	}
	var j hookJSON
	if err := json.Unmarshal(stdout, &j); err != nil {
		run.Err = fmt.Errorf("hook output: %w", err)
		return run, out
	}
	hs := j.HookSpecificOutput
	out.systemMessage = j.SystemMessage
	out.additionalContext = hs.AdditionalContext
	if j.Continue != nil && !*j.Continue {
		out.stop, out.stopReason = true, j.StopReason
		if h.Event == PreToolUse {
			out.refuse, out.reason = true, j.StopReason
		}
	}
	switch h.Event {
	case PreToolUse:
		decision, reason := hs.PermissionDecision, hs.PermissionDecisionReason
		if decision == "" { // the older top-level fields
			switch j.Decision {
			case "block":
				decision = "deny"
			case "approve":
				decision = "allow"
			}
			reason = j.Reason
		}
		switch decision {
		case "deny":
			out.refuse = true
			if out.reason == "" {
				out.reason = reason
			}
		case "ask":
			out.ask, out.reason = true, reason
		}
		if u := bytes.TrimSpace(hs.UpdatedInput); len(u) > 0 && !bytes.Equal(u, []byte("null")) {
			out.updatedInput = json.RawMessage(u)
		}
	case PostToolUse:
		if j.Decision == "block" {
			out.feedback = j.Reason
		}
	}
	return run, out
}

// recordHookWrites records into inv what a started hook may have written.
func (iv *Invoker) recordHookWrites(ctx context.Context, inv *invalidation.Invocation, h *Hook, tool Tool, call Call) {
	switch h.Writes {
	case WritesNothing:
		return
	case WritesToolPaths:
		if pt, ok := tool.(PathTool); ok {
			if paths, err := pt.Paths(ctx, call); err == nil && len(paths) > 0 {
				inv.MayChange(invalidation.ScopeContent|invalidation.ScopeTree, invalidation.CauseHook, paths...)
				return
			} else if err == nil {
				return // the tool writes nothing, so neither does the hook
			}
		}
	}
	inv.MayChangeAll(invalidation.ScopeAll, invalidation.CauseHook)
}

func rawOrNull(m json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(m)) == 0 {
		return json.RawMessage("null")
	}
	return m
}

// hookScript returns what to show a sandboxed hook of its own files: the
// directory of the script its command starts with ("/path/check.sh arg",
// "'~/.claude/hooks/x.sh'"), or the script alone when that directory is
// the home directory or holds it; "" when the command starts with no
// such path (a program on PATH, a builtin, anything quoted in a way this
// does not read).
func hookScript(command, home string) string {
	line := strings.TrimLeft(command, " \t")
	var word string
	switch {
	case strings.HasPrefix(line, "'"):
		end := strings.IndexByte(line[1:], '\'')
		if end < 0 {
			return ""
		}
		word = line[1 : 1+end]
	case strings.HasPrefix(line, "\""):
		end := strings.IndexByte(line[1:], '"')
		if end < 0 {
			return ""
		}
		word = line[1 : 1+end]
		if strings.ContainsAny(word, "$`\\") {
			return ""
		}
	default:
		end := strings.IndexAny(line, " \t\n;&|<>()")
		if end < 0 {
			end = len(line)
		}
		word = line[:end]
		if strings.ContainsAny(word, "$`\\'\"*?[") {
			return ""
		}
	}
	if strings.HasPrefix(word, "~/") && home != "" {
		word = filepath.Join(home, word[2:])
	}
	if !filepath.IsAbs(word) {
		return ""
	}
	word = filepath.Clean(word)
	dir := filepath.Dir(word)
	if dir == "/" || home != "" && (dir == home || strings.HasPrefix(home, dir+"/")) {
		return word
	}
	return dir
}
