package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/cli"
)

func init() {
	register("exec", "run a command with the host's limits, sandboxed: exec [flags] -- PROGRAM [ARG...] runs PROGRAM with exactly those arguments (argv, no shell); exec [flags] -- 'COMMAND LINE' (one argument) runs it with bash -c", cmdExec)
}

// addSandboxFlags registers the sandbox flags of the subcommands that run
// commands on fs, into hf's policy (internal/cli.AddSandboxFlags, shared
// with agent-host-mcp), and returns a function that warns on stderr, after
// parsing, when the sandbox was turned off.
func addSandboxFlags(fs *flagSet, hf *hostFlags, stderr io.Writer) (warn func()) {
	return cli.AddSandboxFlags(fs, &hf.sandbox, stderr)
}

// Exit codes of agent-host exec besides the command's own status (128+N
// when signal N killed it), after the conventions of timeout(1) and the
// shells.
const (
	execTimedOut   = 124 // the timeout elapsed
	execNotStarted = 126 // a bad cwd, a cwd outside the jail, a failure to start
	execNotFound   = 127 // no shell
	execCancelled  = 130 // interrupted (SIGINT, SIGTERM or SIGHUP to agent-host)
)

// cmdExec runs COMMAND (the arguments after --, joined with spaces)
// through Host.Exec in the current directory, sandboxed unless
// --no-sandbox (see host.SandboxPolicy; with --json the report says what
// was enforced, and a protected path restored after the run is named on
// stderr), and exits with its status.
//
// Its standard input is agent-host's when that is not a terminal (a pipe,
// a file: `agent-host exec -- wc -c < f`), else /dev/null, so a command
// never waits for a human. Its standard output and standard error go to
// agent-host's as the command writes them, byte for byte and uncut, as a
// shell would print them. With --capture or --json they are captured
// instead and printed once the command has finished, each cut to
// --max-output bytes (head and tail kept); a cut is then announced on
// stderr with the flag that raises it.
//
// The command runs in its own session, so Ctrl-C reaches agent-host,
// which then stops the command (SIGTERM to its process group, SIGKILL
// after the kill grace); so does the timeout (exit 124).
func cmdExec(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, hf := newFlagSet("exec", stderr)
	timeout := fs.Duration("timeout", 0, "timeout `D` (default 2m, at most 10m; larger is clamped)")
	combined := fs.Bool("combined", false, "interleave standard error into standard output, in order")
	capture := fs.Bool("capture", false, "capture the output and print it when the command ends, each stream cut to --max-output (head and tail kept)")
	maxOutput := nonNegativeIntFlag(fs, "max-output", 0, "with --capture or --json, keep up to `N` bytes of each stream (default 30000)")
	var env multiFlag
	fs.Var(&env, "env", "add or replace `KEY=VALUE` in the environment (repeatable)")
	warnOff := addSandboxFlags(fs, hf, stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) == 0 {
		return usageFail(stderr, "exec", "no COMMAND after --")
	}
	captured := *capture || hf.json
	if *maxOutput > 0 && !captured {
		return usageFail(stderr, "exec", "--max-output applies to --capture and --json (without them the output is streamed uncut)")
	}
	if *maxOutput > 0 && *maxOutput < minMaxOutput {
		return usageFail(stderr, "exec", "--max-output must be at least %d (room for the head, the tail and the line that marks the cut)", minMaxOutput)
	}
	// One processor for an unsandboxed one-shot exec, which mostly waits
	// for its command: with a second P idle beside one in a system call
	// the runtime keeps its monitor thread polling every 20 µs and starts
	// threads to look for work that never comes (0.1-0.3 ms per run,
	// measured). Not with the sandbox, whose set-up runs goroutines
	// while the helper starts: there the one P made a run slower (19.9 ->
	// 23.1 ms at load 16), each waiting for the monitor to hand it over.
	if exitAfterRun && hf.sandbox.Off {
		runtime.GOMAXPROCS(1)
	}
	intr := catchInterrupts() // installed while the Host is opened and the shell found
	defer intr.stop()
	warnOff()
	h, err := hf.open()
	if err != nil {
		return fail(stderr, "exec", err, 2)
	}
	defer h.Close()
	// One command and exit: the sandbox's look at whether the workspace
	// is a git work tree (Sandbox.WorkTree, through the Host's walk) sets
	// up no inotify watches. Setting up three and closing them at exit
	// made a sandboxed `exec -- true` 55-75 ms instead of 8-14 ms
	// (bench/sandbox at load 6-9).
	h.OneShot()
	cli.WarnBestEffort(h, stderr)

	ctx, stop := intr.context()
	defer stop()
	req := host.ExecRequest{
		Command:        commandLine(pos),
		Cwd:            cliCwd(h),
		Timeout:        *timeout,
		Env:            env,
		Combined:       *combined,
		Stdin:          commandStdin(stdin),
		MaxOutputBytes: *maxOutput,
	}
	if !captured {
		// A reader of our output that went away (`| head`) must not kill
		// agent-host with SIGPIPE before it has stopped the command: the
		// write fails instead, and the command's next write with it. So
		// do the messages after the run, in the same voice.
		sout, raw, release := brokenPipeIsError(stdout, rawWriter(stderr))
		defer release()
		req.Stdout, req.Stderr = sout, raw
		stderr = withWriter(stderr, raw)
	}
	out, err := h.Exec(ctx, req)
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
		// A cut is the answer's "truncated" and "max_output", not an
		// error object on stderr: the run did not fail.
		limit := h.Limits().MaxOutputBytes
		if *maxOutput > 0 {
			limit = *maxOutput
		}
		writeJSON(stdout, execJSON{
			Stdout: out.Stdout, Stderr: out.Stderr, Combined: out.Combined,
			ExitCode: out.ExitCode, Signal: out.Signal,
			TimedOut: out.TimedOut, Cancelled: out.Cancelled, Truncated: out.Truncated, MaxOutput: limit,
			DurationMS: out.Duration.Milliseconds(), TimeoutMS: out.Timeout.Milliseconds(),
			Sandbox: out.Sandbox,
		})
		return code
	}
	if captured {
		io.WriteString(stdout, out.Stdout+out.Combined)
		io.WriteString(stderr, out.Stderr)
		announceCut(stderr, out, h.Limits().MaxOutputBytes, *maxOutput, code)
	}
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

// announceCut says on stderr, when the capture cut some stream, how much
// was kept and which flag keeps more, in the error voice (a JSON object
// with --json).
func announceCut(stderr io.Writer, out host.ExecOutput, limit, asked, code int) {
	if !out.Truncated {
		return
	}
	if asked > 0 {
		limit = asked
	}
	warn(stderr, "exec", fmt.Errorf("output cut to %d bytes per stream, head and tail kept (the middle is marked \"[... N bytes omitted ...]\"); --max-output N keeps more, or drop --capture/--json to stream it uncut", limit), code)
}

// commandStdin is the command's standard input given agent-host's: the
// same file unless it is a terminal (then nil, /dev/null: a command must
// not wait for a human, nor read keys meant for agent-host).
func commandStdin(stdin io.Reader) io.Reader {
	if f, ok := stdin.(*os.File); ok {
		if f == nil || isTerminal(f) {
			return nil
		}
	}
	return stdin
}

// rawWriter is the writer under the program's stderr wrapper, for the
// command's own bytes.
func rawWriter(w io.Writer) io.Writer {
	if e, ok := w.(*errOut); ok {
		return e.Writer
	}
	return w
}

// withWriter returns stderr, the program's standard error as run wraps
// it, writing to w instead (w itself when stderr is not wrapped).
func withWriter(stderr, w io.Writer) io.Writer {
	if e, ok := stderr.(*errOut); ok {
		c := *e
		c.Writer = w
		return &c
	}
	return w
}

// minMaxOutput is the least --max-output: the capture keeps a head, a
// tail and the line between them that says how much was left out (the
// library raises a smaller limit to this; the CLI refuses it instead of
// raising it silently).
const minMaxOutput = 256

// commandLine is the shell command line that runs pos: one argument is a
// command line already (exec -- 'make && ./run'); several are a program
// and its arguments, which are quoted for the shell one by one and run
// with exec, so the shell neither splits, expands nor reinterprets them
// and the program (looked up on PATH, never a builtin or a function)
// replaces the shell: argv semantics, as timeout(1) or env(1) give.
func commandLine(pos []string) string {
	if len(pos) == 1 {
		return pos[0]
	}
	var b strings.Builder
	b.WriteString("exec")
	for _, a := range pos {
		b.WriteString(" '")
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// execJSON is the --json form of an exec's output.
type execJSON struct {
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Combined  string `json:"combined,omitempty"`
	ExitCode  int    `json:"exit_code"`
	Signal    string `json:"signal,omitempty"`
	TimedOut  bool   `json:"timed_out"`
	Cancelled bool   `json:"cancelled"`
	Truncated bool   `json:"truncated"`
	// MaxOutput is the bytes kept of each stream (--max-output, else the
	// host's limit): what Truncated was cut to.
	MaxOutput  int   `json:"max_output"`
	DurationMS int64 `json:"duration_ms"`
	TimeoutMS  int64 `json:"timeout_ms"`
	// Sandbox is what confined the command; absent with --no-sandbox.
	Sandbox *host.SandboxReport `json:"sandbox,omitempty"`
}
