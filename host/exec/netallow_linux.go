package exec

import (
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/agenthost/agenthost/host/exec/internal/helper"

	"golang.org/x/sys/unix"
)

// listenerWait bounds the wait for a helper's listener: it makes it
// right after it read its instructions.
const listenerWait = 10_000 // ms

// receiveListener reads the helper's first word on sock (non-blocking):
// helper.ListenOK with the listening socket of its network namespace,
// returned as a net.Listener; helper.ListenFailed, or the helper gone,
// gives nil and no error (the helper fails the run itself and says why
// on the command's standard error).
func receiveListener(sock int) (net.Listener, error) {
	var b [1]byte
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(sock, b[:], oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			fds := []unix.PollFd{{Fd: int32(sock), Events: unix.POLLIN}}
			k, perr := unix.Poll(fds, listenerWait)
			if perr == unix.EINTR {
				continue
			}
			if perr != nil || k == 0 {
				return nil, errors.New("exec: the sandbox helper did not pass its network listener")
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("exec: the sandbox helper's network listener: %w", err)
		}
		var got []int
		if oobn > 0 {
			if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for _, m := range msgs {
					if fds, err := unix.ParseUnixRights(&m); err == nil {
						got = append(got, fds...)
					}
				}
			}
		}
		if n != 1 || b[0] != helper.ListenOK || len(got) != 1 {
			for _, fd := range got {
				unix.Close(fd)
			}
			return nil, nil
		}
		f := os.NewFile(uintptr(got[0]), "|sandbox-listener")
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("exec: the sandbox helper's network listener: %w", err)
		}
		return ln, nil
	}
}
