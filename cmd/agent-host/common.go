package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agenthost/agenthost/host"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

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
	fs.Var(jsonFlag{&hf.json, stderr}, "json", "machine-readable output (errors too, as JSON on stderr)")
	return fs, hf
}

// newRootsFlagSet is newFlagSet without --json, for a subcommand that has
// no output of its own to shape (mcp speaks JSON-RPC whatever the flags).
func newRootsFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *hostFlags) {
	fs := newBareFlagSet(name, stderr)
	hf := &hostFlags{}
	fs.Var(&hf.roots, "root", "a root `DIR` (repeatable; the first is the workspace; default .)")
	fs.Var(&hf.addDirs, "add-dir", "another root `DIR` (repeatable)")
	fs.BoolVar(&hf.unrestricted, "unrestricted", false, "do not jail paths (they are only made absolute)")
	return fs, hf
}

// newBareFlagSet returns a flag set with no common flags, for a subcommand
// that opens no Host of its own (hook): it accepts only what it registers.
func newBareFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("agent-host "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { printUsage(fs) }
	return fs
}

// jsonFlag is --json: it sets the subcommand's json switch and, when
// stderr is the program's, makes errors JSON objects.
type jsonFlag struct {
	p      *bool
	stderr io.Writer
}

func (j jsonFlag) String() string {
	if j.p != nil && *j.p {
		return "true"
	}
	return "false"
}
func (j jsonFlag) IsBoolFlag() bool { return true }
func (j jsonFlag) Set(v string) error {
	b, err := parseBool(v)
	if err != nil {
		return err
	}
	*j.p = b
	if e, ok := j.stderr.(*errOut); ok {
		e.json = b
	}
	return nil
}

// errHelp is parseArgs's error after --help or -h: the usage was printed.
var errHelp = flag.ErrHelp

// parseArgs parses args with fs the way git and ripgrep do, and returns
// the positional arguments in order:
//   - flags may come before, between or after the positionals;
//   - "--" ends the flags: everything after it is positional, as typed
//     (a path that starts with "-", or exec's COMMAND);
//   - "-" alone is positional;
//   - --flag=value, --flag value, and one dash for two (-root) all work; a
//     boolean flag takes no separate value (--json, --json=false);
//   - an unknown flag, a missing value or a bad value is an error naming
//     the flag, printed to fs's output in the program's voice; the caller
//     exits 2 (exitUsage).
//
// So a path a model wrote must come after "--": "read -- --unrestricted"
// reads a file of that name.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	preScanJSON(fs, args)
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		if name == "h" || name == "help" {
			printUsage(fs)
			return nil, errHelp
		}
		f := fs.Lookup(name)
		if f == nil || strings.HasPrefix(a, "---") || name == "" {
			flagName, _, _ := strings.Cut(a, "=")
			return nil, flagError(fs, fmt.Errorf("unknown flag %s", flagName))
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 == len(args) {
				return nil, flagError(fs, fmt.Errorf("flag --%s needs a value", name))
			}
			i++
			value = args[i]
		}
		if err := fs.Set(name, value); err != nil {
			return nil, flagError(fs, fmt.Errorf("invalid value %q for --%s: %s", value, name, valueProblem(f, err)))
		}
	}
	return pos, nil
}

// preScanJSON sets --json before the flags are parsed, so that an error in
// a flag before it is already reported as JSON.
func preScanJSON(fs *flag.FlagSet, args []string) {
	f := fs.Lookup("json")
	if f == nil {
		return
	}
	for _, a := range args {
		if a == "--" {
			return
		}
		switch a {
		case "--json", "-json", "--json=true", "-json=true":
			f.Value.Set("true")
		}
	}
}

// valueProblem says what is wrong with a flag's value in words: the flag
// package's own errors ("parse error") say nothing.
func valueProblem(f *flag.Flag, err error) string {
	if !strings.Contains(err.Error(), "parse error") && !strings.Contains(err.Error(), "invalid syntax") {
		return err.Error()
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return err.Error()
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return "want a whole number"
	case bool:
		return "want true or false"
	case time.Duration:
		return "want a duration like 30s or 2m"
	}
	return err.Error()
}

// flagError prints a flag problem in the program's voice and returns an
// error wrapping errUsage.
func flagError(fs *flag.FlagSet, err error) error {
	err = usageErr(err)
	fail(fs.Output(), commandName(fs), err, exitUsage)
	if e, ok := fs.Output().(*errOut); !ok || !e.json {
		fmt.Fprintf(fs.Output(), "(agent-host %s --help lists the flags)\n", commandName(fs))
	}
	return err
}

// commandName is the subcommand's name, from its flag set's.
func commandName(fs *flag.FlagSet) string { return strings.TrimPrefix(fs.Name(), "agent-host ") }

// printUsage prints the subcommand's synopsis and flags, git style.
func printUsage(fs *flag.FlagSet) {
	name := commandName(fs)
	w := fs.Output()
	c := commands[name]
	fmt.Fprintf(w, "usage: agent-host %s\n", c.synopsis())
	if c.summary != "" {
		fmt.Fprintf(w, "\n%s\n", c.summary)
	}
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nflags:")
			first = false
		}
		arg, usage := flag.UnquoteUsage(f)
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		left := dash + f.Name
		if _, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok && arg != "" {
			left += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  %-22s %s\n", left, usage)
	})
}

// nonNegativeInt is an int flag that refuses a negative value, for counts
// and limits (--max-depth, --max-entries) where a negative number has no
// meaning and must not silently mean "unlimited".
type nonNegativeInt int

func (n *nonNegativeInt) String() string { return fmt.Sprint(int(*n)) }
func (n *nonNegativeInt) Get() any       { return int(*n) }
func (n *nonNegativeInt) Set(s string) error {
	var v int
	if _, err := fmt.Sscan(s, &v); err != nil || fmt.Sprint(v) != strings.TrimPrefix(s, "+") {
		return errors.New("want a whole number")
	}
	if v < 0 {
		return errors.New("must not be negative")
	}
	*n = nonNegativeInt(v)
	return nil
}

// nonNegativeIntFlag registers a nonNegativeInt flag on fs and returns its
// value, like fs.Int.
func nonNegativeIntFlag(fs *flag.FlagSet, name string, value int, usage string) *int {
	p := new(int)
	*p = value
	fs.Var((*nonNegativeInt)(p), name, usage)
	return p
}

// parseBool is strconv.ParseBool with the program's words for an error.
func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "t", "true", "yes":
		return true, nil
	case "0", "f", "false", "no":
		return false, nil
	}
	return false, errors.New("want true or false")
}

// cliPath turns a path argument into the path the Host is given. The shell
// has already expanded "~" in what the user typed, so an argument that
// still starts with "~" names a file of that name in the current directory
// (as it does for cat and git): it gets a "./" before it, so that the Host,
// which expands "~" for models, does not take it for the home directory.
// Every subcommand that hands a path argument to the Host calls it.
func cliPath(arg string) string {
	if strings.HasPrefix(arg, "~") {
		return "./" + arg
	}
	return arg
}

// open builds the Host the flags describe; a root that starts with "~" is
// a directory of that name, as for every path argument (see cliPath).
func (hf *hostFlags) open() (*host.Host, error) {
	var roots []string
	for _, r := range append(append([]string(nil), hf.roots...), hf.addDirs...) {
		roots = append(roots, cliPath(r))
	}
	if len(hf.roots) == 0 {
		roots = append([]string{"."}, roots...)
	}
	cfg := host.Config{WorkspaceRoot: roots[0], ExtraRoots: roots[1:], Sandbox: hf.sandbox}
	if hf.unrestricted {
		cfg.PathPolicy = host.Unrestricted
	}
	h, err := host.New(cfg)
	if err != nil {
		return nil, usageErr(err)
	}
	return h, nil
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
	if _, err := h.ResolveInJail(context.Background(), "", wd); err != nil {
		return ""
	}
	return wd
}
