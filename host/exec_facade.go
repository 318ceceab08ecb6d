package host

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	hostexec "github.com/agenthost/agenthost/host/exec"
	"github.com/agenthost/agenthost/invalidation"
)

// ExecRequest is one shell command for Exec: Command, Cwd, Timeout, and
// optionally Env, Combined, Shell, a stricter Sandbox, Stdin (nil:
// /dev/null; an *os.File is passed as it is, any other reader is copied
// into a pipe), Stdout and Stderr writers that get the output as it comes,
// uncut, instead of the capture, and MaxOutputBytes (the capture limit of
// this run). It is [hostexec.Request], where each field is documented:
// go doc github.com/agenthost/agenthost/host/exec Request.
type ExecRequest = hostexec.Request

// ExecOutput is what a command produced: its streams within the output
// limit (head and tail kept), exit code or signal, whether it timed out,
// was cancelled or was truncated, how long it took, and what sandbox
// confined it (Sandbox, nil when none). It is
// [hostexec.Output], where each field is documented: go doc
// github.com/agenthost/agenthost/host/exec Output.
type ExecOutput = hostexec.Output

// ErrNoShell is wrapped by Exec's error when neither bash nor sh can be
// found (or ExecRequest.Shell names no program).
var ErrNoShell = hostexec.ErrNoShell

// ErrNoSandbox is wrapped by Exec's and RunCapture's error when this
// kernel, OS or program cannot give every part of the sandbox and the
// policy is not BestEffort; the message names what is missing and how to
// get it. Nothing was started.
var ErrNoSandbox = hostexec.ErrNoSandbox

// ErrUnsafeWorkspace is wrapped by Exec's and RunCapture's error when a
// sandboxed command created or changed a protected path (a hook, a git
// config, an .envrc) that could not be removed or put back afterwards;
// the message names each path. The ExecOutput is complete.
var ErrUnsafeWorkspace = hostexec.ErrUnsafeWorkspace

// ErrSecretDenied is wrapped by CheckSecret's error for a file the
// sandbox denies commands (a denied path, beneath one, or a hard link to
// one).
var ErrSecretDenied = hostexec.ErrSecretDenied

// ErrSecretUnchecked is wrapped by CheckSecret's error for a hard-linked
// file whose search among the denied directories stopped at a bound: it
// may be a secret, and is treated as one.
var ErrSecretUnchecked = hostexec.ErrSecretUnchecked

// ExecSandbox is a request's own sandbox (ExecRequest.Sandbox): it can
// only make the Host's policy stricter. Its fields are those of
// [hostexec.Sandbox]: go doc github.com/agenthost/agenthost/host/exec Sandbox.
type ExecSandbox = hostexec.Sandbox

// SandboxReport says what confined a run (ExecOutput.Sandbox): the parts
// enforced and missing and the protected paths restored, as in
// [hostexec.Report]: go doc github.com/agenthost/agenthost/host/exec Report.
type SandboxReport = hostexec.Report

// Exec runs req.Command through the shell (bash if on PATH, else sh; not a
// login shell) in the directory req.Cwd, which is resolved like the cwd of
// the file operations (absolute, or relative to the workspace root; ""
// is the workspace root) and, under Jailed, must lie inside a root.
//
// Unless Config.Sandbox is Off, the command runs sandboxed (see
// SandboxPolicy): it can write only inside the roots as they are when it
// starts (AddRoot and RemoveRoot apply to commands started afterwards)
// and its private temporary directory, and ExecOutput.Sandbox says what
// was enforced and which protected paths were restored after it. A
// request's own ExecRequest.Sandbox only makes the policy stricter: it
// may set SessionCache, take BestEffort back, turn Network off, and add
// DenyRead, ScrubEnv and Protect entries, and Read paths (shown
// read-only: what the embedder's own code needs shown, such as a hook's
// script; never taken from a command line); its Roots, WritePaths,
// AllowEnv and ReadHome are ignored (the Host's are used). With the
// policy Off, a request's Sandbox still confines that request. The
// program must call SandboxMain at the top of main (agent-host does);
// without it every sandboxed command fails with ErrNoSandbox (unless the
// policy is BestEffort, when it runs unconfined and the report says so).
//
// The error is non-nil when nothing was started: a cwd outside every
// root (ErrEscape), missing (fs.ErrNotExist) or not a directory; no shell
// (ErrNoShell); a sandbox this system cannot give (ErrNoSandbox, unless
// the policy is BestEffort); a ctx already done; or after a run whose
// protected paths could not all be put back (ErrUnsafeWorkspace, with
// the ExecOutput complete). A non-zero exit, a signal, a timeout
// or a cancellation is reported in ExecOutput with a nil error; the
// command never outlives the call, nor does anything it started in its
// process group (see host/exec for the kill sequence and the limits).
//
// A command may change any file, so after a run the invocation in ctx (see
// package invalidation) is told that contents, names and git metadata may
// all have changed. The notice stays "possible change of all paths" for a
// sandboxed command too, but a subscriber may rely on one more thing: a
// sandboxed command (ExecOutput.Sandbox reporting "landlock-fs") can
// only write inside the roots, so nothing outside them has changed.
func (h *Host) Exec(ctx context.Context, req ExecRequest) (ExecOutput, error) {
	return h.exec(ctx, req, true)
}

// ExecUnconfined is Exec without the Host's sandbox, whatever its policy
// (a request's own ExecRequest.Sandbox still applies). It is for the
// embedding program's own trusted commands, such as a hook the user
// declared unsandboxed (tools.Hook.Unsandboxed), never for a command a
// model wrote.
func (h *Host) ExecUnconfined(ctx context.Context, req ExecRequest) (ExecOutput, error) {
	return h.exec(ctx, req, false)
}

func (h *Host) exec(ctx context.Context, req ExecRequest, confine bool) (ExecOutput, error) {
	dir, canon, err := h.openDir(ctx, req.Cwd)
	if err != nil {
		return ExecOutput{}, err
	}
	defer dir.Close()
	policy := h.cfg.Sandbox
	if !confine {
		policy = SandboxPolicy{Off: true}
	}
	sb, closeRoots, err := h.sandboxFor(ctx, policy, req.Sandbox)
	if err != nil {
		return ExecOutput{}, err
	}
	defer closeRoots()
	req.Cwd, req.Dir, req.Sandbox = canon, dir, sb
	out, err := h.runner.Exec(ctx, req)
	if err == nil || errors.Is(err, ErrUnsafeWorkspace) {
		mayHaveChangedAnything(ctx) // the command ran
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
	sb, closeRoots, err := h.sandboxFor(ctx, h.cfg.Sandbox, nil)
	if err != nil {
		return ExecOutput{}, err
	}
	defer closeRoots()
	out, err := h.runner.Capture(ctx, hostexec.Capture{
		Program: program, Args: args, Cwd: canon, Dir: dir, Timeout: timeout, Sandbox: sb,
	})
	if err == nil || errors.Is(err, ErrUnsafeWorkspace) {
		mayHaveChangedAnything(ctx) // the command ran
	}
	return out, err
}

// Home is the home directory the Host's ~ and its commands' sandbox
// mean: Config.Home, else the process's (os.UserHomeDir; "" when it has
// none).
func (h *Host) Home() string {
	if h.cfg.Home != "" {
		return h.cfg.Home
	}
	home, _ := os.UserHomeDir()
	return home
}

// SandboxMissing returns, without running anything, the parts of the
// Host's sandbox this system or program will not give (see
// host/exec.Missing): nil when every part is there, or when the policy
// is Off. A BestEffort caller says it before a command starts.
func (h *Host) SandboxMissing() []string {
	if h.cfg.Sandbox.Off {
		return nil
	}
	return hostexec.Missing()
}

// SandboxPolicy returns the Host's policy for commands (Config.Sandbox).
func (h *Host) SandboxPolicy() SandboxPolicy { return h.cfg.Sandbox }

// SandboxMain must be called first thing in main by a program whose Host
// sandboxes commands (see host/exec.SandboxMain): a sandboxed command is
// started by running the program again as a helper, and in that process
// SandboxMain does the helper's work and never returns.
func SandboxMain() { hostexec.SandboxMain() }

// sandboxFor returns the sandbox of one run: the policy p made
// stricter by req, with the roots as they are now, opened through the
// jail so that a root swapped for a link cannot widen the rules. nil
// when the policy is Off and req asks for nothing. The caller calls done
// once the run has returned.
func (h *Host) sandboxFor(ctx context.Context, p SandboxPolicy, req *ExecSandbox) (sb *ExecSandbox, done func(), err error) {
	done = func() {}
	if p.Off && req == nil {
		return nil, done, nil
	}
	// The caches go beneath the workspace only where the Host's own walk
	// would hide them (host/exec.CacheDir's .gitignore).
	sb = &ExecSandbox{Home: h.cfg.Home, WorkTree: h.walkState().InWorkTree}
	if !p.Off {
		sb.Required = p.Required
		sb.BestEffort = p.BestEffort
		sb.Network = p.Network
		sb.ReadHome = append(sb.ReadHome, p.ReadHome...)
		sb.Read = append(sb.Read, p.Read...)
		sb.DenyRead = append(sb.DenyRead, p.DenyRead...)
		sb.WritePaths = append(sb.WritePaths, p.WritePaths...)
		sb.AllowEnv = append(sb.AllowEnv, p.AllowEnv...)
		sb.ScrubEnv = append(sb.ScrubEnv, p.ScrubEnv...)
		sb.Protect = append(sb.Protect, p.Protect...)
		sb.SessionCache = p.SessionCache
	}
	if req != nil {
		sb.Required = sb.Required || req.Required
		sb.BestEffort = sb.BestEffort && req.BestEffort
		// What the embedder's code shows the command (a hook's script;
		// tools.Invoker sets it from the user's declaration): never from
		// a command line, which may be a model's.
		sb.Read = append(sb.Read, req.Read...)
		sb.SessionCache = sb.SessionCache || req.SessionCache
		sb.Network = sb.Network && req.Network && !p.Off
		sb.DenyRead = append(sb.DenyRead, req.DenyRead...)
		sb.ScrubEnv = append(sb.ScrubEnv, req.ScrubEnv...)
		sb.Protect = append(sb.Protect, req.Protect...)
	}
	var dirs []*os.File
	done = func() {
		for _, d := range dirs {
			d.Close()
		}
	}
	for _, root := range h.Roots() {
		d, canon, err := h.openDir(ctx, root)
		if err != nil {
			continue // removed meanwhile: not writable then
		}
		dirs = append(dirs, d)
		sb.Roots = append(sb.Roots, canon)
	}
	sb.RootDirs = dirs
	return sb, done, nil
}

// mayHaveChangedAnything records that a command ran: it may have changed
// any file, name or git state.
func mayHaveChangedAnything(ctx context.Context) {
	invalidation.FromContext(ctx).MayChangeAll(
		invalidation.ScopeContent|invalidation.ScopeTree|invalidation.ScopeGit,
		invalidation.CauseTool)
}

// IsSecret reports whether the Host's sandbox policy denies commands the
// file whose real path (links resolved) is real and whose stat, as opened,
// is fi (nil if unknown): one of the default secrets under Home
// (host/exec.DefaultDenyRead) or of SandboxPolicy.DenyRead, beneath one, or
// the same file by device and inode. Tools that copy files into the roots
// (SendUserFile's outbox) refuse such a source, so that no copy puts a
// secret within a sandboxed command's reach. It holds whether or not the
// sandbox is Off.
//
// It is CheckSecret(real, fi) != nil: a check that could not finish
// answers true.
func (h *Host) IsSecret(real string, fi fs.FileInfo) bool {
	return h.CheckSecret(real, fi) != nil
}

// CheckSecret is IsSecret with the reason: nil when the file is not a
// secret; an error wrapping ErrSecretDenied, naming the denied path, when
// it is; an error wrapping ErrSecretUnchecked, naming the bound that
// stopped it, when the file has hard links and the search of the denied
// directories for one could not finish (a directory of more than 10,000
// entries, or one that could not be read). A tool that copies files
// treats both errors alike: the file is not copied.
func (h *Host) CheckSecret(real string, fi fs.FileInfo) error {
	sb := &ExecSandbox{Home: h.cfg.Home, DenyRead: h.cfg.Sandbox.DenyRead}
	return sb.CheckRead(real, fi)
}
