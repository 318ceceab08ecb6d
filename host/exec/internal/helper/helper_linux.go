package helper

import (
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// System call numbers and constants x/sys/unix has but syscall lacks
// (the Landlock calls have one number on every architecture).
const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446
	landlockRulePathBeneath  = 1
	landlockRuleNetPort      = 2
	llConnectTCP             = 1 << 1 // LANDLOCK_ACCESS_NET_CONNECT_TCP
	llReadDir                = 1 << 3 // LANDLOCK_ACCESS_FS_READ_DIR

	prSetDumpable       = 4
	prSetSeccomp        = 22
	seccompModeFilter   = 2
	prCapbsetDrop       = 24
	prSetSecurebits     = 28
	prSetChildSubreaper = 36
	prSetNoNewPrivs     = 38
	prCapAmbient        = 47
	prCapAmbientClear   = 4 // PR_CAP_AMBIENT_CLEAR_ALL

	oPath = 0x200000
)

// init runs the helper when this process is one.
func init() { RunIfHelper() }

// RunIfHelper runs the helper and exits when this process is one (its
// argv[0] is Name and Env is set); otherwise it returns at once. argv[0]
// is looked at first: every helper is started with Name there (ServeArgv,
// Config.Argv), and the first read of the environment builds a map of all
// of it, which a process that is no helper may never need (a hook call
// with nothing to do).
func RunIfHelper() {
	if len(os.Args) == 0 || os.Args[0] != Name {
		return
	}
	if _, ok := syscall.Getenv(Env); ok {
		exit(run(os.Args))
	}
}

// exit ends the helper process with code. It is syscall.Exit, not
// os.Exit, which under the race detector sleeps a second at exit for late
// reports: a helper that only waited would make every sandboxed command of
// a race-enabled program a second slower.
func exit(code int) { syscall.Exit(code) }

// run is the helper. Started with ServeArgv it serves one confined run
// (serve); started with a Config's Argv it only changes into DirFD and
// execs the command.
func run(argv []string) int {
	syscall.Unsetenv(Env)
	if len(argv) == 2 && argv[0] == Name && argv[1] == ServeArgv()[1] {
		return serve(ServeFD)
	}
	cfg, err := parse(argv)
	if err != nil {
		return fail("bad instructions", err)
	}
	if cfg.DirFD >= 0 {
		if err := syscall.Fchdir(cfg.DirFD); err != nil {
			return fail("fchdir", err)
		}
		syscall.Close(cfg.DirFD)
	}
	err = syscall.Exec(cfg.Path, cfg.Args, os.Environ())
	return fail("exec "+cfg.Path, err)
}

// serve waits on sock for the parent's Message and its descriptors, then
// confines its locked thread, forks the command from it, waits for the
// command and for what it left, writes the command's wait status (4
// bytes) on sock and exits. Its exit code is the command's (128+N for
// signal N). A failure before the command started is printed on the
// command's standard error with exit code 126; a socket that ends
// without the message's go (the parent gave up, closed it or died)
// starts nothing and ends the helper quietly.
func serve(sock int) int {
	// The command inherits its three standard descriptors and nothing
	// else: not sock, and not a descriptor the parent held without
	// close-on-exec when it started this helper (one it inherited, one a
	// C library or syscall.Open made), which os/exec passes on and which
	// no Landlock rule would look at.
	closeOnExecFrom(3)
	// What does not depend on the command is done before its
	// instructions come (the helper may wait for them a while: see
	// Runner's waiting helper, docs/adr/0012).
	//
	// The helper shares nothing with the command (issue 21): only its
	// locked thread is confined, so a command that reached any of its
	// threads would act unconfined, or write a forged status on sock.
	// Not dumpable, it can be traced, its memory read or written
	// (/proc/1/mem, process_vm_writev), its descriptors copied
	// (pidfd_getfd, /proc/1/fd) or its environ read only by a process
	// with CAP_SYS_PTRACE in this user namespace (__ptrace_may_access
	// checks the mm's user namespace, which is this one: the helper was
	// exec'd in it), whatever the uids; and the command has no
	// capability (dropCapabilities). The flag is the mm's, so it covers
	// every thread; the command's execve gives it a dumpable mm of its
	// own.
	prctl(prSetDumpable, 0, 0)
	// Signals sent to the group reach the command directly; the helper
	// (pid 1 of the namespace: the kernel drops what it does not handle)
	// notes them and waits for the command instead. Handled, not
	// ignored: an ignored signal would stay ignored in the command.
	// The command may send any signal to pid 1: the ones relayed here
	// are those the Go runtime would act on if they were not (endSignals).
	// Notify's round trips with the runtime's signal-mask thread are
	// made while the instructions are awaited; the command starts once
	// they are done (relaying).
	sigs := make(chan os.Signal, 4)
	relaying := make(chan struct{})
	go func() {
		signal.Notify(sigs, endSignals...)
		close(relaying)
	}()
	if syscall.Getpid() != 1 {
		ignoreUncaught()
	}
	prctl(prSetChildSubreaper, 1, 0)
	runtime.LockOSThread() // never unlocked: the thread is confined below
	nnpErr := prctl(prSetNoNewPrivs, 1, 0)

	msg, fds, err := receive(sock)
	if err != nil {
		return 126
	}
	cfg, err := parseMessage(msg)
	if err == nil {
		err = cfg.resolveFDs(fds)
	}
	if err != nil {
		return 126
	}
	if cfg.Stdio[2] >= 0 {
		syscall.Dup3(cfg.Stdio[2], 2, 0) // the failures below reach the caller
	}
	if cfg.Listen != 0 {
		// First, so that the parent, which waits for it, reads it
		// before any status.
		if err := passListener(sock, cfg.Listen); err != nil {
			return fail("network", err)
		}
	}
	// The view (view_linux.go) is made before Landlock, which forbids
	// mounting, and enters the start directory itself.
	var viewFlags uint32
	viewMade := false
	if len(cfg.View) > 0 {
		f, entered, err := buildView(cfg, cfg.DirFD)
		switch {
		case err == nil:
			viewFlags, viewMade = f, true
			// Nothing in the view is secret but what a mask covers:
			// every directory may be listed (the files still need
			// their grants), and the generated files read.
			cfg.listAll = true
			for _, op := range cfg.View {
				if op.Kind == ViewFile {
					cfg.Reads = append(cfg.Reads, Grant{Path: op.Path})
				}
			}
		case err == errStartDir:
			// Said on the status socket too: the parent makes it an
			// error of the run (ErrNoStartDir), not the command's exit.
			var b [8]byte
			*(*uint32)(unsafe.Pointer(&b[4])) = ViewNoStartDir
			syscall.Write(sock, b[:])
			return fail("view", err)
		case cfg.ViewRequired || entered:
			return fail("view", err)
		default:
			viewFlags = ViewFailed
		}
	}
	// Without a view, chmod, chown and utimes outside the roots are
	// refused by the helper's supervision of those calls (meta_linux.go).
	// Its writable directories are opened before Landlock closes the
	// roots' descriptors.
	var sup *supervisor
	if !viewMade && cfg.Landlock && len(cfg.Seccomp) > 0 || cfg.ProxyPort != 0 {
		if sup = newSupervisor(cfg); sup == nil {
			viewFlags |= MetaUnsupervised
		}
	}
	if cfg.DirFD >= 0 {
		if !viewMade {
			if err := syscall.Fchdir(cfg.DirFD); err != nil {
				return fail("fchdir", err)
			}
		}
		syscall.Close(cfg.DirFD)
	}
	if nnpErr != nil {
		return fail("no_new_privs", nnpErr)
	}
	if cfg.Landlock {
		if err := applyLandlock(cfg); err != nil {
			return fail("landlock", err)
		}
	}
	if len(cfg.Seccomp) > 0 {
		if err := installSeccomp(cfg.Seccomp); err != nil {
			return fail("seccomp", err)
		}
	}
	if sup != nil {
		// EBUSY: a filter above already has a listener (a run nested in
		// a sandboxed command without namespaces); that outer helper's
		// supervision, to its own roots, still holds.
		if err := sup.install(); err != nil {
			sup = nil
			viewFlags |= MetaUnsupervised
		}
	}
	if sup == nil && cfg.ProxyPort != 0 {
		// Landlock's port rule alone would let the command reach any
		// address on the proxy's port.
		return fail("network", wrap("connect supervision", syscall.ENOSYS))
	}
	files := []uintptr{0, 1, 2}
	for i, fd := range cfg.Stdio {
		if fd >= 0 {
			files[i] = uintptr(fd)
		}
	}
	if err := dropCapabilities(); err != nil {
		return fail("capabilities", err)
	}
	<-relaying
	pid, err := syscall.ForkExec(cfg.Path, cfg.Args, &syscall.ProcAttr{Env: cfg.Env, Files: files})
	if err != nil {
		return fail("start "+cfg.Path, err)
	}
	go endWithParent(sock)
	if sup != nil {
		go sup.serve()
	}
	// The helper no longer needs the command's descriptors: EOF then
	// tells the parent that the command's tree let go of the output
	// pipes.
	for _, fd := range cfg.Stdio {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
	if null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0); err == nil {
		syscall.Dup3(null, 2, 0)
		syscall.Close(null)
	}

	status := reapUntil(pid)
	// Others may be left (a background job, a daemon). Give them up to
	// DrainGrace to finish writing, then end them all.
	deadline := time.Now().Add(cfg.DrainGrace)
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.ECHILD {
			break
		}
		if p == 0 || err != nil {
			time.Sleep(2 * time.Millisecond)
		}
	}
	if syscall.Getpid() != 1 {
		// No PID namespace (the kernel refused it): what is left is
		// ended here. A subreaper, the helper is the parent of every
		// orphan of the command's tree, a daemon in a new session too.
		killDescendants()
	} else {
		killNamespace()
	}
	// The status record: the command's wait status, then the view's
	// flags, each 4 bytes in the machine's order. Written once nothing
	// of the command's tree is left: the parent takes it for the run's
	// end and checks the workspace at once, without waiting for this
	// process's exit and the namespaces' teardown (docs/adr/0028).
	var b [8]byte
	*(*uint32)(unsafe.Pointer(&b[0])) = uint32(status)
	*(*uint32)(unsafe.Pointer(&b[4])) = viewFlags
	syscall.Write(sock, b[:])
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

// endSignals are the signals the helper relays to its channel (and so
// survives): every one whose Go default would end, crash or stop the
// process when it comes from kill(2). SIGHUP, SIGINT and SIGTERM end it;
// SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGSTKFLT and SIGSYS make the
// runtime throw; SIGBUS, SIGFPE and SIGSEGV sent by a process (not a
// fault) crash it; SIGTSTP, SIGTTIN and SIGTTOU keep the kernel's
// default, a stop, unless relayed (a helper that is not pid 1, in the
// second layer, would stop), and SIGCONT with them. Every other
// catchable signal (SIGUSR1, SIGPIPE, SIGALRM, the real-time ones...)
// the runtime's handler drops when it is not relayed, as the helper
// would. Relaying every signal instead (signal.Notify with none named)
// cost a round trip with the runtime's signal-mask thread for each of
// the 60 or so: about 2 ms and 180 context switches of every sandboxed
// command's start (issue 21). TestHelperSignals sends every catchable
// signal to the helper (the command's parent) and checks the run's
// status; 32 and 34, which the runtime neither handles nor relays, are
// ignored where the helper is not pid 1 (ignoreUncaught).
var endSignals = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGILL, syscall.SIGTRAP,
	syscall.SIGABRT, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGSEGV, syscall.SIGTERM,
	syscall.SIGSTKFLT, syscall.SIGCONT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU,
	syscall.SIGSYS,
}

// endWithParent ends the run when the parent is gone. The parent keeps
// its end of sock open, shut for writing only, until it has read the
// status after this helper exited; so a hang-up on sock (both directions
// shut: only the parent's close of its end makes it) means the parent
// died, or gave the run up, while the command runs, and nothing would
// time the command out or kill it any more. The helper then kills its
// process group (which holds the command when there is no namespace) and
// exits (a SIGKILL of its own does not end pid 1 of a namespace): as pid
// 1 of the command's PID namespace its end takes the rest of the
// namespace with it. It runs on a thread of its
// own, which the confinement of the locked one does not restrict.
func endWithParent(sock int) {
	const pollHup, pollErr = 0x10, 0x8
	fds := [1]struct {
		fd             int32
		events, revent int16
	}{{fd: int32(sock)}}
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, 0, 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return // not a socket it can watch: the run goes on as before
		}
		if fds[0].revent&(pollHup|pollErr) != 0 {
			syscall.Kill(0, syscall.SIGKILL)
			exit(128 + int(syscall.SIGKILL))
		}
	}
}

// closeOnExecFrom marks every descriptor from lowest up close-on-exec:
// with one close_range(2) (Linux 5.11, older than any Landlock but the
// first two ABIs' kernels), else one by one from /proc/self/fd.
func closeOnExecFrom(lowest int) {
	const sysCloseRange, closeRangeCloexec = 436, 1 << 2
	if _, _, errno := syscall.RawSyscall(sysCloseRange, uintptr(lowest), uintptr(^uint32(0)), closeRangeCloexec); errno == 0 {
		return
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= lowest {
			syscall.CloseOnExec(fd)
		}
	}
}

// receive reads sock to its end and returns the bytes and the
// descriptors that came with them (close-on-exec), in order.
func receive(sock int) ([]byte, []int, error) {
	var b []byte
	var fds []int
	buf := make([]byte, 16<<10)
	oob := make([]byte, syscall.CmsgSpace(MaxFDs*4))
	for {
		n, oobn, _, _, err := syscall.Recvmsg(sock, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if oobn > 0 {
			msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
			if err != nil {
				return nil, nil, err
			}
			for _, m := range msgs {
				got, err := syscall.ParseUnixRights(&m)
				if err != nil {
					return nil, nil, err
				}
				fds = append(fds, got...)
			}
		}
		if n == 0 && oobn == 0 {
			return b, fds, nil
		}
		b = append(b, buf[:n]...)
	}
}

// MaxFDs is the most descriptors one message of the parent carries (the
// kernel's SCM_MAX_FD is 253).
const MaxFDs = 250

// reapUntil reaps children (orphans come to the helper, a subreaper or
// pid 1) until pid exits, and returns pid's status.
func reapUntil(pid int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
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

// dropCapabilities leaves the command, forked from this thread, no
// capability in the helper's user namespace, also when it is uid 0 there
// (root mapped to itself, as in CI), so that it cannot trace its
// helper, which is not dumpable (see serve): CAP_SYS_PTRACE in this
// namespace is the one way past that. The thread's ambient set is
// cleared, its bounding set emptied (execve gives uid 0 the file
// capabilities the bounding set allows, and no more), and its
// securebits set and locked so that uid 0 means nothing to execve
// (SECBIT_NOROOT) and ambient capabilities cannot be raised. These are
// the calling thread's credentials only: the helper's other threads keep
// theirs, which the command cannot use, since it cannot reach them.
//
// Changing the bounding set and securebits takes CAP_SETPCAP. A thread
// without it that holds no capability at all has nothing to drop: under
// no_new_privs (set before) execve gives no more than the thread's
// permitted set (cap_bprm_creds_from_file), which is empty, even to uid
// 0. That is a helper started by another user than root (its own execve
// as a non-zero uid cleared its capabilities) and a helper started by a
// sandboxed command (nested runs, namespaces refused) whose outer helper
// dropped them already. Any other refusal is an error.
func dropCapabilities() error {
	const (
		secbitNoroot          = 1 << 0
		secbitNorootLocked    = 1 << 1
		secbitKeepCapsLocked  = 1 << 5
		secbitNoAmbient       = 1 << 6
		secbitNoAmbientLocked = 1 << 7
	)
	if err := prctl(prCapAmbient, prCapAmbientClear, 0); err != nil && err != syscall.EINVAL {
		return wrap("clear ambient", err) // EINVAL: a kernel before ambient capabilities
	}
	err := prctl(prSetSecurebits, secbitNoroot|secbitNorootLocked|secbitKeepCapsLocked|secbitNoAmbient|secbitNoAmbientLocked, 0)
	if err == nil {
		for c := uintptr(0); ; c++ {
			if err = prctl(prCapbsetDrop, c, 0); err != nil {
				if err == syscall.EINVAL { // past CAP_LAST_CAP
					err = nil
				}
				break
			}
		}
	}
	if err == syscall.EPERM && !hasCapabilities() {
		return nil
	}
	if err != nil {
		return wrap("bounding set", err)
	}
	// Last, this thread's own sets, the inheritable one above all (the
	// helper may hold CAP_SYS_ADMIN and CAP_SETPCAP as ambient and
	// inheritable capabilities of its namespace, for the view): the
	// command starts with all three empty.
	hdr := struct {
		version uint32
		pid     int32
	}{version: 0x20080522} // _LINUX_CAPABILITY_VERSION_3
	var data [2]struct{ effective, permitted, inheritable uint32 }
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return wrap("capset", errno)
	}
	return nil
}

// hasCapabilities reports whether the calling thread holds any
// capability in its permitted set (capget; an error counts as yes).
func hasCapabilities() bool {
	hdr := struct {
		version uint32
		pid     int32
	}{version: 0x20080522} // _LINUX_CAPABILITY_VERSION_3
	var data [2]struct{ effective, permitted, inheritable uint32 }
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return true
	}
	return data[0].permitted|data[1].permitted != 0
}

func prctl(op, a, b uintptr) error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, op, a, b); errno != 0 {
		return errno
	}
	return nil
}

// rulesetAttr is struct landlock_ruleset_attr up to ABI 7.
type rulesetAttr struct{ fs, net, scoped uint64 }

// pathBeneathAttr is struct landlock_path_beneath_attr (packed: the
// kernel reads its first 12 bytes).
type pathBeneathAttr struct {
	allowed uint64
	fd      int32
}

// netPortAttr is struct landlock_net_port_attr (packed).
type netPortAttr struct {
	allowed uint64
	port    uint64
}

// applyLandlock builds the ruleset of cfg and confines the calling
// thread to it.
func applyLandlock(cfg *Config) error {
	attr := rulesetAttr{fs: cfg.HandledFS, net: cfg.HandledNet, scoped: cfg.Scoped}
	size := unsafe.Sizeof(attr)
	if cfg.Scoped == 0 {
		size = 16 // ABI 4 and 5 know fs and net only
		if cfg.HandledNet == 0 {
			size = 8
		}
	}
	r, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return wrap("create ruleset", errno)
	}
	rs := int(r)
	defer syscall.Close(rs)
	add := func(fd int, access uint64, what string) error {
		a := pathBeneathAttr{allowed: access, fd: int32(fd)}
		_, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(rs), landlockRulePathBeneath,
			uintptr(unsafe.Pointer(&a)), 0, 0, 0)
		if errno != 0 {
			return wrap("rule for "+what, errno)
		}
		return nil
	}
	// addPath adds a rule on p; a path that cannot be opened (gone
	// meanwhile, no /dev/tty) needs none.
	addPath := func(p string, flags int, access uint64) error {
		fd, err := syscall.Open(p, oPath|syscall.O_CLOEXEC|flags, 0)
		if err != nil {
			return nil
		}
		err = add(fd, access, p)
		syscall.Close(fd)
		return err
	}
	for _, g := range cfg.Reads {
		access := cfg.DirRead
		if !g.Dir {
			access = cfg.FileRead
		}
		if err := addPath(g.Path, 0, access); err != nil {
			return err
		}
	}
	if cfg.listAll {
		if err := addPath("/", syscall.O_DIRECTORY, llReadDir); err != nil {
			return err
		}
	}
	for _, fd := range cfg.WriteFDs {
		if err := add(fd, cfg.DirRead|cfg.WriteMask, "root fd "+itoa(fd)); err != nil {
			return err
		}
		syscall.Close(fd)
	}
	for _, p := range cfg.Writes {
		if err := addPath(p, syscall.O_DIRECTORY, cfg.DirRead|cfg.WriteMask); err != nil {
			return err
		}
	}
	for _, p := range cfg.DevFiles {
		if err := addPath(p, 0, cfg.FileWrite); err != nil {
			return err
		}
	}
	if cfg.HandledNet&llConnectTCP != 0 {
		for _, port := range cfg.ConnectPorts {
			a := netPortAttr{allowed: llConnectTCP, port: uint64(port)}
			_, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(rs), landlockRuleNetPort,
				uintptr(unsafe.Pointer(&a)), 0, 0, 0)
			if errno != 0 {
				return wrap("rule for port "+itoa(port), errno)
			}
		}
	}
	if _, _, errno := syscall.Syscall(sysLandlockRestrictSelf, uintptr(rs), 0, 0); errno != 0 {
		return wrap("restrict", errno)
	}
	return nil
}

// sockFprog is struct sock_fprog.
type sockFprog struct {
	len    uint16
	filter unsafe.Pointer
}

// installSeccomp installs the classic BPF program prog on the calling
// thread (no_new_privs is set).
func installSeccomp(prog []byte) error {
	if len(prog)%8 != 0 || len(prog)/8 > 0xffff {
		return errArgs
	}
	fp := sockFprog{len: uint16(len(prog) / 8), filter: unsafe.Pointer(&prog[0])}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccomp, seccompModeFilter, uintptr(unsafe.Pointer(&fp))); errno != 0 {
		return errno
	}
	runtime.KeepAlive(prog)
	return nil
}

type wrapped struct {
	what string
	err  error
}

func (w wrapped) Error() string { return w.what + ": " + w.err.Error() }
func (w wrapped) Unwrap() error { return w.err }

func wrap(what string, err error) error { return wrapped{what, err} }

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// fail reports a failure of the helper before the command ran.
func fail(what string, err error) int {
	os.Stderr.WriteString("agenthost sandbox: " + what + ": " + err.Error() + "\n")
	return 126
}

// killDescendants kills and reaps every process of the helper's tree:
// its children, listed in /proc/self/task/*/children, and, as each dies,
// the orphans that come to the helper (a child subreaper) in turn. A
// child cannot be replaced by an unrelated process of the same pid
// meanwhile: until the helper reaps it, a dead child keeps its pid.
func killDescendants() {
	// Most commands leave nothing: ECHILD, and /proc is not read.
	if _, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); err == syscall.ECHILD {
		return
	}
	for round := 0; round < 1000; round++ {
		kids := children()
		for _, pid := range kids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		reaped := false
		for {
			var ws syscall.WaitStatus
			p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			if err == syscall.ECHILD {
				return
			}
			if p <= 0 || err != nil {
				break
			}
			reaped = true
		}
		if len(kids) == 0 && !reaped {
			time.Sleep(time.Millisecond) // a kill not delivered yet
		}
	}
}

// killNamespace ends every other process of the helper's PID namespace
// (kill(-1) from its pid 1 reaches them all, and a fork racing with it
// fails) and reaps them: an orphan is the helper's child before its dead
// parent can be reaped, so ECHILD means that no process is left in the
// namespace. A process in uninterruptible sleep is waited for, as the
// namespace's teardown would; the parent's deadline kills the helper
// then.
func killNamespace() {
	syscall.Kill(-1, syscall.SIGKILL)
	for {
		if _, err := syscall.Wait4(-1, nil, 0, nil); err == syscall.ECHILD {
			return
		}
	}
}

// children lists the helper's children (every thread's: an orphan is
// reparented to one of the subreaper's threads).
func children() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		n, in := 0, false
		for _, c := range b {
			if c >= '0' && c <= '9' {
				n, in = n*10+int(c-'0'), true
				continue
			}
			if in {
				out = append(out, n)
			}
			n, in = 0, false
		}
		if in {
			out = append(out, n)
		}
	}
	return out
}

// ignoreUncaught sets signals 32 and 34 to be ignored. The Go runtime
// installs no handler for them (glibc's reserved signals) and
// signal.Notify cannot take them, so their default action would end a
// helper that is not pid 1 of a namespace (the second layer), which the
// command may signal: the run's status would be lost, and with it the
// helper that ends the command's whole tree. The command inherits them
// ignored (a program that uses them installs its own handler, as glibc
// does for 32). As pid 1 the kernel drops what it does not handle.
func ignoreUncaught() {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" && runtime.GOARCH != "riscv64" && runtime.GOARCH != "loong64" {
		return // another layout of struct sigaction
	}
	act := struct {
		handler  uintptr
		flags    uint64
		restorer uintptr
		mask     uint64
	}{handler: 1} // SIG_IGN
	for _, sig := range []uintptr{32, 34} {
		syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, sig, uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	}
}
