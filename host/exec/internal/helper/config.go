// Package helper is the sandbox helper: the process a sandboxed run
// starts (this same program, re-executed) that confines itself and then
// starts the command. Its initializer runs the helper when the process is
// one, and exits.
//
// It imports no package of ours and few of the standard library's, so
// that its initializer runs early: Go initializes a package once its
// imports are, in the order of their import paths where nothing else
// decides, so this one runs after its own imports (os, os/signal,
// syscall, golang.org/x/sys/unix, ...) and after the standard packages
// that sort before "github.com/" (crypto, encoding, flag: 38 of
// agent-host's 53 initializers), but before everything else of the
// program's.
// The instructions are "key=value" records, not JSON, for the same
// reason: a confining helper (ServeArgv) gets them in one message on a
// socket with the descriptors they name, so that it can be started
// before its command is known (docs/adr/0012); a start-only helper gets
// them as its arguments.
package helper

import (
	"errors"
	"strconv"
	"syscall"
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

// ServeFD is the descriptor on which a helper started with ServeArgv
// gets its instructions: one end of a Unix stream socket, the other end
// the parent's.
const ServeFD = 3

// ServeArgv returns the command line of a helper that confines a command:
// it waits on ServeFD for a Message with the descriptors it names, then
// confines itself and starts the command (see Config). It can be started
// before the command is known (a Runner keeps one waiting) and exits,
// starting nothing, when the socket ends without the message's "go"
// record (the parent gave up, closed it, or died).
func ServeArgv() []string { return []string{Name, "serve"} }

// Config is what the parent tells the helper: as its arguments (Argv) for
// a helper that only starts the command in DirFD, or as a Message on
// ServeFD for one that confines it.
type Config struct {
	Path string   // the program, resolved
	Args []string // argv, argv[0] included
	// Env is the command's environment (a Message only: a start-only
	// helper passes its own on).
	Env []string
	// DirFD is the directory to start in; -1: stay. In a Message it is
	// an index into the descriptors the message carries, as Stdio and
	// WriteFDs are.
	DirFD int
	// Stdio are the command's standard input, output and error (a
	// Message only); -1: the helper's own (/dev/null).
	Stdio [3]int
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
	// View, when not empty, is the mount-namespace view the command runs
	// in (a Message only; see ViewOp). ViewCwd is the start directory's
	// path inside it, which must be the directory DirFD names.
	// ViewRequired makes a view that cannot be made a failure of the run;
	// otherwise the command runs without it and the status says so
	// (ViewFailed).
	View         []ViewOp
	ViewCwd      string
	ViewRequired bool
	// listAll (the helper's own, once the view is made) lets every
	// directory of the view be listed.
	listAll bool
	// Listen, when not 0, is the port on 127.0.0.1 of the helper's
	// network namespace where the Host's proxy listens (Sandbox.AllowNet,
	// docs/adr/0022): before anything else the helper brings the
	// namespace's loopback up, listens there and passes the listening
	// socket to the parent on its socket (a Message only): one byte
	// ListenOK with the descriptor, or ListenFailed without one, then
	// it fails the run.
	Listen int
	// ConnectPorts are the TCP ports the command may connect to, when
	// HandledNet handles connecting (Landlock net-port rules).
	ConnectPorts []int
	// ProxyPort, when not 0, makes the helper's supervisor (no view,
	// meta_linux.go) answer every connect(2) of the command: one to
	// 127.0.0.1 on this port is made by the helper, to that address,
	// on the command's socket; any other is refused (ECONNREFUSED).
	// Landlock's port rule cannot say which address.
	ProxyPort int
	// DrainGrace is how long the helper waits, once the command has
	// exited, for the processes it left before it exits and the kernel
	// kills them (with the PID namespace).
	DrainGrace time.Duration
}

// records returns c as "key=value" records, one per field or list item.
// A record may hold any byte but NUL, as the paths and arguments
// themselves.
func (c *Config) records() []string {
	var a []string
	kv := func(k, v string) { a = append(a, k+"="+v) }
	num := func(k string, v uint64) { kv(k, strconv.FormatUint(v, 10)) }
	kv("path", c.Path)
	for _, s := range c.Args {
		kv("arg", s)
	}
	for _, s := range c.Env {
		kv("env", s)
	}
	kv("dirfd", strconv.Itoa(c.DirFD))
	for i, k := range []string{"stdin", "stdout", "stderr"} {
		if c.Stdio[i] >= 0 {
			kv(k, strconv.Itoa(c.Stdio[i]))
		}
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
	if c.Listen != 0 {
		kv("listen", strconv.Itoa(c.Listen))
	}
	for _, p := range c.ConnectPorts {
		kv("netport", strconv.Itoa(p))
	}
	if c.ProxyPort != 0 {
		kv("proxyport", strconv.Itoa(c.ProxyPort))
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
	for _, op := range c.View {
		kv("view", string(op.Kind)+hexEncode([]byte(op.Path))+":"+hexEncode([]byte(op.Src))+":"+strconv.Itoa(op.FD))
	}
	if c.ViewCwd != "" {
		kv("viewcwd", c.ViewCwd)
	}
	if c.ViewRequired {
		kv("viewrequired", "1")
	}
	num("drain", uint64(c.DrainGrace))
	return a
}

// Argv returns the command line of a helper that starts c's command in
// DirFD without confining it (a run without /proc/self/fd): Name, then
// one argument per record.
func (c *Config) Argv() []string {
	return append([]string{Name}, c.records()...)
}

// Message returns the instructions a helper started with ServeArgv
// waits for: c's records, each ended by a NUL byte, then the record
// "go=1". The descriptors c names by index travel with it (SCM_RIGHTS).
// A record that would hold a NUL byte itself (a path, an argument or an
// environment entry with one: a model's "\u0000") would end early and
// let the rest pass for records of their own, a write rule on "/" say:
// Message then returns no message and an error matching syscall.EINVAL,
// what starting such a command without the helper gives.
func (c *Config) Message() ([]byte, error) {
	recs := c.records()
	n := len("go=1\x00")
	for _, r := range recs {
		for i := 0; i < len(r); i++ {
			if r[i] == 0 {
				return nil, errNUL{}
			}
		}
		n += len(r) + 1
	}
	// One allocation of the final size: a message is a few KB, and a
	// buffer grown by doubling touches twice the pages (issue 21 counts
	// the page faults of a sandboxed start).
	b := make([]byte, 0, n)
	for _, r := range recs {
		b = append(append(b, r...), 0)
	}
	return append(b, "go=1\x00"...), nil
}

// errNUL is Message's error for a NUL byte inside a record.
type errNUL struct{}

func (errNUL) Error() string {
	return "sandbox helper: the program's path, an argument or an environment entry holds a NUL byte"
}
func (errNUL) Unwrap() error { return syscall.EINVAL }

var errArgs = errors.New("bad helper arguments")

// newConfig is a Config with no descriptors.
func newConfig() *Config {
	return &Config{DirFD: -1, Stdio: [3]int{-1, -1, -1}}
}

// parse is Argv's inverse.
func parse(argv []string) (*Config, error) {
	if len(argv) == 0 || argv[0] != Name {
		return nil, errArgs
	}
	c := newConfig()
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

// parseMessage is Message's inverse; it fails unless the message ends
// with "go=1" (the parent gave up: the command must not start).
func parseMessage(b []byte) (*Config, error) {
	c := newConfig()
	// One copy of the whole message, which the records are slices of,
	// not one allocation per record.
	s := string(b)
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != 0 {
			continue
		}
		rec := s[start:i]
		start = i + 1
		if rec == "go=1" {
			if start != len(s) {
				return nil, errArgs
			}
			if c.Path == "" || len(c.Args) == 0 {
				return nil, errArgs
			}
			return c, nil
		}
		if err := c.set(rec); err != nil {
			return nil, err
		}
	}
	return nil, errNoGo
}

var errNoGo = errors.New("the parent did not let the command start")

// set applies one "key=value" record to c.
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
	i := func(p *int) {
		*p, err = strconv.Atoi(v)
		if err == nil && *p < -1 {
			err = errArgs
		}
	}
	switch k {
	case "path":
		c.Path = v
	case "arg":
		c.Args = append(c.Args, v)
	case "env":
		c.Env = append(c.Env, v)
	case "dirfd":
		i(&c.DirFD)
	case "stdin":
		i(&c.Stdio[0])
	case "stdout":
		i(&c.Stdio[1])
	case "stderr":
		i(&c.Stdio[2])
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
	case "listen":
		i(&c.Listen)
	case "netport":
		var p int
		i(&p)
		c.ConnectPorts = append(c.ConnectPorts, p)
	case "proxyport":
		i(&c.ProxyPort)
	case "readdir", "readfile":
		c.Reads = append(c.Reads, Grant{Path: v, Dir: k == "readdir"})
	case "dev":
		c.DevFiles = append(c.DevFiles, v)
	case "seccomp":
		c.Seccomp, err = hexDecode(v)
	case "view":
		var op ViewOp
		op, err = parseViewOp(v)
		c.View = append(c.View, op)
	case "viewcwd":
		c.ViewCwd = v
	case "viewrequired":
		c.ViewRequired = v == "1"
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

// resolveFDs replaces the descriptor indices of a Message (DirFD, Stdio,
// WriteFDs) with the descriptors received, fds; an index out of range is
// an error.
func (c *Config) resolveFDs(fds []int) error {
	at := func(p *int) error {
		if *p < 0 {
			return nil
		}
		if *p >= len(fds) {
			return errArgs
		}
		*p = fds[*p]
		return nil
	}
	if err := at(&c.DirFD); err != nil {
		return err
	}
	for i := range c.Stdio {
		if err := at(&c.Stdio[i]); err != nil {
			return err
		}
	}
	for i := range c.WriteFDs {
		if err := at(&c.WriteFDs[i]); err != nil {
			return err
		}
	}
	for i := range c.View {
		if err := at(&c.View[i].FD); err != nil {
			return err
		}
	}
	return nil
}

// ViewOp is one entry of a command's view: what appears at Path.
type ViewOp struct {
	Kind byte   // one of the View* kinds
	Path string // absolute, in the view
	// Src is the host path bound at Path (ViewRead, ViewWrite; "" means
	// Path), the target of a ViewLink, or the contents of a ViewFile.
	Src string
	// FD is, for a ViewRoot, the index of the descriptor the jail opened
	// for it (the path must lead to that directory); -1 otherwise.
	FD int
}

// The kinds of ViewOp.
const (
	ViewRead    = 'r' // Src bound read-only at Path
	ViewWrite   = 'w' // Src bound read-write at Path
	ViewRoot    = 'R' // a root, read-write, checked against FD
	ViewTmpfs   = 't' // an empty, writable tmpfs (/tmp)
	ViewHome    = 'h' // an empty tmpfs made read-only once filled (the home directory)
	ViewLink    = 'l' // a symbolic link to Src
	ViewFile    = 'f' // a read-only file holding Src (a generated .gitconfig)
	ViewProtect = 'p' // Path, if present in the view, bound read-only onto itself
	ViewMask    = 'm' // Path, if present in the view, hidden behind an empty read-only mask
	// ViewOverlay puts a writable layer over the read-only Path (a
	// user's cache): an overlay whose upper and work directories are
	// made in Src, a directory the command may write. Reads see the
	// user's cache, writes land in Src only.
	ViewOverlay = 'o'
)

func parseViewOp(v string) (ViewOp, error) {
	op := ViewOp{FD: -1}
	if len(v) < 1 {
		return op, errArgs
	}
	op.Kind = v[0]
	parts := [3]string{}
	n, start := 0, 1
	for i := 1; i <= len(v); i++ {
		if i == len(v) || v[i] == ':' {
			if n == 3 {
				return op, errArgs
			}
			parts[n] = v[start:i]
			n++
			start = i + 1
		}
	}
	if n != 3 {
		return op, errArgs
	}
	p, err := hexDecode(parts[0])
	if err != nil || len(p) == 0 || p[0] != '/' {
		return op, errArgs
	}
	s, err := hexDecode(parts[1])
	if err != nil {
		return op, errArgs
	}
	fd, err := strconv.Atoi(parts[2])
	if err != nil || fd < -1 {
		return op, errArgs
	}
	op.Path, op.Src, op.FD = string(p), string(s), fd
	return op, nil
}

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

// The byte a helper told to Listen sends first on its socket: ListenOK
// with the listening socket (SCM_RIGHTS), ListenFailed without it.
const (
	ListenOK     = 'L'
	ListenFailed = 'E'
)
