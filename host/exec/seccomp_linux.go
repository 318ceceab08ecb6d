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
//     namespace too (issue 22), and is a second wall where it did not;
//   - with Sandbox.AllowNet (the proxy, issue 24), every socket(2) but
//     AF_INET and AF_INET6 of type SOCK_STREAM with protocol 0 or TCP
//     (and AF_NETLINK in a namespace of its own): no UDP, so no DNS, no
//     raw socket; and a send with MSG_FASTOPEN (EACCES), a TCP connect
//     that does not pass connect(2), which the helper supervises where
//     there is no namespace (meta_linux.go in the helper); there,
//     listen(2) too (EACCES): a socket listening on this machine's
//     network would take connections from outside.
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
	// stream replaces the test: refuse a socket(2) that is not an
	// AF_INET or AF_INET6 SOCK_STREAM socket of protocol 0 or TCP (or,
	// with unless, an AF_NETLINK one).
	stream bool
	errno  unix.Errno
}

// netRule is what socket(2) may make.
type netRule int

const (
	netNone    netRule = iota // nothing
	netNoneNS                 // AF_NETLINK only (a namespace of its own shows only its loopback)
	netAll                    // all but AF_UNIX (Sandbox.Network)
	netProxy                  // TCP only, no TCP Fast Open (Sandbox.AllowNet, no namespace)
	netProxyNS                // TCP and AF_NETLINK (Sandbox.AllowNet in a namespace of its own)
)

// netRuleFor is the socket rule of a run: with the whole network, with
// named hosts through the proxy (proxy), or without; in a network
// namespace of its own (netns) or not.
func netRuleFor(network, proxy, netns bool) netRule {
	switch {
	case network:
		return netAll
	case proxy && netns:
		return netProxyNS
	case proxy:
		return netProxy
	case netns:
		return netNoneNS
	}
	return netNone
}

const setid = unix.S_ISUID | unix.S_ISGID

// seccompRules returns the filter's rules for this architecture, with
// the socket rule net.
func seccompRules(net netRule) []scRule {
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
	switch net {
	case netAll:
		return append(rules, scRule{nr: unix.SYS_SOCKET, arg: 0, equal: unix.AF_UNIX, errno: unix.EACCES})
	case netNoneNS:
		return append(rules, scRule{nr: unix.SYS_SOCKET, arg: 0, equal: unix.AF_NETLINK, unless: true, errno: unix.EACCES})
	case netProxy, netProxyNS:
		if net == netProxy {
			// This machine's network: a listening socket would take
			// connections from outside (Landlock's bind rule, ABI 4,
			// refuses the bind too where the kernel has it).
			rules = append(rules, scRule{nr: unix.SYS_LISTEN, arg: -1, errno: unix.EACCES})
		}
		return append(rules,
			scRule{nr: unix.SYS_SOCKET, stream: true, unless: net == netProxyNS, errno: unix.EACCES},
			scRule{nr: unix.SYS_SENDTO, arg: 3, mask: unix.MSG_FASTOPEN, errno: unix.EACCES},
			scRule{nr: unix.SYS_SENDMSG, arg: 2, mask: unix.MSG_FASTOPEN, errno: unix.EACCES},
			scRule{nr: unix.SYS_SENDMMSG, arg: 3, mask: unix.MSG_FASTOPEN, errno: unix.EACCES},
		)
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
		if r.stream {
			p = append(p, streamOnly(r.nr, r.unless, deny, allow)...)
			continue
		}
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

// streamOnly is the block of a stream rule (see scRule.stream): for
// call nr, allow AF_INET and AF_INET6 sockets of type SOCK_STREAM
// (SOCK_NONBLOCK and SOCK_CLOEXEC aside) and protocol 0 or IPPROTO_TCP,
// and AF_NETLINK ones when netlink is set; deny the rest. Another call
// goes on past the block.
func streamOnly(nr uintptr, netlink bool, deny, allow unix.SockFilter) []unix.SockFilter {
	const (
		ldw  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		and  = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
		arg0 = 16
	)
	toNetlink := uint8(10) // to allow
	if !netlink {
		toNetlink = 0 // on to the next test, as when it is not AF_NETLINK
	}
	// Jump offsets count from the next instruction; the block is 14
	// long: deny at 12, allow at 13.
	return []unix.SockFilter{
		/* 0 */ bpfJump(jeq, uint32(nr), 0, 13),
		/* 1 */ bpfStmt(ldw, arg0),
		/* 2 */ bpfJump(jeq, unix.AF_NETLINK, toNetlink, 0),
		/* 3 */ bpfJump(jeq, unix.AF_INET, 1, 0),
		/* 4 */ bpfJump(jeq, unix.AF_INET6, 0, 7), // neither: deny
		/* 5 */ bpfStmt(ldw, arg0+8),
		/* 6 */ bpfStmt(and, ^uint32(unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)),
		/* 7 */ bpfJump(jeq, unix.SOCK_STREAM, 0, 4),
		/* 8 */ bpfStmt(ldw, arg0+16),
		/* 9 */ bpfJump(jeq, 0, 3, 0),
		/* 10 */ bpfJump(jeq, unix.IPPROTO_TCP, 2, 0),
		/* 11 */ bpfStmt(unix.BPF_JMP|unix.BPF_JA, 0),
		/* 12 */ deny,
		/* 13 */ allow,
	}
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
