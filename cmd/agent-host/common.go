package main

import (
	"flag"
	"io"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/cli"
)

// The command line lives in internal/cli, shared with agent-host-mcp;
// what follows are this program's names for it, so that each subcommand's
// file reads as before.

// multiFlag is a repeatable string flag.
type multiFlag = cli.MultiFlag

// hostFlags are the flags every subcommand that opens a Host takes: --root
// (repeatable; the first is the workspace, default the current directory),
// --add-dir (repeatable), --unrestricted and (but for mcp) --json.
type hostFlags struct {
	roots        multiFlag
	addDirs      multiFlag
	unrestricted bool
	json         bool
	sandbox      host.SandboxPolicy // set by the subcommands that run commands (addSandboxFlags)
}

type flagSet = flag.FlagSet

// newFlagSet returns a flag set for subcommand name with the common flags
// registered (--root, --add-dir, --unrestricted, --json), writing its
// errors to stderr. --json also turns the subcommand's errors into JSON
// objects (see fail).
func newFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *hostFlags) {
	fs, hf := newRootsFlagSet(name, stderr)
	cli.AddJSONFlag(fs, &hf.json, stderr)
	return fs, hf
}

// newRootsFlagSet is newFlagSet without --json.
func newRootsFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *hostFlags) {
	fs := newBareFlagSet(name, stderr)
	hf := &hostFlags{}
	cli.AddRootFlags(fs, &hf.roots, &hf.addDirs, &hf.unrestricted)
	return fs, hf
}

// newBareFlagSet returns a flag set with no common flags, for a subcommand
// that opens no Host of its own (hook): it accepts only what it registers.
func newBareFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	return cli.NewBareFlagSet(name, stderr)
}

// parseArgs parses args with fs the way git and ripgrep do and returns the
// positional arguments (see cli.ParseArgs).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) { return cli.ParseArgs(fs, args) }

// nonNegativeIntFlag registers an int flag that refuses a negative value
// on fs and returns its value, like fs.Int.
func nonNegativeIntFlag(fs *flag.FlagSet, name string, value int, usage string) *int {
	return cli.NonNegativeIntFlag(fs, name, value, usage)
}

// cliPath turns a path argument into the path the Host is given (see
// cli.Path).
func cliPath(arg string) string { return cli.Path(arg) }

// open builds the Host the flags describe (see cli.OpenHost).
func (hf *hostFlags) open() (*host.Host, error) {
	return cli.OpenHost(hf.roots, hf.addDirs, hf.unrestricted, hf.sandbox)
}

// cliCwd is the tool working directory the CLI passes to the Host (see
// cli.Cwd).
func cliCwd(h *host.Host) string { return cli.Cwd(h) }

// Plain marks a missing parent directory as an error that says what is
// wrong in words (cli.Plain): its message stands instead of "no such file
// or directory".
func (missingDirError) Plain() {}
