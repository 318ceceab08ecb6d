package exec

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/agenthost/agenthost/host/exec/internal/helper"

	"golang.org/x/sys/unix"
)

// nsBroken is set once starting the helper in new namespaces failed (user
// namespaces disabled, a container that forbids them): later runs do not
// try again and report the namespaces missing.
var nsBroken atomic.Bool

// nsFlags are the namespaces a sandboxed command gets: a user namespace
// (which lets an unprivileged user make the others), no network, its
// own process ids (the helper is pid 1: when it exits every process of
// the command's tree dies) and its own System V IPC.
const nsFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNET | unix.CLONE_NEWPID | unix.CLONE_NEWIPC

// sandboxRun is the parent's side of a run started through the helper.
type sandboxRun struct {
	report *Report
	// The late pipe (helper.Config.LateFD), until the start; late makes
	// what goes on it, lateDone is closed once it went.
	lateR, lateW *os.File
	late         func() []byte
	lateDone     chan struct{}
	statusR      int      // read end of the helper's status pipe (non-blocking); -1 none
	statusW      *os.File // its write end, for the helper
	snap         *protectSnap
	usedNS       bool
	required     bool
}

// wrap turns cmd into a run of the helper when s asks for a sandbox, or
// when s.dir must be entered without /proc. It returns nil when cmd runs
// as it is.
func (r *Runner) wrap(ctx context.Context, cmd *osexec.Cmd, s spec) (*sandboxRun, error) {
	if s.sandbox == nil {
		if s.dir == nil || haveProcFD() {
			return nil, nil
		}
		exe := helperExe.Load()
		if !helperInstalled.Load() || exe == nil {
			return nil, fmt.Errorf("%w: /proc/self/fd is missing and the sandbox helper is not installed (call exec.SandboxMain at the top of main)", ErrNoStartDir)
		}
		cfg := helper.Config{Path: cmd.Path, Args: cmd.Args, DirFD: 3, StatusFD: -1, LateFD: -1}
		cmd.Path, cmd.Args, cmd.Dir = helperPath(*exe), cfg.Argv(), ""
		cmd.ExtraFiles = []*os.File{s.dir}
		cmd.Env = append(cmd.Env, helper.Env+"=1")
		return &sandboxRun{statusR: -1}, nil
	}
	sb := s.sandbox
	rep := &Report{}
	sr := &sandboxRun{report: rep, required: sb.Required, statusR: -1}
	var missing []string
	miss := func(part, why string) { missing = append(missing, part+": "+why) }

	// The parts the parent does itself: the environment and the
	// protected set.
	base, _ := sb.scrubEnv(cmd.Env[:len(cmd.Env)-len(s.env)])
	rep.Enforced = append(rep.Enforced, "env")

	exe := helperExe.Load()
	if !helperInstalled.Load() || exe == nil {
		miss("helper", "this program did not call exec.SandboxMain at the top of main, so nothing confines the command")
		if sb.Required {
			return nil, missingError(missing)
		}
		rep.Missing = missing
		cmd.Env = append(base, s.env...)
		var err error
		if sr.snap, err = snapshotProtected(ctx, sb, s.timeout); err != nil {
			return nil, err
		}
		rep.Enforced = append(rep.Enforced, "protect")
		return sr, nil
	}

	tmp, err := r.sessionTmp()
	if err != nil {
		return nil, fmt.Errorf("exec: sandbox temporary directory: %w", err)
	}
	cfg := helper.Config{
		Confine: true, Path: cmd.Path, Args: cmd.Args, DirFD: -1, StatusFD: -1, LateFD: -1,
		DrainGrace: r.limits.DrainGrace,
	}
	var extra []*os.File
	fdOf := func(f *os.File) int { extra = append(extra, f); return 2 + len(extra) }
	if s.dir != nil {
		cfg.DirFD = fdOf(s.dir)
		cmd.Dir = ""
	}
	// Only the read end is non-blocking (and never wrapped in an
	// os.File, whose Fd would make it blocking again): it is read once,
	// after the helper has exited or been killed.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("exec: pipe: %w", err)
	}
	if err := unix.SetNonblock(p[0], true); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, fmt.Errorf("exec: pipe: %w", err)
	}
	pw := os.NewFile(uintptr(p[1]), "|status")
	sr.statusR, sr.statusW = p[0], pw
	cfg.StatusFD = fdOf(pw)

	// The late pipe: the rest of the instructions, once the baseline
	// is taken (helper.Config.LateFD).
	lr, lw, err := os.Pipe()
	if err != nil {
		sr.close()
		return nil, fmt.Errorf("exec: pipe: %w", err)
	}
	sr.lateR, sr.lateW = lr, lw
	cfg.LateFD = fdOf(lr)
	var reads []readGrant
	lateGrants := false

	abi := landlockABI()
	if abi == 0 {
		miss("landlock", "the kernel has no Landlock (Linux 5.13 or newer with lsm=landlock)")
	} else {
		cfg.Landlock = true
		cfg.HandledFS, cfg.WriteMask = llHandledFS(abi)
		cfg.DirRead, cfg.FileRead = llRead, llFileRead
		cfg.FileWrite = llFileWrite(abi)
		if inOuterRun() {
			// Inside another run: the grants may come out whole, which
			// must be known (and reported) before the start.
			var whole bool
			reads, whole = readGrants(sb.denyPaths(), true)
			if whole {
				miss("landlock-read", "this process runs inside another sandboxed run, which keeps directories on the way to the denied paths from being listed: they are readable whole, so only the outer run's deny list holds beneath them")
			}
		} else {
			lateGrants = true // listed while the helper starts
		}
		cfg.Writes = append([]string{tmp}, sb.WritePaths...)
		if len(sb.RootDirs) == len(sb.Roots) && len(sb.RootDirs) > 0 {
			for _, f := range sb.RootDirs {
				cfg.WriteFDs = append(cfg.WriteFDs, fdOf(f))
			}
		} else {
			cfg.Writes = append(cfg.Writes, sb.Roots...)
		}
		cfg.DevFiles = []string{"/dev/null", "/dev/zero", "/dev/tty"}
		rep.Enforced = append(rep.Enforced, "landlock-fs")
		rep.LandlockABI = abi
		if !sb.Network {
			if abi >= 4 {
				cfg.HandledNet = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
				rep.Enforced = append(rep.Enforced, "landlock-net")
			}
		}
		if abi >= 6 {
			cfg.Scoped = unix.LANDLOCK_SCOPE_SIGNAL
			if !sb.Network {
				cfg.Scoped |= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
			}
			rep.Enforced = append(rep.Enforced, "landlock-scope")
		}
	}
	if haveSeccomp {
		cfg.Seccomp = seccompBytes(seccompRules(sb.Network))
		rep.Enforced = append(rep.Enforced, "seccomp")
	} else {
		miss("seccomp", "no filter for this architecture: setuid bits, xattrs and unix sockets are not refused")
	}
	attr := &syscall.SysProcAttr{Setsid: true}
	if nsBroken.Load() {
		miss("namespaces", "this system refused a new user namespace: the network stays reachable and a daemon in a new session can outlive the run")
	} else {
		flags := uintptr(nsFlags)
		if sb.Network {
			flags &^= unix.CLONE_NEWNET
		}
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags = flags
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		sr.usedNS = true
		rep.Enforced = append(rep.Enforced, "userns", "pidns", "ipcns")
		if !sb.Network {
			rep.Enforced = append(rep.Enforced, "netns")
		}
	}
	if sb.Required && len(missing) > 0 {
		sr.close()
		return nil, missingError(missing)
	}
	rep.Missing = missing

	env := append(base,
		"TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp,
		"XDG_CACHE_HOME="+filepath.Join(tmp, "cache"),
		"npm_config_cache="+filepath.Join(tmp, "npm"),
	)
	env = append(env, s.env...)
	cmd.Env = append(env, helper.Env+"=1")
	cmd.Path, cmd.Args = helperPath(*exe), cfg.Argv()
	cmd.ExtraFiles = extra
	cmd.SysProcAttr = attr

	if sr.snap, err = holdProtected(ctx, sb, s.timeout); err != nil {
		sr.close()
		return nil, err
	}
	cmd.Env = append(cmd.Env, heldEnv+"="+heldValue(sr.snap.held))
	// The read grants (unless made above) and the protected set's
	// baseline are made once the helper has been started, while it
	// starts; it waits for them on the late pipe before it confines
	// itself and starts the command (see started).
	snap := sr.snap
	sr.late = func() []byte {
		g := reads
		if lateGrants {
			g, _ = readGrants(sb.denyPaths(), false)
		}
		snap.baseline()
		return helper.Late(g)
	}
	rep.Enforced = append(rep.Enforced, "protect")
	return sr, nil
}

// started is told that the helper started (or failed to, err): it makes
// the late instructions and the baseline in a goroutine and sends them
// on the late pipe. finish and close wait for it.
func (sr *sandboxRun) started(err error) {
	if sr.lateW == nil {
		return
	}
	sr.lateR.Close() // the helper has its copy
	sr.lateR = nil
	w := sr.lateW
	sr.lateW = nil
	if err != nil {
		w.Close()
		return
	}
	sr.lateDone = make(chan struct{})
	go func() {
		defer close(sr.lateDone)
		w.Write(sr.late()) // EPIPE when the helper is gone already: nothing starts
		w.Close()
	}()
}

// waitLate waits until started's goroutine, if any, is done: the baseline
// is then complete.
func (sr *sandboxRun) waitLate() {
	if sr.lateDone != nil {
		<-sr.lateDone
	}
}

// helperPath is the file to run as the helper: /proc/self/exe, which is
// this program's image even when its file was replaced or removed since it
// started (an upgrade), else the path SandboxMain found.
func helperPath(exe string) string {
	if haveProcFD() {
		return "/proc/self/exe"
	}
	return exe
}

// startRefused reports whether err is the kernel refusing the
// namespaces of a start. EACCES is what a process inside a sandbox gets
// (an agent-host exec run by a sandboxed command): Landlock refuses it
// the write of the new namespace's uid_map. Its run then goes on without
// namespaces of its own, inside the outer run's.
func startRefused(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.EINVAL) ||
		errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EUSERS) || errors.Is(err, unix.EACCES)
}

// finish completes out after the run: the command's own status from the
// helper, and the protected set checked and restored.
func (sr *sandboxRun) finish(out *Output) {
	if sr.statusR >= 0 {
		var b [4]byte
		if n, _ := unix.Read(sr.statusR, b[:]); n == 4 {
			ws := unix.WaitStatus(binary.NativeEndian.Uint32(b[:]))
			switch {
			case ws.Exited():
				out.ExitCode, out.Signal = ws.ExitStatus(), ""
			case ws.Signaled():
				out.ExitCode, out.Signal = -1, signalName(ws.Signal())
			}
		}
	}
	sr.waitLate()
	if sr.snap != nil {
		sr.report.Restored = sr.snap.restore()
	}
	out.Sandbox = sr.report
	sr.close()
}

func (sr *sandboxRun) close() {
	sr.waitLate()
	for _, f := range []**os.File{&sr.lateR, &sr.lateW} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
	sr.snap.release() // the hold on the roots, taken with the baseline
	if sr.statusR >= 0 {
		unix.Close(sr.statusR)
		sr.statusW.Close()
		sr.statusR, sr.statusW = -1, nil
	}
}
