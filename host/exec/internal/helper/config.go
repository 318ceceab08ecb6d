// Package helper is the sandbox helper: the process a sandboxed run
// starts (this same program, re-executed) that confines itself and then
// starts the command. Its initializer runs the helper when the process is
// one, and exits.
//
// It imports only os, os/signal, runtime, strconv, syscall, time and
// unsafe, and no package of ours: a package is initialized once
// everything it imports is, so this one's initializer runs right after
// os's, before those of the packages that sort before it and that it
// does not need (crypto, encoding/gob, encoding/json, golang.org/x/sys
// and what else the program links). A helper of agent-host starts its
// work about 0.7 ms earlier than it did from host/exec's initializer.
// The instructions come as the helper's arguments, not as JSON, for the
// same reason.
package helper

import (
	"errors"
	"strconv"
	"time"
)

// Env is the environment variable that makes a process the helper. Only
// a Runner sets it, and the helper removes it before the command runs.
const Env = "AGENTHOST_SANDBOX_HELPER_V1"

// Name is the helper's argv[0], which ps shows.
const Name = "agenthost-sandbox"

// Grant is a path the command may read beneath (a directory) or read (a
// file).
type Grant struct {
	Path string
	Dir  bool
}

// Config is what the parent tells the helper.
type Config struct {
	// Confine is false for a helper that only starts the command in
	// DirFD (a run without /proc/self/fd): it changes directory and
	// execs.
	Confine bool
	Path    string   // the program, resolved
	Args    []string // argv, argv[0] included
	DirFD   int      // the directory to start in; -1: stay
	// StatusFD receives the command's wait status (4 bytes) before the
	// helper exits; -1: none.
	StatusFD int
	// LateFD, when not -1, is a pipe on which the parent writes the rest
	// of the instructions (Late: the read grants) once it has taken the
	// protected set's baseline, which it does while the helper starts;
	// the command is not started until that stream has ended with its
	// "go" record.
	LateFD int
	// Landlock: the handled rights, the rights of each kind of rule and
	// the rules. WriteFDs are descriptors the parent opened; Reads,
	// Writes and DevFiles are paths the helper opens.
	Landlock   bool
	HandledFS  uint64
	HandledNet uint64
	Scoped     uint64
	DirRead    uint64 // a readable directory
	FileRead   uint64 // a readable file
	WriteMask  uint64 // added to DirRead for a writable directory
	FileWrite  uint64 // a writable device file
	WriteFDs   []int
	Writes     []string
	Reads      []Grant
	DevFiles   []string
	// Seccomp is the filter to install (classic BPF, 8 bytes an
	// instruction in the machine's byte order); empty: none.
	Seccomp []byte
	// DrainGrace is how long the helper waits, once the command has
	// exited, for the processes it left before it exits and the kernel
	// kills them (with the PID namespace).
	DrainGrace time.Duration
}

// Argv returns the helper's command line for c: Name, then one
// "key=value" argument per field or list item. An argument may hold any
// byte but NUL, as the paths and arguments themselves.
func (c *Config) Argv() []string {
	a := []string{Name}
	kv := func(k, v string) { a = append(a, k+"="+v) }
	num := func(k string, v uint64) { kv(k, strconv.FormatUint(v, 10)) }
	if c.Confine {
		kv("confine", "1")
	}
	kv("path", c.Path)
	for _, s := range c.Args {
		kv("arg", s)
	}
	kv("dirfd", strconv.Itoa(c.DirFD))
	kv("statusfd", strconv.Itoa(c.StatusFD))
	if c.LateFD >= 0 {
		kv("latefd", strconv.Itoa(c.LateFD))
	}
	if c.Landlock {
		kv("landlock", "1")
		num("fs", c.HandledFS)
		num("net", c.HandledNet)
		num("scoped", c.Scoped)
		num("dirread", c.DirRead)
		num("fileread", c.FileRead)
		num("writemask", c.WriteMask)
		num("filewrite", c.FileWrite)
	}
	for _, fd := range c.WriteFDs {
		kv("writefd", strconv.Itoa(fd))
	}
	for _, p := range c.Writes {
		kv("write", p)
	}
	for _, g := range c.Reads {
		if g.Dir {
			kv("readdir", g.Path)
		} else {
			kv("readfile", g.Path)
		}
	}
	for _, p := range c.DevFiles {
		kv("dev", p)
	}
	if len(c.Seccomp) > 0 {
		kv("seccomp", hexEncode(c.Seccomp))
	}
	num("drain", uint64(c.DrainGrace))
	return a
}

var errArgs = errors.New("bad helper arguments")

// parse is Argv's inverse.
func parse(argv []string) (*Config, error) {
	if len(argv) == 0 || argv[0] != Name {
		return nil, errArgs
	}
	c := &Config{DirFD: -1, StatusFD: -1, LateFD: -1}
	for _, s := range argv[1:] {
		if err := c.set(s); err != nil {
			return nil, err
		}
	}
	if c.Path == "" || len(c.Args) == 0 {
		return nil, errArgs
	}
	return c, nil
}

// set applies one "key=value" argument to c.
func (c *Config) set(s string) error {
	eq := 0
	for eq < len(s) && s[eq] != '=' {
		eq++
	}
	if eq == len(s) {
		return errArgs
	}
	k, v := s[:eq], s[eq+1:]
	var err error
	u := func(p *uint64) { *p, err = strconv.ParseUint(v, 10, 64) }
	i := func(p *int) { *p, err = strconv.Atoi(v) }
	switch k {
	case "confine":
		c.Confine = v == "1"
	case "path":
		c.Path = v
	case "arg":
		c.Args = append(c.Args, v)
	case "dirfd":
		i(&c.DirFD)
	case "statusfd":
		i(&c.StatusFD)
	case "latefd":
		i(&c.LateFD)
	case "landlock":
		c.Landlock = v == "1"
	case "fs":
		u(&c.HandledFS)
	case "net":
		u(&c.HandledNet)
	case "scoped":
		u(&c.Scoped)
	case "dirread":
		u(&c.DirRead)
	case "fileread":
		u(&c.FileRead)
	case "writemask":
		u(&c.WriteMask)
	case "filewrite":
		u(&c.FileWrite)
	case "writefd":
		var fd int
		i(&fd)
		c.WriteFDs = append(c.WriteFDs, fd)
	case "write":
		c.Writes = append(c.Writes, v)
	case "readdir", "readfile":
		c.Reads = append(c.Reads, Grant{Path: v, Dir: k == "readdir"})
	case "dev":
		c.DevFiles = append(c.DevFiles, v)
	case "seccomp":
		c.Seccomp, err = hexDecode(v)
	case "drain":
		var d uint64
		u(&d)
		c.DrainGrace = time.Duration(d)
	default:
		return errArgs
	}
	if err != nil {
		return errArgs
	}
	return nil
}

// Late returns the stream the parent writes on LateFD once the command
// may start: the read grants as "key=value" records, each ended by a NUL
// byte, then the record "go=1".
func Late(reads []Grant) []byte {
	var b []byte
	for _, g := range reads {
		k := "readfile="
		if g.Dir {
			k = "readdir="
		}
		b = append(append(append(b, k...), g.Path...), 0)
	}
	return append(b, "go=1\x00"...)
}

// setLate applies the stream Late made to c; it fails unless the stream
// ends with "go=1" (the parent gave up: the command must not start).
func (c *Config) setLate(b []byte) error {
	start := 0
	for i := 0; i < len(b); i++ {
		if b[i] != 0 {
			continue
		}
		rec := string(b[start:i])
		start = i + 1
		if rec == "go=1" {
			if start != len(b) {
				return errArgs
			}
			return nil
		}
		if len(rec) < 8 || (rec[:8] != "readdir=" && (len(rec) < 9 || rec[:9] != "readfile=")) {
			return errArgs
		}
		if err := c.set(rec); err != nil {
			return err
		}
	}
	return errNoGo
}

var errNoGo = errors.New("the parent did not let the command start")

// hexEncode and hexDecode are encoding/hex's, which would bring fmt and
// reflect (and their initializers) to the helper.
func hexEncode(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}

func hexDecode(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, errArgs
	}
	val := func(c byte) (byte, bool) {
		switch {
		case '0' <= c && c <= '9':
			return c - '0', true
		case 'a' <= c && c <= 'f':
			return c - 'a' + 10, true
		}
		return 0, false
	}
	out := make([]byte, len(s)/2)
	for i := range out {
		hi, ok1 := val(s[2*i])
		lo, ok2 := val(s[2*i+1])
		if !ok1 || !ok2 {
			return nil, errArgs
		}
		out[i] = hi<<4 | lo
	}
	return out, nil
}
