package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agenthost/agenthost/host"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// hostFlags are the flags every subcommand takes: --root (repeatable; the
// first is the workspace, default the current directory), --add-dir
// (repeatable), --unrestricted and --json.
type hostFlags struct {
	roots        multiFlag
	addDirs      multiFlag
	unrestricted bool
	json         bool
}

// newFlagSet returns a flag set for subcommand name with the common flags
// registered, writing its errors to stderr.
func newFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *hostFlags) {
	fs := flag.NewFlagSet("agent-host "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	hf := &hostFlags{}
	fs.Var(&hf.roots, "root", "a root `DIR` (repeatable; the first is the workspace; default .)")
	fs.Var(&hf.addDirs, "add-dir", "another root `DIR` (repeatable)")
	fs.BoolVar(&hf.unrestricted, "unrestricted", false, "do not jail paths (they are only made absolute)")
	fs.BoolVar(&hf.json, "json", false, "machine-readable output")
	return fs, hf
}

// parseArgs parses args with fs and returns the positional arguments.
// Flags must come first: parsing stops at the first argument that is not
// a flag, or after "--", so a path or a command that looks like a flag
// (a model-supplied "--unrestricted", say) is never taken for one.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return fs.Args(), nil
}

// open builds the Host the flags describe.
func (hf *hostFlags) open() (*host.Host, error) {
	roots := []string(hf.roots)
	if len(roots) == 0 {
		roots = []string{"."}
	}
	cfg := host.Config{WorkspaceRoot: roots[0], ExtraRoots: append(append([]string(nil), roots[1:]...), hf.addDirs...)}
	if hf.unrestricted {
		cfg.PathPolicy = host.Unrestricted
	}
	return host.New(cfg)
}

// cwd is the tool working directory the CLI passes to the Host: the
// process's current directory, so relative paths mean what the user typed.
// It is "" (the workspace root) when the current directory is outside
// every root, which keeps relative paths working from elsewhere.
func cliCwd(h *host.Host) string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if _, err := h.Jail().Resolve("", wd); err != nil {
		return ""
	}
	return wd
}

// fail prints err to stderr as "agent-host NAME: ERR" and returns code.
func fail(stderr io.Writer, name string, err error, code int) int {
	fmt.Fprintf(stderr, "agent-host %s: %v\n", name, err)
	return code
}

// exitCode is the conventional code for an error: 3 for an escape, 1 else.
func exitCode(err error) int {
	if errors.Is(err, host.ErrEscape) {
		return 3
	}
	return 1
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

type flagSet = flag.FlagSet
