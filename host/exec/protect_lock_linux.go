package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Sandboxed runs are serialised per root, from the protected set's
// baseline to its restore. Two runs that overlapped on one root could not
// both be right: the second would take the first one's plant (a hook) as
// its baseline and write it back after the first run had removed it. The
// hold is an in-process mutex keyed by the root directory's device and
// inode, then flock(LOCK_EX) on a descriptor of the root directory, which
// other processes (another agent-host) see too. A root may lie inside
// another run's root (an agent-host on a monorepo, another on a package
// of it): so every directory above a root, up to "/", is held shared
// (flock(LOCK_SH), which conflicts with the LOCK_EX of a run whose root it
// is, and with no other run's LOCK_SH). Everything is taken in
// device+inode order, so two runs over overlapping sets cannot deadlock.
// A command can make other runs wait (flock of a directory it can read,
// "/" included) only while it runs: they end with ErrRootBusy.

type rootID struct{ dev, ino uint64 }

var (
	rootLocksMu sync.Mutex
	rootLocks   = map[rootID]chan struct{}{}
)

// rootLock is the in-process hold of one root: a channel of one slot, so
// that a wait for it can end with the run's context.
func rootLock(id rootID) chan struct{} {
	rootLocksMu.Lock()
	defer rootLocksMu.Unlock()
	m := rootLocks[id]
	if m == nil {
		m = make(chan struct{}, 1)
		rootLocks[id] = m
	}
	return m
}

// ErrRootBusy is wrapped by the error of a sandboxed run that waited for
// another sandboxed run on one of its roots until its timeout: runs on a
// root are serialised (see above), and a long one (a server) makes the
// others wait.
var ErrRootBusy = errors.New("exec: another sandboxed command holds a root of this one")

// flockPoll is how often a wait for another process's hold on a root
// looks again.
const flockPoll = 5 * time.Millisecond

// lockRoots waits until it holds every root that can be opened and
// returns the function that lets them go. A root that cannot be opened is
// not held (there is nothing in it to protect either). The wait ends,
// with nothing held, when ctx is done (its error) or wait has passed
// (ErrRootBusy; wait <= 0 means no bound but ctx).
// dirs, when given, are the roots' descriptors (Sandbox.RootDirs, opened
// through the jail, in the order of roots): the root held is then the
// directory the jail opened, not what its path names now.
func lockRoots(ctx context.Context, roots []string, dirs []*os.File, wait time.Duration) (func(), []rootID, error) {
	type held struct {
		id   rootID
		fd   int
		excl bool // a root (the in-process hold, then LOCK_EX); else a directory above one (LOCK_SH)
	}
	var hs []held
	at := map[rootID]int{} // index in hs
	add := func(fd int, excl bool) (rootID, bool) {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			unix.Close(fd)
			return rootID{}, false
		}
		id := rootID{uint64(st.Dev), st.Ino}
		if i, ok := at[id]; ok {
			hs[i].excl = hs[i].excl || excl
			unix.Close(fd)
			return id, true
		}
		at[id] = len(hs)
		hs = append(hs, held{id, fd, excl})
		return id, true
	}
	for i, r := range roots {
		var fd int
		var err error
		if i < len(dirs) && dirs[i] != nil {
			// A description of our own for flock (the jail's is O_PATH).
			fd, err = unix.Openat(int(dirs[i].Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		} else {
			fd, err = unix.Open(r, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		}
		if err != nil {
			continue
		}
		if _, ok := add(fd, true); !ok {
			continue
		}
		// The directories above the root, up to "/", from the
		// descriptor (".." of what was opened, not of a path).
		cur, err := unix.Openat(fd, ".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		for {
			pfd, err := unix.Openat(cur, "..", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				// Not readable: walked past (no lock on it), not held.
				if pfd, err = unix.Openat(cur, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
					break
				}
			}
			var cst, pst unix.Stat_t
			if unix.Fstat(cur, &cst) != nil || unix.Fstat(pfd, &pst) != nil || cst.Dev == pst.Dev && cst.Ino == pst.Ino {
				unix.Close(pfd)
				break // "/" (of this process's view)
			}
			unix.Close(cur)
			// Close-on-exec like every descriptor here: a copy that a
			// command started meanwhile inherited (the Runner's next
			// helper starts in the background) would keep pfd's flock
			// for as long as that process lives.
			if cur, err = unix.FcntlInt(uintptr(pfd), unix.F_DUPFD_CLOEXEC, 0); err != nil {
				unix.Close(pfd)
				return nil, nil, fmt.Errorf("exec: hold of the roots: %w", err)
			}
			if fl, err := unix.FcntlInt(uintptr(pfd), unix.F_GETFL, 0); err == nil && fl&unix.O_PATH != 0 {
				unix.Close(pfd)
				continue
			}
			add(pfd, false)
		}
		unix.Close(cur)
	}
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].id.dev != hs[j].id.dev {
			return hs[i].id.dev < hs[j].id.dev
		}
		return hs[i].id.ino < hs[j].id.ino
	})
	var expired <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	got := 0 // held, in order: hs[:got]
	release := func() {
		for i := got - 1; i >= 0; i-- {
			unix.Close(hs[i].fd) // drops the flock
			if hs[i].excl {
				<-rootLock(hs[i].id)
			}
		}
		for _, h := range hs[got:] {
			unix.Close(h.fd)
		}
	}
	fail := func(err error) (func(), []rootID, error) {
		release()
		if err == nil {
			err = fmt.Errorf("%w (waited %s)", ErrRootBusy, wait)
		}
		return nil, nil, err
	}
	for _, h := range hs {
		how := unix.LOCK_SH
		if h.excl {
			how = unix.LOCK_EX
			select {
			case rootLock(h.id) <- struct{}{}:
			case <-ctx.Done():
				return fail(ctx.Err())
			case <-expired:
				return fail(nil)
			}
		}
		for !outerHolds()[h.id] {
			err := unix.Flock(h.fd, how|unix.LOCK_NB)
			if err == nil {
				break
			}
			if err != unix.EWOULDBLOCK && err != unix.EINTR {
				break // no flock here: the in-process hold alone
			}
			select {
			case <-ctx.Done():
				if h.excl {
					<-rootLock(h.id)
				}
				return fail(ctx.Err())
			case <-expired:
				if h.excl {
					<-rootLock(h.id)
				}
				return fail(nil)
			case <-time.After(flockPoll):
			}
		}
		got++
	}
	var once sync.Once
	ids := make([]rootID, len(hs))
	for i, h := range hs {
		ids[i] = h.id
	}
	return func() { once.Do(release) }, ids, nil
}

// heldEnv names, in a sandboxed command's environment, the roots and the
// directories above them (device:inode, comma-separated) its run holds.
// A sandboxed run started inside that command (an agent-host exec
// within agent-host exec) takes no flock on them, which the outer run
// holds until its whole tree, this run included, has ended: it would
// wait for itself. That is safe
// because such a run lies inside the outer one: whatever it leaves, the
// outer run's restore, after it, checks against the outer baseline. A
// command that sets the variable itself gains nothing: what it starts is
// inside it as well, and runs outside it never see its environment.
const heldEnv = "AGENTHOST_SANDBOX_HELD_ROOTS"

// inOuterRun reports whether heldEnv is set and may be believed: only in
// a process with no_new_privs set, as every sandboxed command has (the
// helper sets it before it starts the command, and it is inherited and
// cannot be unset). In any other process (an embedding program or a
// user's shell that happens to carry the variable) it is ignored, so that
// it can neither skip a root's lock nor widen a read grant there.
var inOuterRun = sync.OnceValue(believeHeldEnv)

func believeHeldEnv() bool {
	return os.Getenv(heldEnv) != "" && noNewPrivs()
}

// noNewPrivs reports whether this process has no_new_privs set.
func noNewPrivs() bool {
	nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	return err == nil && nnp == 1
}

// outerHolds is the set heldEnv names in this process's environment, or
// none when inOuterRun says it is not to be believed.
var outerHolds = sync.OnceValue(func() map[rootID]bool {
	m := map[rootID]bool{}
	if !inOuterRun() {
		return m
	}
	for _, s := range strings.Split(os.Getenv(heldEnv), ",") {
		d, i, ok := strings.Cut(s, ":")
		dev, err1 := strconv.ParseUint(d, 10, 64)
		ino, err2 := strconv.ParseUint(i, 10, 64)
		if ok && err1 == nil && err2 == nil {
			m[rootID{dev, ino}] = true
		}
	}
	return m
})

// heldValue is heldEnv's value for the roots ids.
func heldValue(ids []rootID) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(id.dev, 10) + ":" + strconv.FormatUint(id.ino, 10))
	}
	return b.String()
}
