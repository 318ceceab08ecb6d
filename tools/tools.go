// Package tools runs a coding agent's tools: an Invoker runs the user's
// PreToolUse hooks, the tool and the PostToolUse hooks inside one
// invalidation invocation, so that whatever shows or caches the workspace
// learns what the call may have changed, on every exit.
//
// Hooks follow Claude Code's command-hook contract (see Hook): the hook's
// JSON on standard input, exit code 2 or a "deny" decision refuses the tool,
// "updatedInput" replaces its input, "additionalContext" and
// "systemMessage" are kept for the model and the user. They run through the
// Host's Exec, with its timeout, kill and output limits.
//
// What a call publishes (see package invalidation for the delivery
// guarantees): the tool's own writes through the Host as confirmed changes
// of their canonical paths, a shell command it runs as a possible change of
// everything, and, for each hook process that was started, what the hook
// declares (Hook.Writes): nothing, a possible change of the tool's own paths,
// or, by default, a possible change of the whole workspace. A hook that was
// started may have written before it denied the tool, failed or timed out,
// so the widening holds on those exits too, and Executed tells whether the
// tool itself ran. A call that changed nothing and started no hook publishes
// nothing.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/invalidation"
)

// Tool is one tool an agent can call.
type Tool interface {
	// Name is the tool's name as hooks see it (tool_name) and match it.
	Name() string
	// Run does the work. ctx carries the call's invalidation invocation, so
	// the Host operations it makes with ctx record their changes there. The
	// output goes to PostToolUse hooks as tool_response and must be JSON (a
	// JSON string for text). A panic is not recovered: the invocation
	// publishes its notice, then the panic goes on to Invoke's caller.
	Run(ctx context.Context, call Call) (json.RawMessage, error)
}

// PathTool is a Tool that can name, before it runs, the paths a call may
// write. A hook declared WritesToolPaths is assumed to write those paths (and
// nothing else) when the tool is a PathTool; otherwise it is assumed to write
// anywhere.
type PathTool interface {
	Tool
	// Paths returns the absolute paths the call may write (canonical where
	// the tool can make them so, e.g. with Host.ResolveInJail). An error,
	// or a relative path, makes the hook count as writing anywhere.
	Paths(ctx context.Context, call Call) ([]string, error)
}

// Call is one call of a tool.
type Call struct {
	// ID is the model's id for the call (tool_use_id).
	ID string
	// Input is the tool's input, a JSON object. Invoke passes the tool the
	// input as the PreToolUse hooks left it (updatedInput).
	Input json.RawMessage
	// Cwd is the working directory: absolute, or relative to the workspace
	// root; "" is the workspace root. Invoke passes the tool the canonical
	// absolute directory.
	Cwd string
	// Host is the session's Host; Invoke sets it to Invoker.Host.
	Host *host.Host
}

// Result is what a call did.
type Result struct {
	// Output is the tool's output (nil when it did not run or panicked).
	Output json.RawMessage
	// Input is the input the tool ran with, or would have: the call's input
	// after every PreToolUse hook's updatedInput.
	Input json.RawMessage
	// Executed is true when the tool itself was entered.
	Executed bool
	// Refused is true when the tool was refused before it ran: by Permit,
	// or by a PreToolUse hook (exit code 2, permissionDecision "deny",
	// "ask" with no Ask or a "no" from it, or "continue": false).
	Refused bool
	// Reason is why the tool was refused: the hook's
	// permissionDecisionReason, its standard error for exit code 2, its
	// stopReason, or Permit's error text.
	Reason string
	// RefusedBy is the command of the hook that refused the tool ("" when
	// Permit did, or when an "ask" went unanswered or was answered no).
	RefusedBy string
	// Feedback holds what PostToolUse hooks gave back about a tool that ran:
	// the standard error of an exit code 2 and the reason of a "block"
	// decision. An agent shows it to the model.
	Feedback []string
	// AdditionalContext holds every hook's additionalContext, in order.
	AdditionalContext []string
	// SystemMessages holds every hook's systemMessage, in order.
	SystemMessages []string
	// Stop is true when a hook said "continue": false: the agent should stop
	// after this call.
	Stop bool
	// StopReason is the first such hook's stopReason.
	StopReason string
	// Hooks is every hook run, in order, with what became of it.
	Hooks []HookRun
	// Invocation is the id of the call's invalidation invocation (0 with no
	// Publisher).
	Invocation uint64
}

// ErrRefused is wrapped by Invoke's error when the tool was refused.
var ErrRefused = errors.New("tools: tool refused")

// RefusedError is Invoke's error for a refused tool; errors.Is(err,
// ErrRefused) holds.
type RefusedError struct {
	Tool   string // the tool's name
	Reason string // as Result.Reason
	By     string // the refusing hook's command, "" for Permit or Ask
}

// Error returns "tools: TOOL refused: REASON".
func (e *RefusedError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("tools: %s refused", e.Tool)
	}
	return fmt.Sprintf("tools: %s refused: %s", e.Tool, e.Reason)
}

// Unwrap returns ErrRefused.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// Invoker runs tools with hooks inside invalidation invocations. Set its
// fields before the first Invoke and do not change them afterwards; Invoke is
// then safe for concurrent use.
type Invoker struct {
	// Host runs the hooks (Exec) and is given to the tools; required.
	Host *host.Host
	// Publisher receives each call's notice; nil publishes nothing.
	Publisher *invalidation.Publisher
	// Hooks are the user's hooks, run in order: PreToolUse before the tool,
	// PostToolUse after it.
	Hooks []Hook
	// Permit, when set, is asked before any hook runs; a non-nil error
	// refuses the tool with no hook started (a permission rule).
	Permit func(ctx context.Context, tool string, input json.RawMessage) error
	// Ask answers a PreToolUse hook's permissionDecision "ask" (true runs
	// the tool). nil refuses: there is nobody to ask.
	Ask func(ctx context.Context, tool string, input json.RawMessage, reason string) bool
	// SessionID and TranscriptPath are passed to hooks as session_id and
	// transcript_path.
	SessionID      string
	TranscriptPath string

	compileOnce sync.Once
	matchers    []*regexp.Regexp // per hook; nil matches every tool
	compileErr  error
}

// Invoke runs one call of tool: Permit, the matching PreToolUse hooks, the
// tool, and, when it returned without error, the matching PostToolUse hooks,
// all inside one invalidation invocation whose notice is published when
// Invoke returns or panics. The invocation current in ctx, if any, is its
// parent (a tool that invokes another).
//
// Invoke returns the Result and:
//   - nil when the tool ran and returned nil (PostToolUse feedback and
//     hook failures are in the Result, not the error);
//   - the tool's error when it returned one;
//   - a *RefusedError (errors.Is(err, ErrRefused)) when Permit or a hook
//     refused the tool; Result.Executed is false;
//   - another error, before anything ran, for a cwd that does not resolve
//     to a directory in the jail, an input that is not valid JSON, a hook
//     matcher that is not a valid regular expression, an unknown hook
//     event, or a nil Host.
//
// A tool that panics is not recovered: the notice is published, then the
// panic goes on. A hook that cannot be started, fails (exit code other than
// 0 and 2), times out or prints bad JSON is a non-blocking error, recorded
// in Result.Hooks, as in Claude Code.
func (iv *Invoker) Invoke(ctx context.Context, tool Tool, call Call) (res Result, err error) {
	if iv.Host == nil {
		return res, errors.New("tools: Invoker.Host is nil")
	}
	if err := iv.compile(); err != nil {
		return res, err
	}
	if len(call.Input) > 0 && !json.Valid(call.Input) {
		return res, errors.New("tools: Call.Input is not valid JSON")
	}
	cwd, err := iv.Host.ResolveInJail(ctx, call.Cwd, ".")
	if err != nil {
		return res, fmt.Errorf("tools: cwd: %w", err)
	}
	if st, err := iv.Host.Stat(ctx, cwd, "."); err != nil || !st.IsDir {
		if err == nil {
			err = fmt.Errorf("%s: not a directory", cwd)
		}
		return res, fmt.Errorf("tools: cwd: %w", err)
	}
	call.Cwd, call.Host = cwd, iv.Host
	name := tool.Name()
	res.Input = call.Input

	ctx, inv := iv.Publisher.Begin(ctx, name)
	res.Invocation = inv.ID()
	returned := false
	defer func() {
		switch {
		case !returned:
			inv.SetOutcome(invalidation.OutcomePanicked)
		case res.Refused:
			inv.SetOutcome(invalidation.OutcomeRefused)
		case err != nil:
			inv.SetOutcome(invalidation.OutcomeFailed)
		}
		inv.End()
	}()

	if iv.Permit != nil {
		if perr := iv.Permit(ctx, name, call.Input); perr != nil {
			res.Refused, res.Reason = true, perr.Error()
			returned = true
			return res, &RefusedError{Tool: name, Reason: res.Reason}
		}
	}

	// PreToolUse: each matching hook sees the input as the ones before it
	// left it; the first refusal stops the rest.
	ask, askReason := false, ""
	for i := range iv.Hooks {
		h := &iv.Hooks[i]
		if h.Event != PreToolUse || !iv.matches(i, name) {
			continue
		}
		run, out := iv.runHook(ctx, inv, h, tool, call, nil)
		res.Hooks = append(res.Hooks, run)
		res.collect(out)
		if out.refuse {
			res.Refused, res.Reason, res.RefusedBy = true, out.reason, h.Command
			break
		}
		if out.ask {
			ask, askReason = true, out.reason
		}
		if out.updatedInput != nil {
			call.Input = out.updatedInput
			res.Input = call.Input
		}
	}
	if !res.Refused && ask && (iv.Ask == nil || !iv.Ask(ctx, name, call.Input, askReason)) {
		res.Refused, res.Reason = true, askReason
		if res.Reason == "" {
			res.Reason = "a hook asked for confirmation and nobody confirmed"
		}
	}
	if res.Refused {
		returned = true
		return res, &RefusedError{Tool: name, Reason: res.Reason, By: res.RefusedBy}
	}

	inv.SetExecuted()
	res.Executed = true
	res.Output, err = tool.Run(ctx, call)
	if err != nil {
		returned = true
		return res, err
	}

	for i := range iv.Hooks {
		h := &iv.Hooks[i]
		if h.Event != PostToolUse || !iv.matches(i, name) {
			continue
		}
		run, out := iv.runHook(ctx, inv, h, tool, call, res.Output)
		res.Hooks = append(res.Hooks, run)
		res.collect(out)
		if out.feedback != "" {
			res.Feedback = append(res.Feedback, out.feedback)
		}
	}
	returned = true
	return res, nil
}

// collect keeps what every hook may say, whatever its event.
func (res *Result) collect(out hookOutcome) {
	if out.additionalContext != "" {
		res.AdditionalContext = append(res.AdditionalContext, out.additionalContext)
	}
	if out.systemMessage != "" {
		res.SystemMessages = append(res.SystemMessages, out.systemMessage)
	}
	if out.stop {
		res.Stop = true
		if res.StopReason == "" {
			res.StopReason = out.stopReason
		}
	}
}

func (iv *Invoker) compile() error {
	iv.compileOnce.Do(func() {
		iv.matchers = make([]*regexp.Regexp, len(iv.Hooks))
		for i, h := range iv.Hooks {
			if h.Event != PreToolUse && h.Event != PostToolUse {
				iv.compileErr = fmt.Errorf("tools: hook %q: event %q is not %s or %s", h.Command, h.Event, PreToolUse, PostToolUse)
				return
			}
			if h.Matcher == "" || h.Matcher == "*" {
				continue
			}
			re, err := regexp.Compile("^(?:" + h.Matcher + ")$")
			if err != nil {
				iv.compileErr = fmt.Errorf("tools: hook %q: matcher: %w", h.Command, err)
				return
			}
			iv.matchers[i] = re
		}
	})
	return iv.compileErr
}

func (iv *Invoker) matches(i int, tool string) bool {
	re := iv.matchers[i]
	return re == nil || re.MatchString(tool)
}
