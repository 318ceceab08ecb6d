package helper

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// connect answers a supervised connect(2) where the command has no
// network namespace of its own and may reach the Host's proxy only
// (Sandbox.AllowNet, docs/adr/0022). Landlock's rule names the proxy's
// port but not its address, so the helper reads the address the command
// asked for and, when it is the proxy's (127.0.0.1, or its IPv4-mapped
// IPv6 form, on proxyPort), connects the command's own socket (a copy of
// its descriptor, pidfd_getfd) to the address the helper holds. The
// command's call never runs: rewriting the address after the check
// changes nothing. Any other address is refused with ECONNREFUSED, as a
// closed port answers; a non-blocking socket gets EINPROGRESS as its own
// connect would.
func (s *supervisor) connect(n *seccompNotif) unix.Errno {
	size := n.args[2]
	if size < 2 || size > 128 {
		return unix.EINVAL
	}
	raw := make([]byte, size)
	if errno := readMem(n.pid, n.args[1], raw); errno != 0 {
		return errno
	}
	var to unix.Sockaddr
	switch family := binary.NativeEndian.Uint16(raw); family {
	case unix.AF_INET:
		if size < 8 || int(binary.BigEndian.Uint16(raw[2:])) != s.proxyPort || !bytes.Equal(raw[4:8], []byte{127, 0, 0, 1}) {
			return unix.ECONNREFUSED
		}
		to = &unix.SockaddrInet4{Port: s.proxyPort, Addr: [4]byte{127, 0, 0, 1}}
	case unix.AF_INET6:
		mapped := [16]byte{10: 0xff, 11: 0xff, 12: 127, 15: 1}
		if size < 24 || int(binary.BigEndian.Uint16(raw[2:])) != s.proxyPort || !bytes.Equal(raw[8:24], mapped[:]) {
			return unix.ECONNREFUSED
		}
		to = &unix.SockaddrInet6{Port: s.proxyPort, Addr: mapped}
	default:
		return unix.ECONNREFUSED
	}
	sock, errno := callerFD(n.pid, int(int32(n.args[0])))
	if errno != 0 {
		return errno
	}
	defer unix.Close(sock)
	// Everything read from the caller is read: its id still valid means
	// the thread and its descriptor table are the caller's.
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(s.listener), notifIDValid, uintptr(unsafe.Pointer(&n.id))); e != 0 {
		return unix.ENOENT
	}
	return errnoOf(unix.Connect(sock, to))
}

// callerFD returns a copy of descriptor fd of the process whose thread
// tid made the call (pidfd_getfd): the same open socket, so a connect
// on the copy connects the caller's.
func callerFD(tid uint32, fd int) (int, unix.Errno) {
	if fd < 0 {
		return -1, unix.EBADF
	}
	pidfd, err := unix.PidfdOpen(tgidOf(tid), 0)
	if err != nil {
		return -1, unix.EPERM
	}
	defer unix.Close(pidfd)
	got, err := unix.PidfdGetfd(pidfd, fd, 0)
	if err != nil {
		if err == unix.EBADF {
			return -1, unix.EBADF
		}
		return -1, unix.EPERM
	}
	return got, 0
}

// tgidOf is the process id of thread tid (its Tgid in /proc), tid itself
// when that cannot be read.
func tgidOf(tid uint32) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(tid)) + "/status")
	if err == nil {
		if i := bytes.Index(b, []byte("\nTgid:")); i >= 0 {
			line := b[i+6:]
			if j := bytes.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			if v, err := strconv.Atoi(string(bytes.TrimSpace(line))); err == nil {
				return v
			}
		}
	}
	return int(tid)
}
