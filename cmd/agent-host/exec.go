package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agenthost/agenthost/host"
)

func init() {
	register("exec", "run a shell command with the host's limits, sandboxed: exec [--timeout D] [--no-sandbox] -- COMMAND", cmdExec)
}

// addSandboxFlags registers the sandbox flags of the subcommands that run
// commands (exec, mcp) on fs, into hf's policy, and returns a function
// that warns on stderr, after parsing, when the sandbox was turned off.
func addSandboxFlags(fs *flagSet, hf *hostFlags, stderr io.Writer) (warn func()) {
	fs.BoolVar(&hf.sandbox.Off, "no-sandbox", false, "run commands UNCONFINED, with every right of this user (default: sandboxed)")
	fs.BoolVar(&hf.sandbox.Required, "require-sandbox", false, "refuse to run a command when any part of the sandbox is missing here")
	fs.BoolVar(&hf.sandbox.Network, "network", false, "let sandboxed commands use the network")
	var allow multiFlag
	fs.Var(&allow, "allow-env", "pass the credential-looking variable `NAME` to commands (repeatable)")
	var deny multiFlag
	fs.Var(&deny, "deny-read", "another `PATH` commands may not read (repeatable)")
	return func() {
		hf.sandbox.AllowEnv = append(hf.sandbox.AllowEnv, allow...)
		hf.sandbox.DenyRead = append(hf.sandbox.DenyRead, deny...)
		if hf.sandbox.Off {
			fmt.Fprintln(stderr, "agent-host: WARNING: --no-sandbox: commands run UNCONFINED and can read your secrets, write anywhere you can and use the network")
		}
	}
}

// Exit codes of agent-host exec besides the command's own status (128+N
// when signal N killed it), after the conventions of timeout(1) and the
// shells.
const (
	execTimedOut   = 124 // the timeout elapsed
	execNotStarted = 126 // a bad cwd, a cwd outside the jail, a failure to start
	execNotFound   = 127 // no shell
	execCancelled  = 130 // interrupted (SIGINT or SIGTERM to agent-host)
)

// cmdExec runs COMMAND (the arguments after --, joined with spaces)
// through Host.Exec in the current directory, sandboxed unless
// --no-sandbox (see host.SandboxPolicy; with --json the report says what
// was enforced, and a protected path restored after the run is named on
// stderr), prints its standard output
// and standard error once it has finished (each cut to the output limit,
// head and tail kept), and exits with its status. The command runs in its
// own session, so Ctrl-C reaches agent-host, which then stops the command
// (SIGTERM to its process group, SIGKILL after the kill grace).
func cmdExec(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs, hf := newFlagSet("exec", stderr)
	timeout := fs.Duration("timeout", 0, "timeout `D` (default 2m, at most 10m; larger is clamped)")
	combined := fs.Bool("combined", false, "interleave standard error into standard output, in order")
	var env multiFlag
	fs.Var(&env, "env", "add or replace `KEY=VALUE` in the environment (repeatable)")
	warn := addSandboxFlags(fs, hf, stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "usage: agent-host exec [--timeout D] [--combined] [--env KEY=VALUE]... [--no-sandbox] [--require-sandbox] [--network] -- COMMAND")
		return 2
	}
	warn()
	h, err := hf.open()
	if err != nil {
		return fail(stderr, "exec", err, 2)
	}
	defer h.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, err := h.Exec(ctx, host.ExecRequest{
		Command:  strings.Join(pos, " "),
		Cwd:      cliCwd(h),
		Timeout:  *timeout,
		Env:      env,
		Combined: *combined,
	})
	if err != nil {
		code := execNotStarted
		if errors.Is(err, host.ErrNoShell) || errors.Is(err, exec.ErrNotFound) {
			code = execNotFound
		}
		return fail(stderr, "exec", err, code)
	}

	code := out.ShellStatus()
	switch {
	case out.TimedOut:
		code = execTimedOut
	case out.Cancelled:
		code = execCancelled
	}
	if hf.json {
		writeJSON(stdout, execJSON{
			Stdout: out.Stdout, Stderr: out.Stderr, Combined: out.Combined,
			ExitCode: out.ExitCode, Signal: out.Signal,
			TimedOut: out.TimedOut, Cancelled: out.Cancelled, Truncated: out.Truncated,
			DurationMS: out.Duration.Milliseconds(), TimeoutMS: out.Timeout.Milliseconds(),
			Sandbox: out.Sandbox,
		})
		return code
	}
	io.WriteString(stdout, out.Stdout+out.Combined)
	io.WriteString(stderr, out.Stderr)
	if sb := out.Sandbox; sb != nil {
		for _, p := range sb.Restored {
			fmt.Fprintf(stderr, "agent-host exec: sandbox: restored protected path %s\n", p)
		}
		if len(sb.Missing) > 0 {
			fmt.Fprintf(stderr, "agent-host exec: WARNING: sandbox incomplete: %s\n", strings.Join(sb.Missing, "; "))
		}
	}
	switch {
	case out.TimedOut:
		fmt.Fprintf(stderr, "agent-host exec: timed out after %v\n", out.Timeout)
	case out.Cancelled:
		fmt.Fprintln(stderr, "agent-host exec: interrupted")
	}
	return code
}

// execJSON is the --json form of an exec's output.
type execJSON struct {
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	Combined   string `json:"combined,omitempty"`
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal,omitempty"`
	TimedOut   bool   `json:"timed_out"`
	Cancelled  bool   `json:"cancelled"`
	Truncated  bool   `json:"truncated"`
	DurationMS int64  `json:"duration_ms"`
	TimeoutMS  int64  `json:"timeout_ms"`
	// Sandbox is what confined the command; absent with --no-sandbox.
	Sandbox *host.SandboxReport `json:"sandbox,omitempty"`
}
