package cli

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

type plainErr struct{}

func (plainErr) Error() string        { return "directory a does not exist" }
func (plainErr) Is(target error) bool { return target == fs.ErrNotExist }
func (plainErr) Plain()               {}

// TestMessage: a path's reason is said in words, a Plain error as itself
// (not as the "no such file" its errors.Is matches), and no system call is
// named; the exit code follows the error's kind.
func TestMessage(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
		code int
	}{
		{&fs.PathError{Op: "openat", Path: "d", Err: syscall.EISDIR}, "d: is a directory", ExitOther},
		{&fs.PathError{Op: "openat", Path: "x", Err: syscall.ENOENT}, "x: no such file or directory", ExitNotFound},
		{&fs.PathError{Op: "create", Path: "a/b", Err: plainErr{}}, "a/b: directory a does not exist", ExitNotFound},
		{errors.New("lstat /x: no such file or directory"), "/x: no such file or directory", ExitOther},
		{Usagef("want one PATH, got %d arguments", 2), "want one PATH, got 2 arguments", ExitUsage},
	} {
		msg, _ := Message("read", c.err)
		if msg != c.want || ExitCode(c.err) != c.code {
			t.Errorf("%v: %q exit %d; want %q exit %d", c.err, msg, ExitCode(c.err), c.want, c.code)
		}
	}
	if got := Tidy("read", "invalid root: /x: lstat /x: no such file or directory"); got != "invalid root: /x: no such file or directory" {
		t.Errorf("Tidy kept the system call: %q", got)
	}
	// A system call's name goes only when it is the whole first word of a
	// part that is not the last; a longer word, or the last part, stays.
	for in, want := range map[string]string{
		"fstatat /a: x":                 "/a: x",
		"fstat /a: x":                   "/a: x",
		"fork/exec /bin/x: denied":      "/bin/x: denied",
		"openat2 a b: openat c":         "a b: openat c",
		"fstatatx /a: x":                "fstatatx /a: x",
		"lstat: x":                      "lstat: x",
		"/a: getdents64 /a: x":          "/a: x",
		"write /a: x":                   "write /a: x",
		"copy_file_range /a /b: broken": "/a /b: broken",
	} {
		if got := Tidy("read", in); got != want {
			t.Errorf("Tidy(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUsageFailSynopsis: UsageFail prints the synopsis Describe recorded,
// and "NAME [flags]" for a subcommand it did not.
func TestUsageFailSynopsis(t *testing.T) {
	Describe("frob", "frob things", "frob [flags] THING")
	for name, want := range map[string]string{"frob": "usage: agent-host frob [flags] THING\n", "other": "usage: agent-host other [flags]\n"} {
		var b strings.Builder
		if code := UsageFail(&ErrOut{Writer: &b}, name, "takes one THING"); code != ExitUsage {
			t.Errorf("%s: exit %d", name, code)
		}
		if !strings.HasPrefix(b.String(), "agent-host "+name+": takes one THING\n") || !strings.HasSuffix(b.String(), want) {
			t.Errorf("%s: %q; want the error then %q", name, b.String(), want)
		}
	}
}
