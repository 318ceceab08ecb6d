package exec

import (
	"os"
	osexec "os/exec"
	"sync"
	"syscall"

	"github.com/agenthost/agenthost/host/exec/internal/helper"

	"golang.org/x/sys/unix"
)

// helperProc is a sandbox helper started with helper.ServeArgv: a
// process in its own session (and, when flags says so, its own
// namespaces) that waits on sock for the instructions of one run
// (docs/adr/0012).
type helperProc struct {
	p     *proc
	sock  int     // the parent's end of the helper's socket
	flags uintptr // the namespaces it was started in
}

// startHelper starts a helper in the namespaces flags names (none when
// 0). It knows nothing of the command yet: its environment is only the
// helper's mark, its standard descriptors are /dev/null and its working
// directory is / (so that it holds no directory of ours busy while it
// waits; the run's comes as a descriptor).
func startHelper(exe string, flags uintptr) (*helperProc, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	child := os.NewFile(uintptr(fds[1]), "|helper")
	attr := &syscall.SysProcAttr{Setsid: true}
	if flags != 0 {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags = flags
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		if flags&unix.CLONE_NEWNS != 0 {
			// The helper builds the view after its exec, which clears
			// the capabilities of a uid other than 0: it keeps, as
			// ambient ones, what the mounts need (CAP_SYS_ADMIN) and
			// what dropping them all before the command needs
			// (CAP_SETPCAP). They are the new user namespace's only.
			attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
		}
	}
	cmd := &osexec.Cmd{
		Path:        helperPath(exe),
		Args:        helper.ServeArgv(),
		Env:         []string{helper.Env + "=1"},
		Dir:         "/",
		ExtraFiles:  []*os.File{child}, // helper.ServeFD
		SysProcAttr: attr,
	}
	p, err := startProc(cmd)
	child.Close()
	if err != nil {
		unix.Close(fds[0])
		return nil, err
	}
	return &helperProc{p: p, sock: fds[0], flags: flags}, nil
}

// send gives the helper its instructions and the descriptors they name,
// then ends the stream (the helper reads to its end). An error (EPIPE:
// the helper is gone) means the command did not start.
func (h *helperProc) send(msg []byte, fds []int) error {
	// At most helper.MaxFDs descriptors a message, each chunk with one
	// byte of the instructions.
	for len(fds) > 0 {
		n := min(len(fds), helper.MaxFDs)
		one := 1
		if len(fds) == n {
			one = len(msg) // the last chunk takes the rest
		}
		sent, err := unix.SendmsgN(h.sock, msg[:one], unix.UnixRights(fds[:n]...), nil, unix.MSG_NOSIGNAL)
		if err == unix.EINTR {
			continue // nothing went
		}
		if err != nil {
			return err
		}
		msg, fds = msg[sent:], fds[n:] // a short write leaves the rest to the loop below
	}
	for len(msg) > 0 {
		n, err := unix.SendmsgN(h.sock, msg, nil, nil, unix.MSG_NOSIGNAL)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		msg = msg[n:]
	}
	if err := unix.Shutdown(h.sock, unix.SHUT_WR); err != nil {
		return err
	}
	// What is left is to read the status once the helper has exited.
	return unix.SetNonblock(h.sock, true)
}

// end kills a helper that was given no command (or failed to take one)
// and reaps it.
func (h *helperProc) end() {
	unix.Close(h.sock)
	_ = unix.Kill(h.p.pid, unix.SIGKILL)
	h.p.reap()
}

// zygote is a Runner's helper kept waiting for its next sandboxed run
// (docs/adr/0012). It is never shared between Runners.
type zygote struct {
	mu         sync.Mutex
	waiting    *helperProc
	starting   chan struct{} // closed when the start in progress is done; nil: none
	startFlags uintptr
	runs       int    // sandboxed runs ended since the Runner was made or closed
	epoch      uint64 // how many times close ran: a run started before the last close starts no helper
}

// take returns the waiting helper when it was started in the namespaces
// flags names (waiting for a start in progress), else nil: the caller
// starts one. A helper of other namespaces is ended. epoch is the
// Runner's epoch at the take, which the run hands back to ran.
func (z *zygote) take(flags uintptr) (h *helperProc, epoch uint64) {
	z.mu.Lock()
	for z.starting != nil && z.startFlags == flags && z.waiting == nil {
		c := z.starting
		z.mu.Unlock()
		<-c
		z.mu.Lock()
	}
	h, epoch = z.waiting, z.epoch
	z.waiting = nil
	z.mu.Unlock()
	if h != nil && h.flags != flags {
		h.end()
		return nil, epoch
	}
	return h, epoch
}

// ran is told that a sandboxed run in the namespaces flags ended: from
// the second such run on, a helper is started in the background for the
// next one. A program that runs one sandboxed command (agent-host exec)
// never starts a helper it would not use. A run that started before the
// last close (epoch, from take, is older) counts for nothing and starts
// nothing: runs still going when a Host is closed leave no helper behind.
func (z *zygote) ran(exe string, flags uintptr, epoch uint64) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if epoch != z.epoch {
		return
	}
	z.runs++
	if z.runs < 2 || z.starting != nil || z.waiting != nil {
		return
	}
	done := make(chan struct{})
	z.starting, z.startFlags = done, flags
	go func() {
		h, err := startHelper(exe, flags)
		z.mu.Lock()
		if err == nil && z.waiting == nil {
			z.waiting, h = h, nil
		}
		z.starting = nil
		close(done)
		z.mu.Unlock()
		if err == nil && h != nil {
			h.end()
		}
	}()
}

// settle waits for a helper start in progress.
func (z *zygote) settle() {
	z.mu.Lock()
	c := z.starting
	z.mu.Unlock()
	if c != nil {
		<-c
	}
}

// close ends the waiting helper (after a start in progress is done) and
// starts the count of runs again.
func (z *zygote) close() {
	z.settle()
	z.mu.Lock()
	h := z.waiting
	z.waiting, z.runs = nil, 0
	z.epoch++
	z.mu.Unlock()
	if h != nil {
		h.end()
	}
}
