package helper

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Metadata supervision (issue 22): where no view could be made (the
// kernel refused a user namespace), Landlock confines reads and writes but
// not chmod, chown or utimes, so a command could make ~/.ssh/id_ed25519
// world-readable or backdate a file of another project. The helper then
// installs a second seccomp filter whose calls of those families are
// handed to it (SECCOMP_RET_USER_NOTIF) and does each call itself, on the
// object the command's arguments name, only when that object lies beneath
// a directory the command may write (the roots, its TMPDIR, the policy's
// write paths); any other object gets EPERM. The command's own call never
// runs: the helper acts on what it resolved, so a command that rewrites
// its path argument after the notification (the known hole of
// SECCOMP_USER_NOTIF_FLAG_CONTINUE) changes nothing.
//
// Extended attributes need no supervision: the main filter refuses every
// write and removal of one (host/exec/seccomp_linux.go).

// Ioctls of the notification descriptor, and struct sizes they encode.
const (
	notifRecv    = unix.SECCOMP_IOCTL_NOTIF_RECV
	notifSend    = unix.SECCOMP_IOCTL_NOTIF_SEND
	notifIDValid = 0x40082102 // SECCOMP_IOCTL_NOTIF_ID_VALID, _IOW('!', 2, __u64)
)

// seccompNotif is struct seccomp_notif (80 bytes).
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp (24 bytes).
type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// metaKind says how a supervised call's arguments are laid out.
type metaKind int

const (
	kChmod     metaKind = iota + 1 // chmod(path, mode)
	kFchmod                        // fchmod(fd, mode)
	kFchmodat                      // fchmodat(dirfd, path, mode)
	kFchmodat2                     // fchmodat2(dirfd, path, mode, flags)
	kChown                         // chown(path, uid, gid)
	kLchown                        // lchown(path, uid, gid)
	kFchown                        // fchown(fd, uid, gid)
	kFchownat                      // fchownat(dirfd, path, uid, gid, flags)
	kUtime                         // utime(path, struct utimbuf *)
	kUtimes                        // utimes(path, struct timeval[2])
	kFutimesat                     // futimesat(dirfd, path, struct timeval[2])
	kUtimensat                     // utimensat(dirfd, path or NULL, struct timespec[2], flags)
)

// metaCalls maps the supervised calls of this architecture to their
// layout; the architecture's files add the legacy calls it has.
var metaCalls = map[int32]metaKind{
	unix.SYS_FCHMOD:    kFchmod,
	unix.SYS_FCHMODAT:  kFchmodat,
	unix.SYS_FCHMODAT2: kFchmodat2,
	unix.SYS_FCHOWN:    kFchown,
	unix.SYS_FCHOWNAT:  kFchownat,
	unix.SYS_UTIMENSAT: kUtimensat,
}

// metaOp is a supervised call, decoded.
type metaOp struct {
	what      byte // 'm' mode, 'o' owner, 't' times
	dirfd     int  // the directory of a relative path, or the object (path == nil)
	path      *string
	follow    bool
	emptyPath bool
	mode      uint32
	uid, gid  uint32
	times     *[2]unix.Timespec // nil: now
}

// writable is a directory the command may write beneath: its descriptor
// and the path it had when the run started.
type writable struct {
	fd   int
	path string
}

// supervisor answers the notifications of one run.
type supervisor struct {
	listener int
	dirs     []writable
	// strict is set when the helper holds capabilities the command does
	// not (root, or a user namespace of its own): the kernel's checks
	// would then pass where the command's would not, so the helper makes
	// the owner checks itself.
	strict bool
	euid   uint32
	groups map[uint32]bool
	// proxyPort, when not 0, makes connect(2) supervised too
	// (connect_linux.go): the command may reach 127.0.0.1 on this port
	// only.
	proxyPort int
}

// newSupervisor opens the directories of cfg the command may write
// (before Landlock closes the roots' descriptors) and returns a
// supervisor without a listener yet, or nil when the filter is not for
// this architecture.
func newSupervisor(cfg *Config) *supervisor {
	if metaArch == 0 {
		return nil
	}
	s := &supervisor{listener: -1, strict: hasCapabilities(), euid: uint32(unix.Geteuid()),
		groups: map[uint32]bool{uint32(unix.Getegid()): true}, proxyPort: cfg.ProxyPort}
	if gs, err := unix.Getgroups(); err == nil {
		for _, g := range gs {
			s.groups[uint32(g)] = true
		}
	}
	add := func(fd int) {
		p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil || !strings.HasPrefix(p, "/") {
			unix.Close(fd)
			return
		}
		s.dirs = append(s.dirs, writable{fd: fd, path: p})
	}
	for _, fd := range cfg.WriteFDs {
		if d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3); err == nil {
			add(d)
		}
	}
	for _, p := range cfg.Writes {
		if fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
			add(fd)
		}
	}
	return s
}

// install puts the notifying filter on the calling thread (the locked
// one, which then forks the command) and keeps its listener.
func (s *supervisor) install() error {
	prog := metaFilter(s.proxyPort != 0)
	fp := sockFprog{len: uint16(len(prog) / 8), filter: unsafe.Pointer(&prog[0])}
	fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fp)))
	if errno != 0 {
		return wrap("metadata filter", errno)
	}
	s.listener = int(fd)
	return nil
}

// metaFilter is the notifying filter: the supervised calls of the native
// architecture (and connect(2) when connects is set) go to the helper,
// everything else is allowed (another architecture's calls and x32's are
// the main filter's to refuse).
func metaFilter(connects bool) []byte {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	nrs := make([]uint32, 0, len(metaCalls))
	for nr := range metaCalls {
		nrs = append(nrs, uint32(nr))
	}
	if connects {
		nrs = append(nrs, unix.SYS_CONNECT)
	}
	// allow is the instruction after the last; notify the one after it.
	var p []unix.SockFilter
	p = append(p, unix.SockFilter{Code: ld, K: 4}) // arch
	p = append(p, unix.SockFilter{Code: jeq, K: metaArch, Jt: 1})
	p = append(p, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW})
	p = append(p, unix.SockFilter{Code: ld, K: 0}) // nr
	p = append(p, unix.SockFilter{Code: jge, K: 0x40000000, Jt: uint8(len(nrs))})
	for i, nr := range nrs {
		p = append(p, unix.SockFilter{Code: jeq, K: nr, Jt: uint8(len(nrs) - i)})
	}
	p = append(p, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW})
	p = append(p, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF})
	b := make([]byte, 0, 8*len(p))
	for _, f := range p {
		b = append(b, (*[8]byte)(unsafe.Pointer(&f))[:]...)
	}
	return b
}

// serve answers notifications until the listener fails (the helper exits
// when the command's tree has ended, which ends this goroutine with it).
func (s *supervisor) serve() {
	for {
		var n seccompNotif
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(s.listener), notifRecv, uintptr(unsafe.Pointer(&n))); errno != 0 {
			if errno == unix.EINTR || errno == unix.ENOENT {
				continue // a signal, or a caller gone before its call was read
			}
			return
		}
		errno := s.answer(&n)
		resp := seccompNotifResp{id: n.id, error: -int32(errno)}
		unix.Syscall(unix.SYS_IOCTL, uintptr(s.listener), notifSend, uintptr(unsafe.Pointer(&resp)))
	}
}

// answer does the call n stands for, if its object is the command's to
// change, and returns its errno (0: done).
func (s *supervisor) answer(n *seccompNotif) unix.Errno {
	if n.nr == unix.SYS_CONNECT && s.proxyPort != 0 {
		return s.connect(n)
	}
	kind, ok := metaCalls[n.nr]
	if !ok {
		return unix.ENOSYS
	}
	op, errno := s.decode(n, kind)
	if errno != 0 {
		return errno
	}
	obj, errno := s.object(n, op)
	if errno != 0 {
		return errno
	}
	defer unix.Close(obj)
	// Everything read from the caller is read: the call is still its
	// (not a recycled thread id's) only if its id is still valid.
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(s.listener), notifIDValid, uintptr(unsafe.Pointer(&n.id))); e != 0 {
		return unix.ENOENT
	}
	var st unix.Stat_t
	if err := unix.Fstat(obj, &st); err != nil {
		return errnoOf(err)
	}
	if !s.beneathWritable(obj, &st) {
		return unix.EPERM
	}
	if s.strict && st.Uid != s.euid {
		return unix.EPERM
	}
	switch op.what {
	case 'm':
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return unix.EOPNOTSUPP // what fchmodat2 says of a link
		}
		return errnoOf(unix.Fchmodat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(obj), op.mode&0o7777, 0))
	case 'o':
		if s.strict && (op.uid != ^uint32(0) && op.uid != s.euid || op.gid != ^uint32(0) && !s.groups[op.gid]) {
			return unix.EPERM
		}
		return errnoOf(unix.Fchownat(obj, "", int(int32(op.uid)), int(int32(op.gid)), unix.AT_EMPTY_PATH))
	default:
		var ts unsafe.Pointer
		if op.times != nil {
			ts = unsafe.Pointer(op.times)
		}
		empty := []byte{0}
		_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(obj), uintptr(unsafe.Pointer(&empty[0])), uintptr(ts), unix.AT_EMPTY_PATH, 0, 0)
		return e
	}
}

// decode reads the call's arguments, its path and times from the
// caller's memory included.
func (s *supervisor) decode(n *seccompNotif, kind metaKind) (metaOp, unix.Errno) {
	a := n.args
	op := metaOp{dirfd: atFDCWD, follow: true}
	var pathAt uint64
	hasPath := true
	flags := uint64(0)
	switch kind {
	case kChmod, kFchmodat, kFchmodat2, kFchmod:
		op.what = 'm'
		switch kind {
		case kChmod:
			pathAt, op.mode = a[0], uint32(a[1])
		case kFchmod:
			op.dirfd, hasPath, op.mode = int(int32(a[0])), false, uint32(a[1])
		default:
			op.dirfd, pathAt, op.mode = int(int32(a[0])), a[1], uint32(a[2])
			if kind == kFchmodat2 {
				flags = a[3]
			}
		}
	case kChown, kLchown, kFchown, kFchownat:
		op.what = 'o'
		switch kind {
		case kChown, kLchown:
			pathAt, op.uid, op.gid = a[0], uint32(a[1]), uint32(a[2])
			op.follow = kind == kChown
		case kFchown:
			op.dirfd, hasPath, op.uid, op.gid = int(int32(a[0])), false, uint32(a[1]), uint32(a[2])
		default:
			op.dirfd, pathAt, op.uid, op.gid, flags = int(int32(a[0])), a[1], uint32(a[2]), uint32(a[3]), a[4]
		}
	default:
		op.what = 't'
		var err unix.Errno
		switch kind {
		case kUtime:
			pathAt = a[0]
			op.times, err = s.readTimes(n.pid, a[1], 'u')
		case kUtimes:
			pathAt = a[0]
			op.times, err = s.readTimes(n.pid, a[1], 'v')
		case kFutimesat:
			op.dirfd, pathAt = int(int32(a[0])), a[1]
			op.times, err = s.readTimes(n.pid, a[2], 'v')
		default:
			op.dirfd, pathAt, flags = int(int32(a[0])), a[1], a[3]
			op.times, err = s.readTimes(n.pid, a[2], 's')
			if pathAt == 0 { // futimens(fd, times)
				if op.dirfd == atFDCWD {
					return op, unix.EFAULT
				}
				if flags != 0 {
					return op, unix.EINVAL
				}
				hasPath = false
			}
		}
		if err != 0 {
			return op, err
		}
	}
	if flags&^uint64(unix.AT_SYMLINK_NOFOLLOW|unix.AT_EMPTY_PATH) != 0 {
		return op, unix.EINVAL
	}
	if flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
		op.follow = false
	}
	op.emptyPath = flags&unix.AT_EMPTY_PATH != 0
	if hasPath {
		p, err := readString(n.pid, pathAt)
		if err != 0 {
			return op, err
		}
		op.path = &p
	}
	return op, 0
}

// readTimes reads the caller's times at addr as the call lays them out:
// 'u' struct utimbuf, 'v' struct timeval[2], 's' struct timespec[2].
// A NULL addr means now.
func (s *supervisor) readTimes(pid uint32, addr uint64, layout byte) (*[2]unix.Timespec, unix.Errno) {
	if addr == 0 {
		return nil, 0
	}
	var raw [4]int64
	size := 32
	if layout == 'u' {
		size = 16
	}
	if err := readMem(pid, addr, unsafe.Slice((*byte)(unsafe.Pointer(&raw[0])), size)); err != 0 {
		return nil, err
	}
	var ts [2]unix.Timespec
	switch layout {
	case 'u':
		ts[0].Sec, ts[1].Sec = raw[0], raw[1]
	case 'v':
		for i := range ts {
			sec, usec := raw[2*i], raw[2*i+1]
			if usec < 0 || usec >= 1_000_000 {
				return nil, unix.EINVAL
			}
			ts[i] = unix.Timespec{Sec: sec, Nsec: usec * 1000}
		}
	default:
		ts[0] = unix.Timespec{Sec: raw[0], Nsec: raw[1]}
		ts[1] = unix.Timespec{Sec: raw[2], Nsec: raw[3]}
	}
	return &ts, 0
}

// object opens (O_PATH) what op names, resolved as the kernel would for
// the caller: a relative path from its working directory or its dirfd,
// links followed unless op says not to.
func (s *supervisor) object(n *seccompNotif, op metaOp) (int, unix.Errno) {
	proc := "/proc/" + strconv.FormatUint(uint64(n.pid), 10)
	openDir := func() (int, unix.Errno) {
		p := proc + "/cwd"
		if op.dirfd != atFDCWD {
			if op.dirfd < 0 {
				return -1, unix.EBADF
			}
			p = proc + "/fd/" + strconv.Itoa(op.dirfd)
		}
		fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if err == unix.ENOENT && op.dirfd != atFDCWD {
				return -1, unix.EBADF
			}
			return -1, errnoOf(err)
		}
		return fd, 0
	}
	if op.path == nil {
		return openDir()
	}
	path := *op.path
	if path == "" {
		if !op.emptyPath {
			return -1, unix.ENOENT
		}
		return openDir()
	}
	// The caller's own /proc entries, not the helper's.
	for _, self := range []string{"/proc/self", "/proc/thread-self"} {
		if path == self || strings.HasPrefix(path, self+"/") {
			path = proc + path[len(self):]
		}
	}
	base := unix.AT_FDCWD
	if !strings.HasPrefix(path, "/") {
		d, errno := openDir()
		if errno != 0 {
			return -1, errno
		}
		defer unix.Close(d)
		base = d
	}
	flags := unix.O_PATH | unix.O_CLOEXEC
	if !op.follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Openat(base, path, flags, 0)
	if err != nil {
		return -1, errnoOf(err)
	}
	return fd, 0
}

// beneathWritable reports whether obj (st its stat) is a file the
// command may write: reached from one of s.dirs without a link, with the
// same device and inode. A regular file with no name left (unlinked,
// O_TMPFILE) is the caller's alone.
func (s *supervisor) beneathWritable(obj int, st *unix.Stat_t) bool {
	if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink == 0 {
		return true
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(obj))
	if err != nil || !strings.HasPrefix(p, "/") {
		return false
	}
	for _, d := range s.dirs {
		var rel string
		switch {
		case p == d.path:
		case d.path == "/":
			rel = p[1:]
		case strings.HasPrefix(p, d.path+"/"):
			rel = p[len(d.path)+1:]
		default:
			continue
		}
		fd := d.fd
		if rel != "" {
			fd, err = unix.Openat2(d.fd, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
				Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
			if err != nil {
				continue
			}
		}
		var dst unix.Stat_t
		err = unix.Fstat(fd, &dst)
		if fd != d.fd {
			unix.Close(fd)
		}
		if err == nil && dst.Dev == st.Dev && dst.Ino == st.Ino {
			return true
		}
	}
	return false
}

// readString reads the caller's NUL-terminated string at addr (at most
// PATH_MAX bytes with its NUL), a page at a time so that a string that
// ends before an unmapped page is read.
func readString(pid uint32, addr uint64) (string, unix.Errno) {
	if addr == 0 {
		return "", unix.EFAULT
	}
	var b []byte
	for len(b) < unix.PathMax {
		chunk := 4096 - int(addr%4096)
		if chunk > unix.PathMax-len(b) {
			chunk = unix.PathMax - len(b)
		}
		buf := make([]byte, chunk)
		if err := readMem(pid, addr, buf); err != 0 {
			return "", err
		}
		if i := bytes.IndexByte(buf, 0); i >= 0 {
			return string(append(b, buf[:i]...)), 0
		}
		b = append(b, buf...)
		addr += uint64(chunk)
	}
	return "", unix.ENAMETOOLONG
}

// readMem fills buf from the caller's memory at addr.
func readMem(pid uint32, addr uint64, buf []byte) unix.Errno {
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(len(buf))
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(buf)}}
	n, err := unix.ProcessVMReadv(int(pid), local, remote, 0)
	if err != nil || n != len(buf) {
		return unix.EFAULT
	}
	return 0
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(unix.Errno); ok {
		return e
	}
	return unix.EPERM
}
