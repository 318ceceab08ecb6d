package main

import (
	"io"

	"github.com/agenthost/agenthost/internal/cli"
)

// The exit codes every subcommand shares (cli.ExitOK...).
const (
	exitOK       = cli.ExitOK
	exitOther    = cli.ExitOther
	exitUsage    = cli.ExitUsage
	exitEscape   = cli.ExitEscape
	exitNotFound = cli.ExitNotFound
)

// errOut is the program's standard error as run hands it to a subcommand
// (cli.ErrOut: it remembers --json).
type errOut = cli.ErrOut

func exitCode(err error) int                                 { return cli.ExitCode(err) }
func usagef(format string, a ...any) error                   { return cli.Usagef(format, a...) }
func tidy(name, msg string) string                           { return cli.Tidy(name, msg) }
func writeJSON(w io.Writer, v any) error                     { return cli.WriteJSON(w, v) }
func fail(w io.Writer, name string, err error, code int) int { return cli.Fail(w, name, err, code) }
func warn(w io.Writer, name string, err error, code int)     { cli.Warn(w, name, err, code) }
func usageFail(w io.Writer, name string, format string, a ...any) int {
	return cli.UsageFail(w, name, format, a...)
}

// errJSON is the --json form of an error.
type errJSON = cli.ErrorJSON
