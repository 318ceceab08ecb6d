package main

import (
	"path/filepath"
	"testing"

	"github.com/agenthost/agenthost/internal/gittest"
)

// TestExitTable (issue 25) runs each row of the README's exit table, and
// the codes of the commands that keep their models' (check-ignore: git's;
// exec: the command's), for the subcommands that take paths.
func TestExitTable(t *testing.T) {
	gittest.Skip(t)
	w := newWorld(t)
	gittest.At(w.home, "").Init(t, w.ws)
	w.file(".gitignore", []byte("*.log\n"))
	w.file("a.txt", []byte("a\n"))
	w.file("b.log", nil)
	w.file("dir/c.txt", nil)
	outside := filepath.Join(w.out, "x")
	w.file(outside, []byte("x\n"))
	rows := []struct {
		args []string
		code int
	}{
		{[]string{"read", "a.txt"}, 0},
		{[]string{"read", "dir"}, exitOther},
		{[]string{"read", "--no-such-flag", "a.txt"}, exitUsage},
		{[]string{"read", outside}, exitEscape},
		{[]string{"read", "missing.txt"}, exitNotFound},
		{[]string{"stat", "a.txt"}, 0},
		{[]string{"stat", outside}, exitEscape},
		{[]string{"stat", "missing.txt"}, exitNotFound},
		{[]string{"rm", outside}, exitEscape},
		{[]string{"rm", "missing.txt"}, exitNotFound},
		{[]string{"mkdir", filepath.Join("no", "parent")}, exitNotFound},
		{[]string{"walk"}, 0},
		{[]string{"walk", "--sort", "path"}, 0},
		{[]string{"walk", "--sort", "path", "dir"}, 0},
		{[]string{"walk", "--sort=size"}, exitUsage},
		{[]string{"walk", "--max-depth"}, exitUsage},
		{[]string{"walk", w.out}, exitEscape},
		{[]string{"walk", "missing"}, exitNotFound},
		{[]string{"walk", "missing", w.out}, exitNotFound}, // the first fault's row
		{[]string{"check-ignore", "b.log"}, 0},
		{[]string{"check-ignore", "a.txt"}, 1},
		{[]string{"check-ignore", outside}, checkIgnoreFatal},
		{[]string{"exec", "--", "exit 7"}, 7},
		{[]string{"exec", "--", "nosuchprogram-x", "arg"}, 127},
		{[]string{"exec", "--timeout", "200ms", "--", "sleep 5"}, execTimedOut},
		{[]string{"exec", "--max-output", "100", "--capture", "--", "true"}, exitUsage},
	}
	for _, row := range rows {
		r := w.run("", row.args...)
		if r.code != row.code {
			t.Errorf("agent-host %q: exit %d, want %d (stderr %q)", row.args, r.code, row.code, r.stderr)
		}
	}
}
