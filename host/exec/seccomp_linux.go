package exec

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// The seccomp filter covers what Landlock cannot say. It refuses, with an
// errno (never a kill, so a program sees an ordinary failure):
//   - a setuid or setgid bit, through chmod, fchmod, fchmodat(2), open,
//     openat, creat, mknod or mknodat (EPERM); openat2, whose mode the
//     filter cannot read, fails with ENOSYS and callers fall back to
//     openat;
//   - every extended attribute write or removal (EOPNOTSUPP, which cp -a
//     and tar take as "not supported here"), for a file capability is a
//     setuid bit by another name, and a removal outside the roots
//     (a security label, an ACL) is a change Landlock does not see;
//   - io_uring (ENOSYS), whose operations no filter sees;
//   - socket(AF_UNIX, ...) (EACCES), with Sandbox.Network too: a unix
//     socket file of a process outside (an ssh-agent, a session bus,
//     docker.sock) could otherwise be connected to, which neither
//     Landlock (before ABI 9) nor a network namespace prevents; local
//     sockets are not network (issue 21); socketpair(2) still works;
//   - without Sandbox.Network, every socket(2) (EACCES) but, in a network
//     namespace of the command's own, AF_NETLINK (which then shows only
//     that namespace's loopback): no TCP, UDP, DNS, raw, packet or vsock
//     socket, so "no network" holds where the kernel refused the
//     namespace too (issue 22), and is a second wall where it did not.
//
// Another architecture's calls (i386 or x32 on amd64) are refused with
// ENOSYS, so the numbers below cannot be dodged.

// scRule is one refused system call: nr, when arg (if >= 0) matches.
type scRule struct {
	nr    uintptr
	arg   int    // -1: any call; else the argument checked
	mask  uint32 // refuse when arg&mask != 0 (mask set) ...
	equal uint32 // ... or when arg == equal (mask 0)
	// unless turns an equal test around: refuse when arg != equal.
	unless bool
	errno  unix.Errno
}

const setid = unix.S_ISUID | unix.S_ISGID

// seccompRules returns the filter's rules for this architecture: for a
// command with the network (network), or without it, in a network
// namespace of its own (netns) or not.
func seccompRules(network, netns bool) []scRule {
	rules := []scRule{
		{nr: unix.SYS_FCHMOD, arg: 1, mask: setid, errno: unix.EPERM},
		{nr: unix.SYS_FCHMODAT, arg: 2, mask: setid, errno: unix.EPERM},
		{nr: unix.SYS_FCHMODAT2, arg: 2, mask: setid, errno: unix.EPERM},
		{nr: unix.SYS_OPENAT, arg: 3, mask: setid, errno: unix.EPERM},
		{nr: unix.SYS_MKNODAT, arg: 2, mask: setid, errno: unix.EPERM},
		{nr: unix.SYS_OPENAT2, arg: -1, errno: unix.ENOSYS},
		{nr: unix.SYS_SETXATTR, arg: -1, errno: unix.EOPNOTSUPP},
		{nr: unix.SYS_LSETXATTR, arg: -1, errno: unix.EOPNOTSUPP},
		{nr: unix.SYS_FSETXATTR, arg: -1, errno: unix.EOPNOTSUPP},
		{nr: unix.SYS_SETXATTRAT, arg: -1, errno: unix.EOPNOTSUPP},
		{nr: unix.SYS_REMOVEXATTR, arg: -1, errno: unix.EOPNOTSUPP},
		{nr: unix.SYS_LREMOVEXATTR, arg: -1, errno: unix.EOPNOTSUPP},
		{nr: unix.SYS_FREMOVEXATTR, arg: -1, errno: unix.EOPNOTSUPP},
		{nr: unix.SYS_REMOVEXATTRAT, arg: -1, errno: unix.EOPNOTSUPP},
		{nr: unix.SYS_IO_URING_SETUP, arg: -1, errno: unix.ENOSYS},
		{nr: unix.SYS_IO_URING_ENTER, arg: -1, errno: unix.ENOSYS},
		{nr: unix.SYS_IO_URING_REGISTER, arg: -1, errno: unix.ENOSYS},
	}
	rules = append(rules, legacyRules...)
	switch {
	case network:
		return append(rules, scRule{nr: unix.SYS_SOCKET, arg: 0, equal: unix.AF_UNIX, errno: unix.EACCES})
	case netns:
		return append(rules, scRule{nr: unix.SYS_SOCKET, arg: 0, equal: unix.AF_NETLINK, unless: true, errno: unix.EACCES})
	}
	return append(rules, scRule{nr: unix.SYS_SOCKET, arg: -1, errno: unix.EACCES})
}

func bpfStmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
func bpfJump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}

// seccompProgram compiles rules into a classic BPF program.
func seccompProgram(rules []scRule) []unix.SockFilter {
	const (
		ldw  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		// offsets in struct seccomp_data
		offNr   = 0
		offArch = 4
		offArgs = 16
	)
	allow := bpfStmt(ret, unix.SECCOMP_RET_ALLOW)
	p := []unix.SockFilter{
		bpfStmt(ldw, offArch),
		bpfJump(jeq, seccompArch, 1, 0),
		bpfStmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS)),
		bpfStmt(ldw, offNr),
	}
	if seccompX32 {
		p = append(p, bpfJump(jge, 0x40000000, 0, 1), bpfStmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS)))
	}
	for _, r := range rules {
		deny := bpfStmt(ret, unix.SECCOMP_RET_ERRNO|uint32(r.errno))
		if r.arg < 0 {
			p = append(p, bpfJump(jeq, uint32(r.nr), 0, 1), deny)
			continue
		}
		// nr matches: load the argument's low word, test it, deny or
		// allow; either way the number was this rule's.
		test := bpfJump(jeq, r.equal, 0, 1)
		if r.unless {
			test = bpfJump(jeq, r.equal, 1, 0)
		}
		if r.mask != 0 {
			test = bpfJump(jset, r.mask, 0, 1)
		}
		p = append(p,
			bpfJump(jeq, uint32(r.nr), 0, 4),
			bpfStmt(ldw, uint32(offArgs+8*r.arg)), // little-endian: the low word first
			test,
			deny,
			allow,
		)
	}
	return append(p, allow)
}

// seccompBytes is the filter of rules as the helper installs it: 8 bytes
// an instruction (struct sock_filter) in the machine's byte order.
func seccompBytes(rules []scRule) []byte {
	prog := seccompProgram(rules)
	b := make([]byte, 0, 8*len(prog))
	for _, f := range prog {
		var ins [8]byte
		binary.NativeEndian.PutUint16(ins[0:], f.Code)
		ins[2], ins[3] = f.Jt, f.Jf
		binary.NativeEndian.PutUint32(ins[4:], f.K)
		b = append(b, ins[:]...)
	}
	return b
}
