// Command agent-host puts the agenthost library in a user's hands: jailed
// file operations, a git-exact walk, bounded command execution and the
// SendUserFile hook, each as a subcommand. agent-host mcp runs the MCP
// server, agent-host-mcp, installed beside it (see mcp.go): this program
// does not link the MCP SDK, so every other subcommand starts lean.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/buildinfo"
	"github.com/agenthost/agenthost/internal/cli"
)

// command is one subcommand. run gets the arguments after the subcommand
// name and returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is filled by register calls in each subcommand's file.
var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int) {
	commands[name] = command{name: name, summary: summary, run: run}
	cli.Describe(name, summary, synopses[name])
}

// synopses are the subcommands' usage lines, after "agent-host ".
var synopses = map[string]string{
	"walk":         "walk [flags] [PATH]",
	"check-ignore": "check-ignore [flags] PATH... | --stdin",
	"resolve":      "resolve [flags] PATH",
	"read":         "read [flags] PATH",
	"stat":         "stat [flags] PATH",
	"write":        "write [flags] PATH < CONTENTS",
	"mkdir":        "mkdir [-p] [flags] PATH",
	"rm":           "rm [flags] PATH",
	"exec":         "exec [flags] -- COMMAND",
	"hook":         "hook [--max-bytes N] [--deadline D] < HOOK-JSON",
	"mcp":          cli.MCPSynopsis,
}

func main() {
	host.SandboxMain() // a sandboxed command's helper runs here and never returns
	exitAfterRun = true
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs the subcommand args name with the rest of args and returns the
// exit code. Every subcommand gets stderr wrapped, so that its errors
// follow --json (see fail).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return help(c, stdout)
			}
		}
		usage(stdout)
		return exitOK
	case "--version", "-version", "version":
		fmt.Fprintln(stdout, "agent-host", version())
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "agent-host: unknown command %q (agent-host --help lists them)\n", args[0])
		return exitUsage
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			return help(c, stdout)
		}
	}
	return c.run(args[1:], stdin, stdout, &errOut{Writer: stderr})
}

// help prints c's usage and flags on stdout (its flag set prints them when
// it meets --help) and returns exitOK.
func help(c command, stdout io.Writer) int {
	c.run([]string{"--help"}, nil, io.Discard, stdout)
	return exitOK
}

// version is the module's version as the build recorded it ("devel" for a
// build from a work tree without one): the same as the MCP server's
// serverInfo.version (see internal/buildinfo).
func version() string { return buildinfo.Version() }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: agent-host COMMAND [flags] [ARGS]   (agent-host COMMAND --help for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-14s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nflags every command but hook takes: --root DIR (repeatable; the first is the workspace, default .),")
	fmt.Fprintln(w, "--add-dir DIR (repeatable), --unrestricted, --json (not mcp); \"--\" ends the flags.")
	fmt.Fprintln(w, "exit codes: 0 ok, 1 other error, 2 usage, 3 path outside the roots, 4 not found")
	fmt.Fprintln(w, "(exec: the command's, 124 timeout, 130 interrupted; check-ignore: git's, 0 some ignored, 1 none, 128 error;")
	fmt.Fprintln(w, "walk: 2 when a directory could not be read; any command interrupted: 130; hook: always 0 but 1 for bad flags).")
}
