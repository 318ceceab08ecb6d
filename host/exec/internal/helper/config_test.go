package helper

import (
	"errors"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConfigRoundTrip: every field survives Argv and parse, and Message
// and parseMessage, whatever bytes (but NUL) its paths and arguments hold.
func TestConfigRoundTrip(t *testing.T) {
	c := &Config{
		Path: "/usr/bin/bash", Args: []string{"bash", "-c", "--", "echo a=b\n'c' $HOME \x01\xff", ""},
		Env:   []string{"A=1", "B=x=y\n", "EMPTY="},
		DirFD: 3, Stdio: [3]int{-1, 0, 1}, Landlock: true, HandledFS: 1<<16 - 1, HandledNet: 3, Scoped: 3,
		DirRead: 13, FileRead: 5, WriteMask: 1<<15 | 2, FileWrite: 7,
		WriteFDs: []int{6, 7}, Writes: []string{"/tmp/agenthost-sandbox-1", "/with space/=eq"},
		Reads:    []Grant{{Path: "/etc", Dir: true}, {Path: "/root/.bashrc"}, {Path: "/odd\nname", Dir: true}},
		DevFiles: []string{"/dev/null"}, Seccomp: []byte{0x20, 0, 0, 0, 4, 0, 0, 0, 0xff},
		DrainGrace: 150 * time.Millisecond,
	}
	got, err := parse(c.Argv())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, c)
	}
	if got, err := parseMessage(mustMessage(t, c)); err != nil || !reflect.DeepEqual(got, c) {
		t.Errorf("message round trip: %+v, %v", got, err)
	}
	start := &Config{Path: "/bin/true", Args: []string{"true"}, DirFD: 3, Stdio: [3]int{-1, -1, -1}}
	if got, err := parse(start.Argv()); err != nil || !reflect.DeepEqual(got, start) {
		t.Errorf("start-only round trip: %+v, %v", got, err)
	}
}

// TestMessage: only a message that ends with its "go" record, after a
// program and its argv, lets the command start.
func TestMessage(t *testing.T) {
	full := mustMessage(t, &Config{Path: "/bin/true", Args: []string{"true"}, DirFD: -1, Stdio: [3]int{-1, -1, -1}})
	for _, bad := range [][]byte{
		nil,                         // the parent closed without a word
		full[:len(full)-1],          // cut before the end of "go=1"
		full[:len(full)-5],          // no go record
		append(full, "x\x00"...),    // something after go
		[]byte("arg=x\x00go=1\x00"), // no program
		[]byte("path=/bin/sh\x00arg=sh\x00what=1\x00go=1\x00"),
		[]byte("path=/bin/sh\x00arg=sh\x00stdin=-2\x00go=1\x00"),
	} {
		if c, err := parseMessage(bad); err == nil {
			t.Errorf("parseMessage(%q) = %+v, want an error", bad, c)
		}
	}
	c, err := parseMessage(full)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.resolveFDs(nil); err != nil {
		t.Errorf("no descriptors named: %v", err)
	}
	c.Stdio[1] = 2
	if err := c.resolveFDs([]int{7, 8}); err == nil {
		t.Error("an index past the descriptors received was accepted")
	}
}

// TestParseRefuses: malformed instructions are an error, never a panic.
func TestParseRefuses(t *testing.T) {
	for _, argv := range [][]string{
		nil,
		{"other"},
		{Name},                             // no path
		{Name, "path=/x"},                  // no argv
		{Name, "path=/x", "arg=x", "noeq"}, // not key=value
		{Name, "path=/x", "arg=x", "what=1"},
		{Name, "path=/x", "arg=x", "dirfd=x"},
		{Name, "path=/x", "arg=x", "fs=-1"},
		{Name, "path=/x", "arg=x", "seccomp=abc"},
		{Name, "path=/x", "arg=x", "seccomp=zz"},
	} {
		if c, err := parse(argv); err == nil {
			t.Errorf("parse(%q) = %+v, want an error", argv, c)
		}
	}
}

// FuzzParse: parse never panics, and what it accepts has a canonical
// command line that parses back to the same.
func FuzzParse(f *testing.F) {
	f.Add("path=/bin/true\x00arg=true\x00dirfd=3")
	f.Add("confine=1\x00path=/x\x00arg=x\x00seccomp=00ff\x00readdir=/etc")
	f.Fuzz(func(t *testing.T, s string) {
		argv := []string{Name}
		start := 0
		for i := 0; i <= len(s); i++ {
			if i == len(s) || s[i] == 0 {
				argv = append(argv, s[start:i])
				start = i + 1
			}
		}
		c, err := parse(argv)
		if err != nil {
			return
		}
		canon := c.Argv()
		again, err := parse(canon)
		if err != nil || !reflect.DeepEqual(again.Argv(), canon) {
			t.Fatalf("round trip of %q: %+v, %v", argv, again, err)
		}
	})
}

// FuzzParseMessage: parseMessage never panics, and what it accepts
// has a canonical message that parses back to the same.
func FuzzParseMessage(f *testing.F) {
	f.Add([]byte("path=/bin/true\x00arg=true\x00env=A=1\x00stdout=0\x00dirfd=1\x00go=1\x00"))
	f.Add([]byte("path=/x\x00arg=x\x00writefd=2\x00seccomp=00ff\x00readdir=/etc\x00go=1\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseMessage(b)
		if err != nil {
			return
		}
		canon := mustMessage(t, c)
		again, err := parseMessage(canon)
		if err != nil || !reflect.DeepEqual(mustMessage(t, again), canon) {
			t.Fatalf("round trip of %q: %+v, %v", b, again, err)
		}
		if err := again.resolveFDs([]int{10, 11, 12}); err == nil {
			for _, fd := range append(append([]int{again.DirFD}, again.Stdio[:]...), again.WriteFDs...) {
				if fd != -1 && (fd < 10 || fd > 12) {
					t.Fatalf("resolved to %d", fd)
				}
			}
		}
	})
}

// mustMessage is c.Message, which must succeed.
func mustMessage(t *testing.T, c *Config) []byte {
	t.Helper()
	b, err := c.Message()
	if err != nil {
		t.Fatalf("Message of %+v: %v", c, err)
	}
	return b
}

// TestMessageRefusesNUL: a NUL byte in the program's path, an argument or
// an environment entry cannot end its record and start another ("write=/",
// a write rule on everything): Message refuses it with an error matching
// syscall.EINVAL and gives no message.
func TestMessageRefusesNUL(t *testing.T) {
	inject := "x\x00write=/\x00readdir=/"
	for _, c := range []*Config{
		{Path: "/bin/sh" + inject, Args: []string{"sh"}},
		{Path: "/bin/sh", Args: []string{"sh", "-c", inject}},
		{Path: "/bin/sh", Args: []string{"sh"}, Env: []string{"A=" + inject}},
		{Path: "/bin/sh", Args: []string{"sh"}, Writes: []string{"/tmp/" + inject}},
		{Path: "/bin/sh", Args: []string{"sh"}, Reads: []Grant{{Path: "/etc/" + inject}}},
		{Path: "/bin/sh", Args: []string{"sh"}, DevFiles: []string{"/dev/null" + inject}},
	} {
		c.DirFD, c.Stdio = -1, [3]int{-1, -1, -1}
		if b, err := c.Message(); !errors.Is(err, syscall.EINVAL) || b != nil {
			t.Errorf("Message of %+v = %q, %v; want no message and EINVAL", c, b, err)
		}
	}
}

// FuzzMessageOfConfig: whatever bytes a Config's strings hold, Message
// either refuses it (a NUL byte somewhere) or gives a message that parses
// back to the same Config: no record of the caller's can become two.
func FuzzMessageOfConfig(f *testing.F) {
	f.Add("/bin/sh", "-c", "A=1", "/tmp/x")
	f.Add("/bin/sh", "true\x00write=/", "A=1\x00readdir=/", "/tmp")
	f.Fuzz(func(t *testing.T, path, arg, env, write string) {
		c := &Config{Path: path, Args: []string{"sh", arg}, Env: []string{env}, Writes: []string{write},
			DirFD: -1, Stdio: [3]int{-1, -1, -1}}
		b, err := c.Message()
		hasNUL := strings.ContainsRune(path+arg+env+write, 0)
		if hasNUL != (err != nil) {
			t.Fatalf("Message of %+v: %v (NUL byte: %v)", c, err, hasNUL)
		}
		if err != nil {
			return
		}
		got, err := parseMessage(b)
		if path == "" {
			return // no program: refused, rightly
		}
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Fatalf("round trip of %+v: %+v, %v", c, got, err)
		}
	})
}
