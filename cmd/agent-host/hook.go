package main

import (
	"context"
	"io"

	"github.com/agenthost/agenthost/tools/senduserfile"
)

func init() {
	register("hook", "Claude Code PreToolUse hook: stage SendUserFile files into .agent-harness/outbox", runHook)
}

// runHook is the drop-in for the stage-user-files Python hook: the hook's
// JSON on stdin, the hook's answer (or nothing) on stdout, exit code 0
// whatever happens, so that a broken hook never blocks a SendUserFile
// call. --max-bytes and --deadline change the limits of a call (for tests
// and benchmarks; the defaults are the script's).
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, _ := newFlagSet("hook", stderr)
	maxBytes := fs.Int64("max-bytes", senduserfile.DefaultMaxBytes, "byte budget of a call (0: nothing may be staged)")
	deadline := fs.Duration("deadline", senduserfile.DefaultDeadline, "deadline of a call (0: already passed)")
	if _, err := parseArgs(fs, args); err != nil {
		return 0 // a hook never fails the tool call
	}
	in, err := io.ReadAll(stdin)
	if err != nil || len(in) == 0 {
		return 0
	}
	opts := senduserfile.Options{MaxBytes: *maxBytes, Deadline: *deadline}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = -1
	}
	if opts.Deadline == 0 {
		opts.Deadline = -1
	}
	if out := senduserfile.Hook(context.Background(), in, senduserfile.HookConfig{Options: opts}); out != nil {
		stdout.Write(out)
	}
	return 0
}
