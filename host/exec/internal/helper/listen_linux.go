package helper

import (
	"syscall"
	"unsafe"
)

// passListener brings up the loopback of the helper's network namespace,
// listens on 127.0.0.1:port and sends the listening socket to the parent
// on sock (ListenOK with the descriptor; ListenFailed, and the error,
// when any step fails). The helper keeps no copy: the command cannot
// accept on it, and the parent's proxy, outside, serves what connects
// (docs/adr/0022). A socket stays in the namespace it was made in, so
// accepting from outside reaches the command's connections only.
func passListener(sock, port int) error {
	fd, err := listenLoopback(port)
	if err != nil {
		syscall.Sendmsg(sock, []byte{ListenFailed}, nil, nil, syscall.MSG_NOSIGNAL)
		return err
	}
	err = syscall.Sendmsg(sock, []byte{ListenOK}, syscall.UnixRights(fd), nil, syscall.MSG_NOSIGNAL)
	syscall.Close(fd)
	return err
}

// listenLoopback sets lo up (it is down in a new namespace) and returns a
// TCP socket listening on 127.0.0.1:port.
func listenLoopback(port int) (int, error) {
	s, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, wrap("socket", err)
	}
	var ifr struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte // the rest of struct ifreq's union
	}
	copy(ifr.name[:], "lo")
	ifr.flags = syscall.IFF_UP | syscall.IFF_RUNNING
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(s), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr)))
	syscall.Close(s)
	if errno != 0 {
		return -1, wrap("loopback up", errno)
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, wrap("socket", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return -1, wrap("bind 127.0.0.1:"+itoa(port), err)
	}
	if err := syscall.Listen(fd, syscall.SOMAXCONN); err != nil {
		syscall.Close(fd)
		return -1, wrap("listen", err)
	}
	return fd, nil
}
