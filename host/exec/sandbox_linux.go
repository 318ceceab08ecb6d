package exec

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agenthost/agenthost/host/exec/internal/helper"
	"github.com/agenthost/agenthost/host/exec/internal/netproxy"

	"golang.org/x/sys/unix"
)

// nsBroken is set once starting the helper in new namespaces failed (user
// namespaces disabled, a container that forbids them): later runs do not
// try again and report the namespaces missing.
var nsBroken atomic.Bool

// noProbe, set by a test before its first run, leaves the refusal for
// the first start to find, as where no setting shows it.
var noProbe bool

// probeRefused sets nsBroken, once a process, when a sysctl says that the
// kernel will refuse the user namespace: then the first run does not make
// its whole set-up twice, first for a start the kernel refuses, then
// without the namespaces (about 2.5 ms of every `agent-host exec` on such
// a machine, issue 22). Only the settings that refuse for certain count:
// with kernel.apparmor_restrict_unprivileged_userns a profile may allow
// agent-host, and Docker's seccomp profile shows in no setting; there the
// first start finds out.
var probeRefused = sync.OnceFunc(func() {
	if !noProbe && usernsSurelyRefused() != "" {
		nsBroken.Store(true)
	}
})

// nsFlags are the namespaces a sandboxed command gets: a user namespace
// (which lets an unprivileged user make the others), no network, its
// own process ids (the helper is pid 1: when it exits every process of
// the command's tree dies), its own System V IPC, and its own mounts,
// in which the helper builds the command's view (docs/adr/0014).
const nsFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNET | unix.CLONE_NEWPID | unix.CLONE_NEWIPC | unix.CLONE_NEWNS

// sandboxRun is the parent's side of a run started through the helper.
type sandboxRun struct {
	r      *Runner
	report *Report
	// For a confined run (start): the helper's program, its namespaces,
	// the instructions so far, the descriptors they will name and late,
	// which completes them just before the command starts.
	exe      string
	flags    uintptr
	cfg      helper.Config
	dir      *os.File   // the start directory; nil: the run's cwd, opened at the start
	cwd      string     // the run's cwd
	roots    []*os.File // the roots' descriptors, for the write rules
	late     func()
	h        *helperProc
	statusR  int // the helper's socket (non-blocking), read for the status once it exited; -1 none
	snap     *protectSnap
	usedNS   bool
	required bool
	// view: the command runs in a view (docs/adr/0014), planned at the
	// start from sb, tmp and home.
	// recovered and recoverFailed are what the run put back, or could
	// not, of a dead run's plants (its journal) before its baseline.
	recovered, recoverFailed []string
	view                     bool
	overlays                 []cacheOverlay
	sb                       *Sandbox
	tmp                      string
	home                     string
	deny                     []string // the deny list of this run (Sandbox.denyPaths), listed once
	epoch                    uint64   // the Runner's zygote epoch when the run took or started its helper
	// allow is Sandbox.AllowNet parsed (nil: no proxy); proxy is the
	// run's proxy, started in wrap (no namespace) or once the helper
	// passed its namespace's listener (start).
	allow *netproxy.AllowList
	proxy *netproxy.Server
}

// wrap turns cmd into a run of the helper when s asks for a sandbox, or
// when s.dir must be entered without /proc. It returns nil when cmd runs
// as it is.
func (r *Runner) wrap(ctx context.Context, cmd *osexec.Cmd, s spec) (*sandboxRun, error) {
	if s.sandbox == nil {
		if s.dir == nil || haveProcFD() {
			return nil, nil
		}
		exe := helperExe()
		if why := helperUnavailable(); why != "" {
			return nil, fmt.Errorf("%w: /proc/self/fd is missing and %s", ErrNoStartDir, why)
		}
		cfg := helper.Config{Path: cmd.Path, Args: cmd.Args, DirFD: 3}
		cmd.Path, cmd.Args, cmd.Dir = helperPath(*exe), cfg.Argv(), ""
		cmd.ExtraFiles = []*os.File{s.dir}
		cmd.Env = append(cmd.Env, helper.Env+"=1")
		return &sandboxRun{statusR: -1}, nil
	}
	sb := s.sandbox
	probeRefused()
	allow, err := allowList(sb)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	sr := &sandboxRun{report: rep, required: sb.strict(), statusR: -1, allow: allow}
	var missing []string
	miss := func(part, why string) { missing = append(missing, part+": "+why) }

	// The parts the parent does itself: the environment and the
	// protected set.
	base, _ := sb.scrubEnv(cmd.Env[:len(cmd.Env)-len(s.env)])
	rep.Enforced = append(rep.Enforced, "env")

	exe := helperExe()
	if why := helperUnavailable(); why != "" {
		miss("helper", why+", so nothing can confine the command")
		if sb.strict() {
			return nil, missingError(missing)
		}
		if s.dir != nil && !haveProcFD() {
			// Unconfined, it would start by the directory's path,
			// which a swap could redirect.
			return nil, fmt.Errorf("%w: /proc/self/fd is missing and %s", ErrNoStartDir, helperUnavailable())
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
	sr.r, sr.exe, sr.dir, sr.cwd = r, *exe, s.dir, s.cwd
	// The home directory the view shows and the second layer reads from.
	sr.home = sb.Home
	if sr.home == "" {
		sr.home, _ = os.UserHomeDir()
	}
	if h, err := filepath.EvalSymlinks(sr.home); err == nil {
		sr.home = h
	}
	cfg := &sr.cfg
	*cfg = helper.Config{Path: cmd.Path, Args: cmd.Args, DirFD: -1, Stdio: [3]int{-1, -1, -1}, DrainGrace: r.limits.DrainGrace}
	var reads []readGrant
	lateGrants := false

	abi := landlockABI()
	if abi == 0 {
		miss("landlock", "the kernel has no Landlock: writes and reads are not confined (Linux 5.13 or newer, with landlock in the lsm= boot parameter or CONFIG_LSM)")
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
			lateGrants = true // listed just before the start
		}
		cfg.Writes = append([]string{tmp}, sb.WritePaths...)
		if len(sb.RootDirs) == len(sb.Roots) && len(sb.RootDirs) > 0 {
			sr.roots = sb.RootDirs
		} else {
			cfg.Writes = append(cfg.Writes, sb.Roots...)
		}
		cfg.DevFiles = []string{"/dev/null", "/dev/zero", "/dev/tty"}
		rep.Enforced = append(rep.Enforced, "landlock-fs")
		rep.LandlockABI = abi
		if !sb.Network {
			if abi >= 4 {
				// With AllowNet, a connect rule for the proxy's port
				// is added once that port is known.
				cfg.HandledNet = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
				rep.Enforced = append(rep.Enforced, "landlock-net")
			}
		}
		if abi >= 6 {
			// Abstract unix sockets are scoped with Network too:
			// local sockets are not network (issue 21).
			cfg.Scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
			rep.Enforced = append(rep.Enforced, "landlock-scope")
		}
	}
	if haveSeccomp {
		// Whether the command gets a network namespace is known here:
		// a refused one was remembered (nsBroken) before this retry.
		cfg.Seccomp = seccompBytes(seccompRules(netRuleFor(sb.Network, sb.proxied(), !sb.Network && !nsBroken.Load())))
		rep.Enforced = append(rep.Enforced, "seccomp")
	} else {
		miss("seccomp", "no filter for this architecture: setuid bits, xattrs and unix sockets are not refused")
	}
	if nsBroken.Load() {
		miss("namespaces", "this system refused a new user namespace: "+noViewMeans)
	} else {
		sr.flags = uintptr(nsFlags)
		if sb.Network {
			sr.flags &^= unix.CLONE_NEWNET
		}
		sr.usedNS = true
		rep.Enforced = append(rep.Enforced, "userns", "pidns", "ipcns")
		// Inside another run the namespaces are refused (and the outer
		// run's view holds).
		if !inOuterRun() {
			sr.view, sr.sb, sr.tmp = true, sb, tmp
			rep.Enforced = append(rep.Enforced, "mntns", "view")
		}
		if !sb.Network {
			rep.Enforced = append(rep.Enforced, "netns")
		}
	}
	if allow != nil && nsBroken.Load() && !haveSeccomp {
		miss("netproxy", "no connect supervision for this architecture: Landlock's port rule alone would let the command reach any address on the proxy's port")
	}
	if sb.strict() && len(missing) > 0 {
		return nil, missingError(missing)
	}
	rep.Missing = missing

	// The caches: beneath the workspace, reached through its descriptor
	// (docs/adr/0013), else (SessionCache, no descriptor, a link in the
	// way) in the private temporary directory.
	cache := filepath.Join(tmp, "cache")
	npm := filepath.Join(tmp, "npm")
	if !sb.SessionCache && len(sr.roots) > 0 {
		if c := workspaceCache(sr.roots[0], sb.Roots[0], sb.WorkTree); c != "" {
			cache, npm = c, filepath.Join(c, "npm")
		}
	}
	env := append(base,
		"TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp,
		"XDG_CACHE_HOME="+cache,
		"npm_config_cache="+npm,
	)
	if sr.view {
		// The user's caches, read through a layer beside the others.
		// The cache's directory, reached as workspaceCache made it
		// (beneath the root's descriptor) or the Runner's own.
		var cfd int
		if cache == filepath.Join(tmp, "cache") {
			if tfd, err := unix.Open(tmp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
				cfd = openDirsNoFollow(tfd, []string{"cache"}, true, 0o700)
				unix.Close(tfd)
			} else {
				cfd = -1
			}
		} else {
			cfd = openDirsNoFollow(int(sr.roots[0].Fd()), strings.Split(CacheDir, "/"), false, 0)
		}
		sr.overlays = userCacheOverlays(cache, cfd, sr.home)
		if cfd >= 0 {
			unix.Close(cfd)
		}
		for _, o := range sr.overlays {
			env = append(env, o.env+"="+o.lower)
		}
	}
	if allow != nil {
		// The proxy variables come before the caller's, which win (a
		// variable of Request.Env pointing elsewhere reaches nothing).
		port := nsProxyPort
		if nsBroken.Load() {
			// No namespace: the proxy listens on this machine's
			// loopback now, and the helper lets the command connect
			// to it and nothing else (connect supervision).
			if sr.proxy, err = startProxy(allow, nil); err != nil {
				return nil, err
			}
			port = sr.proxy.Port()
			cfg.ProxyPort = port
		} else {
			cfg.Listen = port
		}
		if cfg.HandledNet != 0 {
			cfg.ConnectPorts = []int{port}
		}
		env = append(env, netproxy.Env("127.0.0.1:"+strconv.Itoa(port))...)
		rep.Enforced = append(rep.Enforced, "netproxy")
	}
	env = append(env, s.env...) // the caller's last: they win

	if sr.snap, err = holdProtected(ctx, sb, s.timeout); err != nil {
		sr.closeProxy()
		return nil, err
	}
	cfg.Env = dedupEnv(append(env, heldEnv+"="+heldValue(sr.snap.held)))
	// The read grants (unless made above) and the protected set's
	// baseline are made at the start, after the helper was taken or
	// started (while a new one starts), just before it is told to start
	// the command: a root added or removed since the last run, or a grant
	// that changed, counts for this one.
	snap := sr.snap
	noView := nsBroken.Load() // the second layer: no view, so Landlock reads from the view's list
	sr.late = func() {
		// The deny list, listed once a run: the read grants and the
		// view's masks both take it.
		sr.deny = sb.denyPaths()
		switch {
		case lateGrants && noView:
			cwd := sr.cwd
			if sr.dir != nil {
				cwd = openDirPath(sr.dir, sr.cwd)
			}
			reads = allowListGrants(sb, sr.deny, tmp, cfg.Path, sr.home, cwd)
		case lateGrants:
			reads, _ = readGrants(sr.deny, false)
		}
		cfg.Reads = reads
		// A run that died before its check left its journal: check
		// against it first, as that run would have (protect_journal_linux.go).
		sr.recovered, sr.recoverFailed = snap.recoverJournals()
		snap.baseline()
		// A run whose command does not start after all removes it
		// (unstarted): left, the next run would take it for a dead
		// run's and undo what the user changed in between.
		if failed := snap.writeJournals(); len(failed) > 0 && !inOuterRun() {
			// Inside another run the outer run's journal covers it.
			rep.Missing = append(rep.Missing, "journal: no journal of the baseline beneath "+strings.Join(failed, ", ")+": were this process killed before its check, the next run would not undo what the command planted there")
		}
	}
	rep.Enforced = append(rep.Enforced, "protect")
	return sr, nil
}

// confined reports whether sr starts its command through a serving
// helper (start), not through cmd.Start.
func (sr *sandboxRun) confined() bool { return sr.late != nil }

// start starts the command of a confined run in place of startProc: it
// takes the Runner's waiting helper when it was started in the same
// namespaces (else starts one), completes the instructions (late), and
// sends them with the descriptors they name: the command's standard
// input, output and error (cmd's), its start directory and the roots. The
// helper is the leader it returns: the supervisor watches, signals and
// reaps it as it would a process startProc made. The grants and the
// baseline are made after the helper's start, not beside it: its clone
// into a new user namespace is a fork without CLONE_VM, which holds this
// process's memory map and leaves every page it writes next to fault
// once, so work done beside it took as long and cost more CPU (ADR 0028).
func (sr *sandboxRun) start(cmd *osexec.Cmd) (*proc, error) {
	h, epoch := sr.r.zyg.take(sr.flags)
	sr.epoch = epoch
	if h != nil {
		sr.late()
		return sr.send(cmd, h, true)
	}
	h, err := startHelper(sr.exe, sr.flags)
	if err != nil {
		return nil, helperStartError{err}
	}
	sr.late()
	return sr.send(cmd, h, false)
}

// send completes the instructions of a run whose helper h is there (the
// late part made) and sends them with the descriptors they name; waited
// says h was the Runner's waiting helper (which something may have
// killed since: then a new one is started).
func (sr *sandboxRun) send(cmd *osexec.Cmd, h *helperProc, waited bool) (*proc, error) {
	fail := func(err error) (*proc, error) {
		h.end()
		sr.unstarted()
		return nil, err
	}
	cfg := &sr.cfg
	var fds []int
	add := func(f *os.File) int { fds = append(fds, int(f.Fd())); return len(fds) - 1 }
	for i, v := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		switch f := v.(type) {
		case nil:
		case *os.File:
			cfg.Stdio[i] = add(f)
		default:
			return fail(fmt.Errorf("standard descriptor %d of a sandboxed run is not a file", i))
		}
	}
	dir := sr.dir
	if dir == nil {
		// Opened now, as chdir(2) of cmd.Dir in the child would have
		// resolved it; the helper enters the descriptor.
		name := sr.cwd
		if name == "" {
			name = "."
		}
		f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY, 0)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		dir = f
	}
	cfg.DirFD = add(dir)
	cfg.WriteFDs = cfg.WriteFDs[:0]
	for _, f := range sr.roots {
		cfg.WriteFDs = append(cfg.WriteFDs, add(f))
	}
	cfg.View, cfg.ViewCwd = nil, ""
	if sr.view && h.flags&unix.CLONE_NEWNS != 0 {
		var rootFDs []int
		if sr.roots != nil {
			rootFDs = cfg.WriteFDs
		}
		cwd := openDirPath(dir, sr.cwd)
		if plan := planView(sr.sb, sr.deny, rootFDs, sr.tmp, cfg.Path, sr.home, cwd, sr.overlays); plan != nil {
			plan.protect(sr.snap)
			cfg.View, cfg.ViewCwd, cfg.ViewRequired = plan.ops, cwd, sr.required
			cfg.Writes = append(cfg.Writes, plan.writes...)
		}
	}
	msg, err := cfg.Message()
	if err != nil {
		return fail(err)
	}
	err = h.send(msg, fds)
	if err != nil && waited {
		// The waiting helper is gone (something killed it): start one.
		h.end()
		if h, err = startHelper(sr.exe, sr.flags); err != nil {
			sr.unstarted()
			return nil, helperStartError{err}
		}
		err = h.send(msg, fds)
	}
	runtime.KeepAlive(cmd)
	runtime.KeepAlive(dir)
	if err != nil {
		return fail(err)
	}
	if cfg.Listen != 0 && h.flags&unix.CLONE_NEWNET != 0 {
		// The helper's first word: its namespace's listener, which
		// the proxy serves from here (docs/adr/0022). Without it the
		// helper fails the run itself, saying why on its stderr.
		ln, err := receiveListener(h.sock)
		if err != nil {
			return fail(err)
		}
		if ln != nil {
			if sr.proxy, err = startProxy(sr.allow, ln); err != nil {
				return fail(err)
			}
		}
	}
	sr.h, sr.statusR = h, h.sock
	h.p.hasStatus, h.p.statusFD = true, h.sock
	return h.p, nil
}

// helperExe is the path of this program's executable (nil when it cannot
// be found), looked up at the first run that starts a helper, not by
// SandboxMain: a process that never starts one (the hook) never pays the
// readlink of /proc/self/exe.
var helperExe = sync.OnceValue(func() *string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return &exe
})

// helperUnavailable says why no helper can be started ("" when one can):
// SandboxMain was not called, or this program's executable cannot be
// found (os.Executable reads /proc/self/exe, which a missing /proc
// hides).
func helperUnavailable() string {
	switch {
	case !helperInstalled.Load():
		return "this program did not call exec.SandboxMain (host.SandboxMain) at the top of main: call it first thing in main, or in TestMain"
	case helperExe() == nil:
		return "this program's executable cannot be found to start the sandbox helper (/proc/self/exe is missing: mount /proc)"
	}
	return ""
}

// helperPath is the file to run as the helper: /proc/self/exe, which is
// this program's image even when its file was replaced or removed since it
// started (an upgrade), else the path os.Executable gave (helperExe).
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
//
// Only the helper's own start (helperStartError) counts: any other
// failure of a start (a start directory the parent may not open, an
// argument with a NUL byte) must not turn the namespaces off for every
// later run of the process.
func startRefused(err error) bool {
	var hs helperStartError
	if !errors.As(err, &hs) {
		return false
	}
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.EINVAL) ||
		errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EUSERS) || errors.Is(err, unix.EACCES)
}

// helperStartError is the failure of a helper's start (the clone into
// its namespaces), the one failure that may mean the kernel refused
// them (startRefused).
type helperStartError struct{ err error }

func (e helperStartError) Error() string { return e.err.Error() }
func (e helperStartError) Unwrap() error { return e.err }

// finish completes out after the run: the command's own status from the
// helper, and the protected set checked and restored. A confined run
// then lets the Runner start the helper of its next run.
//
// It fails with ErrNoStartDir, and out is to be dropped, when the helper
// could not find the start directory in the command's view (moved since
// the jail opened it): nothing was started. It fails with
// ErrUnsafeWorkspace, out complete, when a protected path the command
// changed could not be put back.
func (sr *sandboxRun) finish(out *Output) error {
	if sr.statusR >= 0 {
		var b [8]byte
		if n, _ := unix.Read(sr.statusR, b[:]); n == 8 {
			ws := unix.WaitStatus(binary.NativeEndian.Uint32(b[:]))
			switch {
			case ws.Exited():
				out.ExitCode, out.Signal = ws.ExitStatus(), ""
			case ws.Signaled():
				out.ExitCode, out.Signal = -1, signalName(ws.Signal())
			}
			f := binary.NativeEndian.Uint32(b[4:])
			if f&helper.ViewNoStartDir != 0 {
				sr.close()
				return fmt.Errorf("%w: the start directory was moved while the command's view was made", ErrNoStartDir)
			}
			sr.viewFlags(f)
		}
	}
	var unsafe error
	if sr.snap != nil {
		var failed []string
		sr.report.Restored, failed = sr.snap.restoreAll()
		if sr.recovered != nil || sr.recoverFailed != nil {
			sr.report.Restored = dedupe(append(sr.recovered, sr.report.Restored...))
			failed = append(sr.recoverFailed, failed...)
		}
		if sr.late != nil && len(failed) == 0 {
			sr.snap.removeJournals() // kept otherwise: the next run tries again
		}
		if len(failed) > 0 {
			unsafe = fmt.Errorf("%w: the command changed protected paths that could not be put back: %s", ErrUnsafeWorkspace, strings.Join(failed, "; "))
		}
	}
	if sr.proxy != nil {
		sr.closeProxy() // every connection ends, so every refusal is counted
		netDenied(sr.report, sr.proxy)
	}
	out.Sandbox = sr.report
	sr.close()
	if sr.h != nil {
		sr.r.zyg.ran(sr.exe, sr.flags, sr.epoch)
	}
	return unsafe
}

// unstarted is told that the command of a run whose baseline was made
// (late) did not start: its journal goes, as its check would have
// removed it.
func (sr *sandboxRun) unstarted() {
	if sr.snap != nil {
		sr.snap.removeJournals()
	}
}

func (sr *sandboxRun) close() {
	sr.closeProxy()
	sr.snap.release() // the hold on the roots, taken with the baseline
	if sr.statusR >= 0 {
		unix.Close(sr.statusR)
		sr.statusR = -1
	}
}

// viewFlags moves what the helper reported of the view (helper.ViewFailed,
// helper.ViewHostProc, helper.MetaUnsupervised) into the report.
func (sr *sandboxRun) viewFlags(f uint32) {
	rep := sr.report
	drop := func(part string) {
		for i, p := range rep.Enforced {
			if p == part {
				rep.Enforced = append(rep.Enforced[:i:i], rep.Enforced[i+1:]...)
				return
			}
		}
	}
	if f&helper.ViewFailed != 0 {
		drop("view")
		rep.Missing = append(rep.Missing, "view: the helper could not build the command's view (mount namespace); Landlock and seccomp alone confined it")
	}
	if f&helper.MetaUnsupervised != 0 {
		rep.Missing = append(rep.Missing, "metadata: without a view, the helper could not supervise chmod, chown and utimes (seccomp user notification); the command could change them outside the roots")
	}
	if f&helper.ViewHostProc != 0 {
		rep.Missing = append(rep.Missing, "proc: a /proc of the command's own PID namespace could not be mounted; it saw the host's, read-only")
	}
}

// openDirPath is the path of the open directory dir (what /proc says it is,
// else cwd made absolute): the helper opens it again inside the view and
// starts there only when it is the same directory.
func openDirPath(dir *os.File, cwd string) string {
	if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(dir.Fd()))); err == nil && filepath.IsAbs(p) {
		return p
	}
	if p, err := filepath.Abs(cwd); err == nil {
		return p
	}
	return cwd
}

// closeProxy stops the run's proxy, if any (Close may be called again).
func (sr *sandboxRun) closeProxy() {
	if sr.proxy != nil {
		sr.proxy.Close()
	}
}
