package main

import (
	"context"
	"io"

	"github.com/agenthost/agenthost/tools/senduserfile"
)

// hookUsage is hook's exit code for a bad command line: a non-blocking
// error for Claude Code, which reads 2 as "block the tool call".
const hookUsage = 1

func init() {
	register("hook", "Claude Code PreToolUse hook: stage SendUserFile files into .agent-harness/outbox", runHook)
}

// runHook is the drop-in for the stage-user-files Python hook: the hook's
// JSON on stdin, the hook's answer (or nothing) on stdout, exit code 0
// whatever the input, so that a broken call never blocks a SendUserFile
// call. --max-bytes and --deadline change the limits of a call (for tests
// and benchmarks; the defaults are the script's).
//
// Standard input is read up to senduserfile.MaxInput bytes and no
// further: a payload is a few KiB, and one longer than that is declined
// as any other input the hook cannot use (nothing printed, exit code 0;
// the rest of stdin is left unread), so memory stays bounded whatever is
// piped in.
//
// A bad command line (an unknown flag, an argument: a typo in
// settings.json) is the one error: it is printed on stderr and the exit
// code is 1, which Claude Code shows the user as a hook error while it
// still runs the call (2 would block it). The hook takes no other flag:
// it opens no Host from --root or --add-dir, its root is the call's cwd.
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newBareFlagSet("hook", stderr)
	maxBytes := fs.Int64("max-bytes", senduserfile.DefaultMaxBytes, "byte budget of a call (0: nothing may be staged)")
	deadline := fs.Duration("deadline", senduserfile.DefaultDeadline, "deadline of a call (0: already passed)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return hookUsage
	}
	if len(pos) > 0 {
		fail(stderr, "hook", usagef("takes no arguments, got %q (the hook's input is its stdin)", pos), hookUsage)
		return hookUsage
	}
	in, err := io.ReadAll(io.LimitReader(stdin, senduserfile.MaxInput+1))
	if err != nil || len(in) == 0 || len(in) > senduserfile.MaxInput {
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
