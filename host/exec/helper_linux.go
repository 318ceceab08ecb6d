package exec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// helperConfig is what the parent tells the helper, in the environment
// variable helperEnv.
type helperConfig struct {
	// Confine is false for a helper that only starts the command in
	// DirFD (a run without /proc/self/fd): it changes directory and execs.
	Confine bool
	Path    string   // the program, resolved
	Args    []string // argv, argv[0] included
	DirFD   int      // the directory to start in; -1: stay
	// StatusFD receives the command's wait status (4 bytes) before the
	// helper exits; -1: none.
	StatusFD int
	// Landlock: the handled rights and the rules. RootFDs are descriptors
	// the parent opened; Reads and Writes are paths the helper opens.
	Landlock   bool
	HandledFS  uint64
	HandledNet uint64
	Scoped     uint64
	WriteFDs   []int
	Writes     []string
	Reads      []readGrant
	DevFiles   []string
	WriteMask  uint64
	FileWrite  uint64
	// Seccomp installs the filter; UnixSockets leaves socket(AF_UNIX).
	Seccomp     bool
	UnixSockets bool
	// DrainGrace is how long the helper waits, once the command has
	// exited, for the processes it left before it exits and the kernel
	// kills them (with the PID namespace).
	DrainGrace time.Duration
}

// helperMain is the helper: it confines its locked thread, forks the
// command from it, waits for the command and for what it left, reports
// the status and exits. Its exit code is the command's (128+N for signal
// N); the wait status itself goes to StatusFD. A failure before the
// command started is printed on standard error with exit code 126.
func helperMain(arg string) int {
	os.Unsetenv(helperEnv)
	var cfg helperConfig
	if err := json.Unmarshal([]byte(arg), &cfg); err != nil {
		return helperFail("bad instructions: %v", err)
	}
	if cfg.StatusFD >= 0 {
		unix.CloseOnExec(cfg.StatusFD) // the command must not inherit it
	}
	if cfg.DirFD >= 0 {
		if err := unix.Fchdir(cfg.DirFD); err != nil {
			return helperFail("fchdir: %v", err)
		}
		unix.Close(cfg.DirFD)
	}
	if !cfg.Confine {
		err := unix.Exec(cfg.Path, cfg.Args, os.Environ())
		return helperFail("exec %s: %v", cfg.Path, err)
	}
	// Signals sent to the group reach the command directly; the helper
	// (pid 1 of the namespace: the kernel drops what it does not handle)
	// notes them and waits for the command instead. Handled, not
	// ignored: an ignored signal would stay ignored in the command.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT)
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

	runtime.LockOSThread() // never unlocked: the thread stays confined
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return helperFail("no_new_privs: %v", err)
	}
	if cfg.Landlock {
		if err := applyLandlock(&cfg); err != nil {
			return helperFail("landlock: %v", err)
		}
	}
	if cfg.Seccomp {
		if err := seccompInstall(seccompRules(cfg.UnixSockets)); err != nil {
			return helperFail("seccomp: %v", err)
		}
	}
	pid, err := syscall.ForkExec(cfg.Path, cfg.Args, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		return helperFail("start %s: %v", cfg.Path, err)
	}
	// The helper no longer needs the output pipes: EOF then tells the
	// parent that the command's tree let go of them.
	if null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
		unix.Dup3(null, 0, 0)
		unix.Dup3(null, 1, 0)
		unix.Dup3(null, 2, 0)
		unix.Close(null)
	}

	status := reapUntil(pid)
	// Others may be left (a background job, a daemon). Give them up to
	// DrainGrace to finish writing, then exit: the kernel kills the rest
	// of the PID namespace with the helper.
	deadline := time.Now().Add(cfg.DrainGrace)
	for time.Now().Before(deadline) {
		var ws unix.WaitStatus
		p, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if err == unix.ECHILD {
			break
		}
		if p == 0 || err != nil {
			time.Sleep(2 * time.Millisecond)
		}
	}
	if cfg.StatusFD >= 0 {
		var b [4]byte
		binary.NativeEndian.PutUint32(b[:], uint32(status))
		unix.Write(cfg.StatusFD, b[:])
	}
	select {
	case <-sigs:
	default:
	}
	switch {
	case status.Exited():
		return status.ExitStatus()
	case status.Signaled():
		return 128 + int(status.Signal())
	}
	return 126
}

// reapUntil reaps children (orphans come to the helper, a subreaper or
// pid 1) until pid exits, and returns pid's status.
func reapUntil(pid int) unix.WaitStatus {
	for {
		var ws unix.WaitStatus
		p, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return ws // ECHILD: not expected
		}
		if p == pid {
			return ws
		}
	}
}

// applyLandlock builds the ruleset of cfg and confines the calling
// thread to it.
func applyLandlock(cfg *helperConfig) error {
	rs, err := llCreate(cfg.HandledFS, cfg.HandledNet, cfg.Scoped)
	if err != nil {
		return fmt.Errorf("create ruleset: %w", err)
	}
	defer unix.Close(rs)
	add := func(fd int, access uint64, what string) error {
		if err := llAddPath(rs, fd, access); err != nil {
			return fmt.Errorf("rule for %s: %w", what, err)
		}
		return nil
	}
	openPath := func(p string) (int, error) {
		return unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	}
	for _, g := range cfg.Reads {
		fd, err := openPath(g.Path)
		if err != nil {
			continue // gone meanwhile: nothing to read there
		}
		access := uint64(llRead)
		if !g.Dir {
			access = llFileRead
		}
		err = add(fd, access, g.Path)
		unix.Close(fd)
		if err != nil {
			return err
		}
	}
	for _, fd := range cfg.WriteFDs {
		if err := add(fd, llRead|cfg.WriteMask, fmt.Sprintf("root fd %d", fd)); err != nil {
			return err
		}
		unix.Close(fd)
	}
	for _, p := range cfg.Writes {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // missing: nothing there to write to (and it cannot be made)
		}
		err = add(fd, llRead|cfg.WriteMask, p)
		unix.Close(fd)
		if err != nil {
			return err
		}
	}
	for _, p := range cfg.DevFiles {
		fd, err := openPath(p)
		if err != nil {
			continue // no /dev/tty, say
		}
		err = add(fd, cfg.FileWrite, p)
		unix.Close(fd)
		if err != nil {
			return err
		}
	}
	return llRestrict(rs)
}

// helperFail reports a failure of the helper before the command ran.
func helperFail(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(os.Stderr, "agenthost sandbox: %s\n", strings.TrimSpace(msg))
	return 126
}
