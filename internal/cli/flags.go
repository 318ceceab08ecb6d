package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agenthost/agenthost/host"
)

// MultiFlag is a repeatable string flag: each use appends its value.
type MultiFlag []string

// String is the values joined with commas.
func (m *MultiFlag) String() string { return strings.Join(*m, ",") }

// Set appends v; it never fails.
func (m *MultiFlag) Set(v string) error { *m = append(*m, v); return nil }

// HostFlags are the flags every subcommand that opens a Host takes: --root
// (repeatable; the first is the workspace, default the current directory),
// --add-dir (repeatable), --unrestricted and (but for mcp) --json, plus the
// sandbox policy of the subcommands that run commands (AddSandboxFlags).
type HostFlags struct {
	Roots        MultiFlag
	AddDirs      MultiFlag
	Unrestricted bool
	JSON         bool
	Sandbox      host.SandboxPolicy
}

// NewFlagSet returns a flag set for subcommand name with the common flags
// registered (--root, --add-dir, --unrestricted, --json) into the
// returned HostFlags, writing its errors to stderr. --json also turns the
// subcommand's errors into JSON objects when stderr is an *ErrOut (see
// Fail).
func NewFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *HostFlags) {
	fs, hf := NewRootsFlagSet(name, stderr)
	AddJSONFlag(fs, &hf.JSON, stderr)
	return fs, hf
}

// NewRootsFlagSet is NewFlagSet without --json, for a subcommand that has
// no output of its own to shape (mcp speaks JSON-RPC whatever the flags).
func NewRootsFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *HostFlags) {
	fs := NewBareFlagSet(name, stderr)
	hf := &HostFlags{}
	AddRootFlags(fs, &hf.Roots, &hf.AddDirs, &hf.Unrestricted)
	return fs, hf
}

// AddRootFlags registers --root, --add-dir and --unrestricted on fs, into
// roots, addDirs and unrestricted.
func AddRootFlags(fs *flag.FlagSet, roots, addDirs *MultiFlag, unrestricted *bool) {
	fs.Var(roots, "root", "a root `DIR` (repeatable; the first is the workspace; default .)")
	fs.Var(addDirs, "add-dir", "another root `DIR` (repeatable)")
	fs.BoolVar(unrestricted, "unrestricted", false, "do not jail paths (they are only made absolute)")
}

// AddJSONFlag registers --json on fs, into p. When stderr is an *ErrOut,
// --json also makes the subcommand's errors JSON objects.
func AddJSONFlag(fs *flag.FlagSet, p *bool, stderr io.Writer) {
	fs.Var(jsonFlag{p, stderr}, "json", "machine-readable output (errors too, as JSON on stderr)")
}

// AddSandboxFlags registers the sandbox flags of the subcommands that run
// commands (exec, mcp) on fs, into policy, and returns a function to call
// after parsing: it completes policy from the repeatable flags and warns
// on stderr when the sandbox was turned off.
func AddSandboxFlags(fs *flag.FlagSet, policy *host.SandboxPolicy, stderr io.Writer) (warn func()) {
	fs.BoolVar(&policy.Off, "no-sandbox", false, "run commands UNCONFINED, with every right of this user (default: sandboxed)")
	fs.BoolVar(&policy.Required, "require-sandbox", false, "refuse to run a command when any part of the sandbox is missing here (the default; kept for scripts)")
	fs.Var(sandboxMode{policy}, "sandbox", "`MODE`: required (the default: refuse a command when a part of the sandbox is missing here), best-effort (run with what there is, saying first what is not enforced) or off (as --no-sandbox)")
	fs.BoolVar(&policy.Network, "network", false, "let sandboxed commands use the whole network")
	var allowNet MultiFlag
	fs.Var(&allowNet, "allow-net", "let sandboxed commands reach `HOST[:PORT]` (repeatable; *.example.org for names under it; no port: 80 and 443) through a proxy outside the sandbox (HTTP_PROXY, HTTPS_PROXY); nothing else leaves")
	var allow MultiFlag
	fs.Var(&allow, "allow-env", "pass the credential-looking variable `NAME` to commands (repeatable)")
	var deny MultiFlag
	fs.Var(&deny, "deny-read", "another `PATH` commands may not read (repeatable)")
	return func() {
		policy.AllowEnv = append(policy.AllowEnv, allow...)
		policy.AllowNet = append(policy.AllowNet, allowNet...)
		policy.DenyRead = append(policy.DenyRead, deny...)
		if policy.Off {
			io.WriteString(stderr, "agent-host: WARNING: --no-sandbox: commands run UNCONFINED and can read your secrets, write anywhere you can and use the network\n")
		}
	}
}

// WarnBestEffort says on stderr, before a command starts, what a
// best-effort sandbox will not enforce on this machine (nothing when
// every part is there).
func WarnBestEffort(h *host.Host, stderr io.Writer) {
	if p := h.SandboxPolicy(); p.Off || !p.BestEffort || p.Required {
		return
	}
	for _, m := range h.SandboxMissing() {
		io.WriteString(stderr, "agent-host: sandbox (best effort): not enforced: "+m+"\n")
	}
}

// sandboxMode is --sandbox MODE.
type sandboxMode struct{ p *host.SandboxPolicy }

func (m sandboxMode) String() string {
	switch {
	case m.p == nil:
		return ""
	case m.p.Off:
		return "off"
	case m.p.BestEffort:
		return "best-effort"
	}
	return "required"
}

func (m sandboxMode) Set(v string) error {
	switch v {
	case "required":
		m.p.Off, m.p.BestEffort = false, false
	case "best-effort":
		m.p.Off, m.p.BestEffort, m.p.Required = false, true, false
	case "off":
		m.p.Off = true
	default:
		return fmt.Errorf("%q: want required, best-effort or off", v)
	}
	return nil
}

// NewBareFlagSet returns a flag set named "agent-host NAME" with no common
// flags, for a subcommand that opens no Host of its own (hook): it
// accepts only what it registers. Its errors go to stderr, and -h prints
// PrintUsage.
func NewBareFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("agent-host "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { PrintUsage(fs) }
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
	b, err := ParseBool(v)
	if err != nil {
		return err
	}
	*j.p = b
	if e, ok := j.stderr.(*ErrOut); ok {
		e.JSON = b
	}
	return nil
}

// ErrHelp is ParseArgs's error after --help or -h: the usage was printed.
var ErrHelp = flag.ErrHelp

// ParseArgs parses args with fs the way git and ripgrep do, and returns
// the positional arguments in order:
//   - flags may come before, between or after the positionals;
//   - "--" ends the flags: everything after it is positional, as typed
//     (a path that starts with "-", or exec's COMMAND);
//   - "-" alone is positional;
//   - --flag=value, --flag value, and one dash for two (-root) all work; a
//     boolean flag takes no separate value (--json, --json=false);
//   - an unknown flag, a missing value or a bad value is an error naming
//     the flag (it wraps ErrUsage), printed to fs's output in the
//     program's voice; the caller exits 2 (ExitUsage);
//   - -h or --help prints the usage and returns ErrHelp.
//
// So a path a model wrote must come after "--": "read -- --unrestricted"
// reads a file of that name.
func ParseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
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
			PrintUsage(fs)
			return nil, ErrHelp
		}
		f := fs.Lookup(name)
		if f == nil || strings.HasPrefix(a, "---") || name == "" {
			flagName, _, _ := strings.Cut(a, "=")
			return nil, flagError(fs, fmt.Errorf("unknown flag %s", flagName))
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			if !hasValue {
				value = "true"
				// A flag whose value may be left out (--sort, --sort
				// path, --sort=path) takes the next argument when it is
				// one of its values, as ripgrep's do.
				if ov, ok := f.Value.(OptionalValue); ok && i+1 < len(args) && ov.IsValue(args[i+1]) {
					i++
					value = args[i]
				}
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

// OptionalValue is a flag (a bool flag to the flag package) whose value
// may be left out: ParseArgs gives it the next argument as its value
// when IsValue says that argument is one, so "--sort path" means
// "--sort=path" while "--sort" alone keeps its default meaning.
type OptionalValue interface {
	IsValue(arg string) bool
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
// error wrapping ErrUsage.
func flagError(fs *flag.FlagSet, err error) error {
	err = UsageErr(err)
	Fail(fs.Output(), commandName(fs), err, ExitUsage)
	if e, ok := fs.Output().(*ErrOut); !ok || !e.JSON {
		fmt.Fprintf(fs.Output(), "(agent-host %s --help lists the flags)\n", commandName(fs))
	}
	return err
}

// commandName is the subcommand's name, from its flag set's.
func commandName(fs *flag.FlagSet) string { return strings.TrimPrefix(fs.Name(), "agent-host ") }

// PrintUsage prints the subcommand's synopsis, summary (see Describe) and
// flags to fs's output, git style.
func PrintUsage(fs *flag.FlagSet) {
	name := commandName(fs)
	w := fs.Output()
	fmt.Fprintf(w, "usage: agent-host %s\n", Synopsis(name))
	if s := Summary(name); s != "" {
		fmt.Fprintf(w, "\n%s\n", s)
	}
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nflags:")
			first = false
		}
		arg, usage := flag.UnquoteUsage(f)
		dash := "--"
		if len(f.Name) == 1 || strings.Trim(f.Name, f.Name[:1]) == "" {
			dash = "-" // -u, and its repeats -uu and -uuu, as ripgrep spells them
		}
		left := dash + f.Name
		if _, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok && arg != "" {
			left += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" && f.DefValue != "[]" && !strings.Contains(usage, "(default") {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  %-22s %s\n", left, usage)
	})
}

// nonNegativeInt is an int flag that refuses a negative value, for counts
// and limits (--max-depth, --max-entries) where a negative number has no
// meaning and must not silently mean "unlimited".
type nonNegativeInt int

func (n *nonNegativeInt) String() string { return strconv.Itoa(int(*n)) }
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

// NonNegativeIntFlag registers on fs an int flag that refuses a negative
// value ("must not be negative") and returns its value, like fs.Int.
func NonNegativeIntFlag(fs *flag.FlagSet, name string, value int, usage string) *int {
	p := new(int)
	*p = value
	fs.Var((*nonNegativeInt)(p), name, usage)
	return p
}

// ParseBool is strconv.ParseBool with the program's words for an error:
// it takes 1, t, true, yes, 0, f, false, no in any case, and otherwise
// fails with "want true or false".
func ParseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "t", "true", "yes":
		return true, nil
	case "0", "f", "false", "no":
		return false, nil
	}
	return false, errors.New("want true or false")
}

// Path turns a path argument into the path the Host is given. The shell
// has already expanded "~" in what the user typed, so an argument that
// still starts with "~" names a file of that name in the current directory
// (as it does for cat and git): it gets a "./" before it, so that the Host,
// which expands "~" for models, does not take it for the home directory.
// Every subcommand that hands a path argument to the Host calls it.
func Path(arg string) string {
	if strings.HasPrefix(arg, "~") {
		return "./" + arg
	}
	return arg
}

// Open builds the Host the flags describe (see OpenHost).
func (hf *HostFlags) Open() (*host.Host, error) {
	return OpenHost(hf.Roots, hf.AddDirs, hf.Unrestricted, hf.Sandbox)
}

// OpenHost builds the Host of --root roots (the first is the workspace;
// "." when there is none), --add-dir addDirs, --unrestricted and the
// sandbox policy; a root that starts with "~" is a directory of that name,
// as for every path argument (see Path). A bad root is an error that
// wraps ErrUsage and host.ErrInvalidRoot.
func OpenHost(roots, addDirs []string, unrestricted bool, sandbox host.SandboxPolicy) (*host.Host, error) {
	var all []string
	for _, r := range append(append([]string(nil), roots...), addDirs...) {
		all = append(all, Path(r))
	}
	if len(roots) == 0 {
		all = append([]string{"."}, all...)
	}
	cfg := host.Config{WorkspaceRoot: all[0], ExtraRoots: all[1:], Sandbox: sandbox}
	if unrestricted {
		cfg.PathPolicy = host.Unrestricted
	}
	h, err := host.New(cfg)
	if err != nil {
		return nil, UsageErr(err)
	}
	return h, nil
}

// Cwd is the tool working directory the CLI passes to h: the process's
// current directory, so relative paths mean what the user typed. It is ""
// (the workspace root) when the current directory is outside every root,
// which keeps relative paths working from elsewhere.
func Cwd(h *host.Host) string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if _, err := h.ResolveInJail(context.Background(), "", wd); err != nil {
		return ""
	}
	return wd
}
