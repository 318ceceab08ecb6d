package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// syscallNames are words an error message must not show the user.
var syscallNames = regexp.MustCompile(`\b(openat2?|lstat|fstatat|newfstatat|statx|mkdirat|unlinkat|renameat2?|readlinkat|getdents(64)?|getwd|fchdir|ENOENT|EISDIR|ENOTDIR)\b`)

// TestErrorVoice: each failing command exits with its row of the table
// (escape 3, usage 2, not found 4, other 1) and prints one line that says
// each thing once, names no system call and, for an escape, suggests
// --add-dir; a missing parent on write or mkdir says the directory is
// missing.
func TestErrorVoice(t *testing.T) {
	w := newWorld(t)
	w.file("f", []byte("x"))
	os.Mkdir(filepath.Join(w.ws, "d"), 0o755)
	w.file(filepath.Join(w.out, "secret"), []byte("s"))
	os.Symlink(filepath.Join(w.out, "secret"), filepath.Join(w.ws, "link"))
	os.Symlink("loop", filepath.Join(w.ws, "loop"))
	passwd := filepath.Join(w.out, "secret")

	for _, c := range []struct {
		args []string
		code int
		want string // the message after "agent-host CMD: "
	}{
		{[]string{"read", passwd}, exitEscape, passwd + ": path escapes the allowed directories (allowed: " + w.ws + "; --add-dir DIR allows another)"},
		{[]string{"resolve", passwd}, exitEscape, passwd + ": path escapes"},
		{[]string{"read", "link"}, exitEscape, filepath.Join(w.ws, "link") + ": path escapes"},
		{[]string{"check-ignore", passwd}, 128, passwd + ": path escapes"}, // git's fatal error (issue 12)
		{[]string{"read", "d"}, exitOther, "d: is a directory"},
		{[]string{"write", "d"}, exitOther, "d: is a directory"},
		{[]string{"rm", "d"}, exitOther, "d: is a directory"},
		{[]string{"read", "nonexist"}, exitNotFound, "nonexist: no such file or directory"},
		{[]string{"stat", "nonexist"}, exitNotFound, "nonexist: no such file or directory"},
		{[]string{"rm", "nonexist"}, exitNotFound, "nonexist: no such file or directory"},
		{[]string{"walk", "nonexist"}, exitNotFound, "nonexist: no such file or directory"},
		{[]string{"write", "nodir/x"}, exitNotFound, "nodir/x: directory nodir does not exist"},
		{[]string{"mkdir", "a/b/c"}, exitNotFound, "a/b/c: directory a/b does not exist (-p creates it)"},
		{[]string{"mkdir", "d"}, exitOther, "d: already exists"},
		{[]string{"read", "f/x"}, exitOther, "f/x: not a directory"},
		{[]string{"read", "loop"}, exitOther, "loop: too many levels of symbolic links"},
		{[]string{"read", "--root", filepath.Join(w.ws, "missing"), "f"}, exitUsage, "invalid root: " + filepath.Join(w.ws, "missing") + ": no such file or directory"},
		{[]string{"exec", "--root", filepath.Join(w.ws, "missing"), "--", "true"}, exitUsage, "invalid root: "},
	} {
		r := w.run("", c.args...)
		prefix := "agent-host " + c.args[0] + ": "
		line := strings.TrimSuffix(r.stderr, "\n")
		if r.code != c.code || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(line, prefix+c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", c.args, r.code, r.stderr, c.code, prefix+c.want)
			continue
		}
		if m := syscallNames.FindString(line); m != "" {
			t.Errorf("%q: %q names %s", c.args, line, m)
		}
		if repeated(line) {
			t.Errorf("%q: %q says something twice", c.args, line)
		}
	}
}

// repeated reports whether a part of msg (split at ": ") comes twice in a
// row, or a closing parenthesis repeats what was said before it.
func repeated(msg string) bool {
	parts := strings.Split(msg, ": ")
	for i := 1; i < len(parts); i++ {
		if parts[i] == parts[i-1] || strings.TrimPrefix(parts[0], "agent-host ") == parts[i] {
			return true
		}
	}
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		return strings.Contains(msg[:i], msg[i+2:len(msg)-1])
	}
	return false
}

// TestTidy: the message rules on the texts the issue quotes.
func TestTidy(t *testing.T) {
	for in, want := range map[string]string{
		"/etc/passwd: /etc/passwd: path escapes the allowed directories": "/etc/passwd: path escapes the allowed directories",
		"open d: not a regular file: is a directory (is a directory)":    "open d: not a regular file: is a directory",
		`exec: exec: "bash": executable file not found in $PATH`:         `"bash": executable file not found in $PATH`,
		"openat nonexist: no such file or directory":                     "nonexist: no such file or directory",
		"invalid root: /x: lstat /x: no such file or directory":          "invalid root: /x: no such file or directory",
		"not a regular file (a FIFO)":                                    "not a regular file (a FIFO)",
		"read me: lstat: x":                                              "read me: lstat: x",
	} {
		if got := tidy("exec", in); got != want {
			t.Errorf("tidy(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJSONEverywhere: with --json every subcommand prints one JSON value
// per result on stdout when it succeeds (rm and mkdir included), and an
// error is one JSON object on stderr whose exit_code and kind are the
// process's.
func TestJSONEverywhere(t *testing.T) {
	w := newWorld(t)
	w.file("f", []byte("x"))
	w.file("g", []byte("\xff"))
	for _, args := range [][]string{
		{"resolve", "f"}, {"read", "f"}, {"read", "g"}, {"stat", "f"}, {"write", "h"},
		{"mkdir", "d"}, {"mkdir", "-p", "d"}, {"rm", "h"}, {"walk", "."}, {"check-ignore", "-n", "f"},
		{"exec", "--", "echo hi"},
	} {
		r := w.run("body", append([]string{args[0], "--json"}, args[1:]...)...)
		if args[0] == "check-ignore" && r.code == 1 {
			r.code = 0 // none ignored
		}
		if r.code != 0 || r.stderr != "" || r.stdout == "" {
			t.Errorf("%v --json: %+v", args, r)
			continue
		}
		for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
			var v map[string]any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Errorf("%v --json: %q is not a JSON object: %v", args, line, err)
			}
		}
	}
	var rd readJSON
	if r := w.run("", "read", "--json", "g"); json.Unmarshal([]byte(r.stdout), &rd) != nil || rd.Encoding != "base64" || rd.Contents != "/w==" {
		t.Errorf("read --json of a non-UTF-8 file: %q", r.stdout)
	}
	for _, c := range []struct {
		args []string
		code int
		kind string
	}{
		{[]string{"read", "--json", filepath.Join(w.out, "x")}, exitEscape, "escape"},
		{[]string{"read", "--json", "nonexist"}, exitNotFound, "not_found"},
		{[]string{"read", "--json", "d"}, exitOther, "other"},
		{[]string{"read", "--bogus", "--json", "f"}, exitUsage, "usage"},
		{[]string{"read", "--json"}, exitUsage, "usage"},
		{[]string{"rm", "--json", "nonexist"}, exitNotFound, "not_found"},
	} {
		r := w.run("", c.args...)
		var e errJSON
		if r.code != c.code || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || json.Unmarshal([]byte(r.stderr), &e) != nil {
			t.Errorf("%q: %+v; want exit %d and one JSON object on stderr", c.args, r, c.code)
			continue
		}
		if e.ExitCode != c.code || e.Kind != c.kind || e.Command != c.args[0] || e.Error == "" {
			t.Errorf("%q: %+v; want kind %s, exit_code %d", c.args, e, c.kind, c.code)
		}
	}
}
