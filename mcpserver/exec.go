package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
)

type execIn struct {
	Command   string `json:"command" jsonschema:"the shell command (run with bash -c, or sh -c where bash is missing)"`
	Cwd       string `json:"cwd,omitempty" jsonschema:"the directory to run in, inside the roots (default: the workspace root)"`
	TimeoutMs int    `json:"timeoutMs,omitempty" jsonschema:"how long the command may run, in milliseconds (default and maximum are the server's)"`
}

type runCaptureIn struct {
	Program   string   `json:"program" jsonschema:"the program to run: a name looked up on PATH, or a path"`
	Args      []string `json:"args,omitempty" jsonschema:"its arguments, passed as they are: no shell, no globbing, no quoting needed"`
	Cwd       string   `json:"cwd,omitempty" jsonschema:"the directory to run in, inside the roots (default: the workspace root)"`
	TimeoutMs int      `json:"timeoutMs,omitempty" jsonschema:"how long the program may run, in milliseconds (default and maximum are the server's)"`
}

// ExecOut is the structured output of exec and run_capture.
type ExecOut struct {
	ExitCode   int    `json:"exitCode" jsonschema:"the exit code; -1 when killed by a signal"`
	Signal     string `json:"signal,omitempty" jsonschema:"the signal that killed it, e.g. SIGKILL"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	TimedOut   bool   `json:"timedOut,omitempty"`
	Cancelled  bool   `json:"cancelled,omitempty"`
	Truncated  bool   `json:"truncated,omitempty" jsonschema:"true when an output stream was cut (its head and tail are kept)"`
	DurationMs int64  `json:"durationMs"`
	// Sandbox is what confined the command; absent when the server runs
	// commands unconfined.
	Sandbox *host.SandboxReport `json:"sandbox,omitempty" jsonschema:"what confined the command: the parts enforced, the parts missing on this system, and protected paths restored after it"`
}

func (s *Server) addExecTools() {
	lim := s.h.Limits()
	confined := " The command runs in a sandbox: it can write only inside the roots and its own $TMPDIR, cannot read the user's secrets " +
		"(~/.ssh, ~/.aws, ...), has no network, and changes to git hooks, .git/config and agent settings files are undone after it; " +
		"its whole process tree ends with it."
	if p := s.h.SandboxPolicy(); p.Off {
		confined = " WARNING: the server runs commands UNCONFINED: a command can do anything the user can."
		s.log.Print("agent-host mcp: WARNING: exec and run_capture run commands UNCONFINED (the Host's sandbox is off)")
	} else if p.Network {
		confined = strings.Replace(confined, "has no network", "may use the network", 1)
	} else if len(p.AllowNet) > 0 {
		confined = strings.Replace(confined, "has no network", "reaches only these hosts, over HTTP(S) through the proxy its HTTPS_PROXY names: "+strings.Join(p.AllowNet, ", ")+
			" (the result's sandbox.net_denied lists the hosts refused)", 1)
	}
	limits := fmt.Sprintf(" The default timeout is %s, the maximum %s; each output stream is cut to %d bytes (head and tail kept). "+
		"The command's process group is killed at the timeout.",
		lim.DefaultTimeout, lim.MaxTimeout, lim.MaxOutputBytes) + confined
	addTool(s, &mcp.Tool{
		Name:        "exec",
		Description: "Run a shell command and return its exit code, standard output and standard error." + limits,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(true)},
	}, s.exec)
	addTool(s, &mcp.Tool{
		Name: "run_capture",
		Description: "Run a program directly with the given arguments (no shell: a regular expression or a glob reaches it as written) " +
			"and return its exit code, standard output and standard error." + limits,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(true)},
	}, s.runCapture)
}

func (s *Server) exec(ctx context.Context, in execIn) (*mcp.CallToolResult, ExecOut, error) {
	if strings.TrimSpace(in.Command) == "" {
		return nil, ExecOut{}, errors.New("command is empty")
	}
	out, err := s.h.Exec(ctx, host.ExecRequest{Command: in.Command, Cwd: in.Cwd, Timeout: millis(in.TimeoutMs)})
	return s.execResult(ctx, in.Cwd, out, err)
}

func (s *Server) runCapture(ctx context.Context, in runCaptureIn) (*mcp.CallToolResult, ExecOut, error) {
	if in.Program == "" {
		return nil, ExecOut{}, errors.New("program is empty")
	}
	out, err := s.h.RunCapture(ctx, in.Program, in.Args, in.Cwd, millis(in.TimeoutMs))
	if errors.Is(err, host.ErrNoSandbox) {
		return nil, ExecOut{}, fmt.Errorf("the command was not started: %v", err)
	}
	if errors.Is(err, exec.ErrNotFound) {
		return nil, ExecOut{}, fmt.Errorf("%s was not found on PATH (%v)", quote(in.Program), err)
	}
	return s.execResult(ctx, in.Cwd, out, err)
}

func millis(ms int) time.Duration {
	if ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// execResult shows a run to a model: a header line with how it ended, then
// the streams. Only a run that did not start is an error; a non-zero exit
// is information.
func (s *Server) execResult(ctx context.Context, cwd string, o host.ExecOutput, err error) (*mcp.CallToolResult, ExecOut, error) {
	if err != nil {
		if cwd == "" {
			cwd = "."
		}
		if errors.Is(err, host.ErrNoSandbox) {
			return nil, ExecOut{}, fmt.Errorf("the command was not started: %v", err)
		}
		if errors.Is(err, host.ErrNoShell) {
			return nil, ExecOut{}, fmt.Errorf("no shell to run the command with (%v); use run_capture", err)
		}
		return nil, ExecOut{}, fmt.Errorf("the command was not started: cwd %v", s.explain(ctx, cwd, err))
	}
	eo := ExecOut{
		ExitCode: o.ExitCode, Signal: o.Signal, Stdout: o.Stdout, Stderr: o.Stderr,
		TimedOut: o.TimedOut, Cancelled: o.Cancelled, Truncated: o.Truncated, DurationMs: o.Duration.Milliseconds(),
		Sandbox: o.Sandbox,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "exit code %d", o.ExitCode)
	if o.Signal != "" {
		fmt.Fprintf(&b, ", killed by %s", o.Signal)
	}
	if o.TimedOut {
		fmt.Fprintf(&b, ", timed out after %s", o.Timeout)
	}
	if o.Cancelled {
		b.WriteString(", cancelled")
	}
	if o.Truncated {
		b.WriteString(", output cut (head and tail kept)")
	}
	fmt.Fprintf(&b, " (%s)\n", o.Duration.Round(time.Millisecond))
	switch sb := o.Sandbox; {
	case sb == nil:
		b.WriteString("NOT sandboxed: the command ran with every right of the user\n")
	case len(sb.Missing) > 0:
		fmt.Fprintf(&b, "sandbox incomplete on this system: %s\n", strings.Join(sb.Missing, "; "))
	}
	if sb := o.Sandbox; sb != nil && len(sb.Restored) > 0 {
		fmt.Fprintf(&b, "protected paths changed by the command were restored: %s\n", strings.Join(sb.Restored, ", "))
	}
	if o.Stdout != "" {
		b.WriteString("--- stdout\n")
		b.WriteString(o.Stdout)
		if !strings.HasSuffix(o.Stdout, "\n") {
			b.WriteByte('\n')
		}
	}
	if o.Stderr != "" {
		b.WriteString("--- stderr\n")
		b.WriteString(o.Stderr)
		if !strings.HasSuffix(o.Stderr, "\n") {
			b.WriteByte('\n')
		}
	}
	return text(b.String()), eo, nil
}
