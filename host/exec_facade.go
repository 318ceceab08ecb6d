package host

import (
	"context"
	"time"

	hostexec "github.com/agenthost/agenthost/host/exec"
	"github.com/agenthost/agenthost/invalidation"
)

// ExecRequest is one shell command for Exec: Command, Cwd, Timeout, and
// optionally Env, Combined and Shell. It is [hostexec.Request], where each
// field is documented: go doc github.com/agenthost/agenthost/host/exec Request.
type ExecRequest = hostexec.Request

// ExecOutput is what a command produced: its streams within the output
// limit (head and tail kept), exit code or signal, whether it timed out,
// was cancelled or was truncated, and how long it took. It is
// [hostexec.Output], where each field is documented: go doc
// github.com/agenthost/agenthost/host/exec Output.
type ExecOutput = hostexec.Output

// ErrNoShell is wrapped by Exec's error when neither bash nor sh can be
// found (or ExecRequest.Shell names no program).
var ErrNoShell = hostexec.ErrNoShell

// Exec runs req.Command through the shell (bash if on PATH, else sh; not a
// login shell) in the directory req.Cwd, which is resolved like the cwd of
// the file operations (absolute, or relative to the workspace root; ""
// is the workspace root) and, under Jailed, must lie inside a root.
//
// The jail decides only where the command starts. It does not confine
// what the command does: a shell command can read, write and delete
// anything the user can, inside the roots or not. Confining it needs an
// OS sandbox, which the Host does not provide.
//
// The error is non-nil only when nothing was started: a cwd outside every
// root (ErrEscape), missing (fs.ErrNotExist) or not a directory; no shell
// (ErrNoShell); a ctx already done. A non-zero exit, a signal, a timeout
// or a cancellation is reported in ExecOutput with a nil error; the
// command never outlives the call, nor does anything it started in its
// process group (see host/exec for the kill sequence and the limits).
//
// A command may change any file, so after a run the invocation in ctx (see
// package invalidation) is told that contents, names and git metadata may
// all have changed.
func (h *Host) Exec(ctx context.Context, req ExecRequest) (ExecOutput, error) {
	dir, canon, err := h.openDir(ctx, req.Cwd)
	if err != nil {
		return ExecOutput{}, err
	}
	defer dir.Close()
	req.Cwd, req.Dir = canon, dir
	out, err := h.runner.Exec(ctx, req)
	if err == nil {
		mayHaveChangedAnything(ctx)
	}
	return out, err
}

// RunCapture runs program with args directly, with no shell, so arguments
// from a model (a regular expression, a glob) reach it as written. cwd is
// resolved as for Exec; timeout 0 means the default and a larger one than
// the maximum is clamped. Capture, limits, kill and cancellation are those
// of Exec, and so are the errors, with program not found
// (errors.Is(err, os/exec.ErrNotFound)) in place of ErrNoShell.
func (h *Host) RunCapture(ctx context.Context, program string, args []string, cwd string, timeout time.Duration) (ExecOutput, error) {
	dir, canon, err := h.openDir(ctx, cwd)
	if err != nil {
		return ExecOutput{}, err
	}
	defer dir.Close()
	out, err := h.runner.RunCaptureIn(ctx, dir, program, args, canon, timeout)
	if err == nil {
		mayHaveChangedAnything(ctx)
	}
	return out, err
}

// mayHaveChangedAnything records that a command ran: it may have changed
// any file, name or git state.
func mayHaveChangedAnything(ctx context.Context) {
	invalidation.FromContext(ctx).MayChangeAll(
		invalidation.ScopeContent|invalidation.ScopeTree|invalidation.ScopeGit,
		invalidation.CauseTool)
}
