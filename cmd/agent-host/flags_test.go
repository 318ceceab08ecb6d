package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// everyCommand is each subcommand with arguments that would make it run:
// an unknown flag anywhere among them must stop it before it does.
var everyCommand = map[string][]string{
	"walk":         {"."},
	"check-ignore": {"f"},
	"resolve":      {"f"},
	"read":         {"f"},
	"stat":         {"f"},
	"write":        {"new"},
	"mkdir":        {"newdir"},
	"rm":           {"f"},
	"exec":         {"--", "echo ran"},
	"hook":         nil,
	"mcp":          nil,
	"sandbox":      {"apparmor-profile"},
}

// TestEveryCommandIsListed: everyCommand covers every registered
// subcommand, so the tests below reach each one.
func TestEveryCommandIsListed(t *testing.T) {
	var names []string
	for n := range commands {
		if _, ok := everyCommand[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		t.Fatalf("subcommands missing from everyCommand: %v", names)
	}
}

// TestUnknownFlagIsAnError: for every subcommand, an unknown flag before
// or after the positionals is an error that names it: exit 2 (hook: 1,
// which Claude Code shows without blocking the call), nothing on stdout,
// nothing done.
func TestUnknownFlagIsAnError(t *testing.T) {
	w := newWorld(t)
	w.file("f", []byte("x"))
	for name, rest := range everyCommand {
		want := exitUsage
		if name == "hook" {
			want = hookUsage
		}
		for _, args := range [][]string{
			append([]string{name, "--bogus"}, rest...),
			append(append([]string{name}, withoutDashDash(rest)...), "--bogus"),
		} {
			r := w.run(hookPayload(w.ws, filepath.Join(w.out, "x")), args...)
			if r.code != want || r.stdout != "" || !strings.Contains(r.stderr, "unknown flag --bogus") {
				t.Errorf("%v: %+v; want exit %d and an error naming --bogus", args, r, want)
			}
		}
	}
	for _, p := range []string{"new", "newdir"} {
		if _, err := os.Lstat(filepath.Join(w.ws, p)); err == nil {
			t.Errorf("%s was created by a command with a bad flag", p)
		}
	}
	if _, err := os.Stat(filepath.Join(w.ws, "f")); err != nil {
		t.Error("f was removed by rm with a bad flag")
	}
}

func withoutDashDash(args []string) []string {
	var out []string
	for _, a := range args {
		if a != "--" {
			out = append(out, a)
		}
	}
	return out
}

// hookPayload is a SendUserFile call from cwd sending file.
func hookPayload(cwd, file string) string {
	b, _ := json.Marshal(map[string]any{"tool_name": "SendUserFile", "cwd": cwd, "tool_input": map[string]any{"files": []string{file}}})
	return string(b)
}

// TestHookAndMCPRejectFlagsTheyDoNotUse: hook opens no Host (its root is
// the call's cwd), so --root, --add-dir, --unrestricted and --json are
// errors; mcp prints no output of its own, so --json is one.
func TestHookAndMCPRejectFlagsTheyDoNotUse(t *testing.T) {
	w := newWorld(t)
	w.file(filepath.Join(w.out, "x"), []byte("x"))
	for _, args := range [][]string{
		{"hook", "--root", w.ws}, {"hook", "--add-dir", w.out}, {"hook", "--unrestricted"}, {"hook", "--json"}, {"hook", "extra"},
		{"mcp", "--json"},
	} {
		r := w.run(hookPayload(w.ws, filepath.Join(w.out, "x")), args...)
		if r.code == 0 || r.stdout != "" || !strings.Contains(r.stderr, "agent-host "+args[0]+":") {
			t.Errorf("%v: %+v; want an error", args, r)
		}
	}
	if _, err := os.Stat(filepath.Join(w.ws, ".agent-harness")); err == nil {
		t.Error("a hook with a bad flag staged files")
	}
	// The hook's own flags still work, after or before nothing at all.
	r := w.run(hookPayload(w.ws, filepath.Join(w.out, "x")), "hook", "--max-bytes", "100", "--deadline=4s")
	if r.code != 0 || !strings.Contains(r.stdout, "copied 1 file(s)") {
		t.Fatalf("hook --max-bytes 100 --deadline=4s: %+v", r)
	}
}

// TestFlagsLikeGit: flags may follow the positionals, "--" ends them (a
// path that starts with "-" needs it), both --flag value and --flag=value
// work, and exec's COMMAND after "--" reaches the shell untouched.
func TestFlagsLikeGit(t *testing.T) {
	w := newWorld(t)
	w.file("f", []byte("eff"))
	w.file("--unrestricted", []byte("a file named --unrestricted"))
	w.file("-x", []byte("dash x"))
	w.file(filepath.Join(w.out, "o"), []byte("outside"))

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "f", "--root", w.ws}, "eff"},
		{[]string{"read", "f", "--root=" + w.ws}, "eff"},
		{[]string{"read", filepath.Join(w.out, "o"), "--add-dir", w.out}, "outside"},
		{[]string{"read", "--", "--unrestricted"}, "a file named --unrestricted"},
		{[]string{"read", "--", "-x"}, "dash x"},
		{[]string{"stat", "--json", "--", "-x"}, `"size":6`},
		{[]string{"exec", "--timeout", "10s", "--", "printf '%s|' --json -x --"}, "--json|-x|--|"},
	} {
		r := w.run("", c.args...)
		if r.code != 0 || !strings.Contains(r.stdout, c.want) {
			t.Errorf("%q: %+v; want exit 0 and %q", c.args, r, c.want)
		}
	}
	// A flag after the path is a flag: --unrestricted there lifts the jail,
	// as it would before the path (so a path from a model goes after "--").
	if r := w.run("", "read", filepath.Join(w.out, "o"), "--unrestricted"); r.code != 0 || r.stdout != "outside" {
		t.Errorf("read PATH --unrestricted: %+v", r)
	}
	// Without "--", a path that looks like a flag is taken for one.
	if r := w.run("", "read", "-x"); r.code != exitUsage || !strings.Contains(r.stderr, "unknown flag -x") {
		t.Errorf("read -x: %+v; want the unknown flag named", r)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"read", "f", "--root"}, "flag --root needs a value"},
		{[]string{"exec", "--timeout", "soon", "--", "true"}, `invalid value "soon" for --timeout: want a duration`},
		{[]string{"read", "--json=maybe", "f"}, `invalid value "maybe" for --json: want true or false`},
		{[]string{"walk", "--max-depth", "x"}, `invalid value "x" for --max-depth: want a whole number`},
		{[]string{"walk", "--max-depth", "-1"}, `invalid value "-1" for --max-depth: must not be negative`},
		{[]string{"walk", ".", "--max-entries=-5"}, `invalid value "-5" for --max-entries: must not be negative`},
		{[]string{"read"}, "want one PATH, got 0 arguments"},
		{[]string{"read", "f", "g"}, "want one PATH, got 2 arguments"},
	} {
		r := w.run("", c.args...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%q: %+v; want exit 2 and %q", c.args, r, c.msg)
		}
	}
}

// TestHelpAndVersion: --help prints a subcommand's usage and flags on
// stdout with exit 0; --version prints the module version the build
// recorded (go version -m is the oracle), "devel" when it recorded none.
func TestHelpAndVersion(t *testing.T) {
	w := newWorld(t)
	for name := range everyCommand {
		r := w.run("", name, "--help")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "usage: agent-host "+name) || r.stderr != "" {
			t.Errorf("%s --help: %+v", name, r)
		}
	}
	if r := w.run("", "read", "--help"); !strings.Contains(r.stdout, "--root DIR") || !strings.Contains(r.stdout, "--json") {
		t.Errorf("read --help lists no flags: %q", r.stdout)
	}
	if r := w.run("", "--help"); r.code != 0 || !strings.Contains(r.stdout, "check-ignore") {
		t.Errorf("--help: %+v", r)
	}
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s+mod\s+\S+\s+(\S+)`).FindStringSubmatch(string(out))
	want := "devel"
	if m != nil && m[1] != "(devel)" {
		want = m[1]
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if r := w.run("", args...); r.code != 0 || r.stdout != "agent-host "+want+"\n" {
			t.Errorf("%v: %+v; want %q", args, r, "agent-host "+want)
		}
	}
}

// TestNonNegativeInt: the flag type walk's --max-depth and --max-entries
// use refuses a negative count instead of reading it as "unlimited".
func TestNonNegativeInt(t *testing.T) {
	fs := newBareFlagSet("walk", &errOut{Writer: new(strings.Builder)})
	n := nonNegativeIntFlag(fs, "max-depth", 0, "")
	if _, err := parseArgs(fs, []string{"--max-depth", "3"}); err != nil || *n != 3 {
		t.Fatalf("--max-depth 3: %v, %d", err, *n)
	}
	for _, bad := range []string{"-1", "x", "1.5", ""} {
		var b strings.Builder
		fs := newBareFlagSet("walk", &errOut{Writer: &b})
		nonNegativeIntFlag(fs, "max-depth", 0, "")
		if _, err := parseArgs(fs, []string{"--max-depth=" + bad}); err == nil || !strings.Contains(b.String(), "--max-depth") {
			t.Errorf("--max-depth=%s: %v %q; want an error naming the flag", bad, err, b.String())
		}
	}
}
