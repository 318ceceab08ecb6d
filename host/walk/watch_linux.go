//go:build linux

package walk

import (
	"encoding/binary"
	"runtime"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// This file is the inotify side of the Cache: one non-blocking inotify
// descriptor per Cache, a watch on every directory on the way to each file
// the Cache depends on, and a poll at the start of each IsIgnored that
// reads whatever the kernel queued. No goroutine is involved.
//
// The poll asks first, with one epoll_pwait that does not wait, whether
// anything is queued at all: the inotify descriptor is the only one in an
// epoll set of the Cache's own, and an empty answer costs the kernel
// about half of what an inotify read that fails with EAGAIN does (a warm
// IsIgnored makes one such call; see poll for why it sees every event
// queued before it began).

// watchMask is every event by which what a name in a watched directory
// refers to, or the directory itself, can change. IN_ONLYDIR and
// IN_DONT_FOLLOW make inotify_add_watch refuse anything but a real
// directory, so a symbolic link on the way is never watched through (the
// file behind it falls back to stat).
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

// maxWatches bounds the watches of one Cache. A watch pins its directory's
// inode in kernel memory, about 1 KiB each (the kernel's own accounting in
// fs/notify/inotify sizes max_user_watches by that cost), so 16,384
// watches hold at most ~16 MiB; past that, files under new directories are
// re-checked by stat, as everywhere when inotify is unavailable. The
// bench/walk tree of 120,000 files needs about 4,300.
const maxWatches = 1 << 14

// watchBufSize is the read buffer for events: room for 60 events with the
// longest name (16 bytes + NAME_MAX + 1 each), far more with typical names.
const watchBufSize = 16 << 10

// maxPollReads bounds the reads of one poll. A queue still not empty after
// that many full buffers is a flood (a build in an ancestor directory, say);
// the watcher then starts afresh as on a queue overflow rather than keep
// the caller reading.
const maxPollReads = 64

type watchState uint8

const (
	watchUntried watchState = iota // no descriptor yet; opened by the first IsIgnored
	watchOpen
	watchFailed // inotify_init1 failed: stat-based for the Cache's life
	watchClosed // Close was called
)

// watcher is a Cache's inotify state. The Cache's mutex guards it.
type watcher struct {
	state   watchState
	fd      int
	ep      int // an epoll set holding fd alone, or -1 (poll then reads fd at once)
	cleanup runtime.Cleanup
	dirs    map[string]*watchDir // by path
	byWD    map[int32]*watchDir
	full    bool // ENOSPC or maxWatches: add no watch until one goes away
	buf     []byte
}

// watchDir is one watched directory and the names in it whose events
// matter: a file the Cache depends on, or the next directory on the way
// to one.
type watchDir struct {
	path  string
	wd    int32
	names map[string]struct{}
}

// active reports whether changes are being watched.
func (w *watcher) active() bool { return w.state == watchOpen }

// open creates the inotify descriptor the first time it is called.
// Callers hold c.mu.
func (w *watcher) open(c *Cache) {
	if w.state != watchUntried {
		return
	}
	if c.watchHook != nil {
		if err := c.watchHook(""); err != nil {
			w.state = watchFailed
			return
		}
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		w.state = watchFailed // EMFILE (max_user_instances), ENOSYS, ...
		return
	}
	w.fd = fd
	w.ep = openGate(fd)
	w.state = watchOpen
	w.dirs = map[string]*watchDir{}
	w.byWD = map[int32]*watchDir{}
	w.full = false
	// A Cache dropped without Close must not keep the descriptors (and
	// the watches) for the life of the process.
	w.cleanup = runtime.AddCleanup(c, closeInotify, [2]int{fd, w.ep})
}

// openGate returns an epoll set holding the inotify descriptor fd alone,
// level-triggered for input, or -1 when one cannot be had (EMFILE, say):
// the poll then reads fd every time, as it would without it.
func openGate(fd int) int {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return -1
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}); err != nil {
		_ = unix.Close(ep)
		return -1
	}
	return ep
}

// closeInotify closes the inotify descriptor and its epoll set (fds[1],
// -1 when there is none).
func closeInotify(fds [2]int) {
	if fds[1] >= 0 {
		_ = unix.Close(fds[1])
	}
	_ = unix.Close(fds[0])
}

// close releases the descriptor; the watcher stays closed.
func (w *watcher) close() error {
	if w.state != watchOpen {
		w.state = watchClosed
		return nil
	}
	w.cleanup.Stop()
	if w.ep >= 0 {
		_ = unix.Close(w.ep)
	}
	err := unix.Close(w.fd)
	w.fd, w.ep = -1, -1
	w.state = watchClosed
	w.dirs, w.byWD = nil, nil
	return err
}

// reset drops every watch by starting on a fresh descriptor (after a queue
// overflow, events may have been lost, including those that say a watched
// path now names another directory). Callers hold c.mu.
func (w *watcher) reset(c *Cache) {
	w.cleanup.Stop()
	closeInotify([2]int{w.fd, w.ep})
	w.fd, w.ep = -1, -1
	w.state = watchUntried
	w.open(c)
}

// poll reads everything queued on the descriptor without blocking and
// reports whether any of it may change what the Cache knows. When nothing
// is queued (the usual case) it costs one epoll_pwait that does not wait
// and finds nothing ready (or, without the epoll set, one read(2) that
// fails with EAGAIN). Callers hold c.mu.
//
// The epoll answer is as fresh as the read's: inotify queues an event,
// and wakes the descriptor's waiters, before the system call that caused
// it returns; epoll's wake-up callback puts the descriptor on the set's
// ready list right then, in that same call; and an epoll_pwait with a
// zero timeout looks at that list. So an event queued before this poll
// began is seen by it; the descriptor leaves the ready list only when a
// later epoll_pwait finds its queue empty (level-triggered). Anything
// else than "nothing ready" (an event, an error) goes on to the reads.
func (w *watcher) poll(c *Cache) (changed bool) {
	if w.state != watchOpen {
		return false
	}
	if w.ep >= 0 {
		n, err := epollNoWait(w.ep)
		runtime.KeepAlive(c) // the cleanup must not close ep during the call
		if n == 0 && err == 0 {
			return false
		}
	}
	if w.buf == nil {
		w.buf = make([]byte, watchBufSize)
	}
	for range maxPollReads {
		n, err := readNonblock(w.fd, w.buf)
		runtime.KeepAlive(c) // the cleanup must not close fd during the read
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return changed
		case err != 0 || n <= 0:
			// Not expected from an inotify descriptor; stop trusting it.
			_ = w.close()
			w.state = watchFailed
			return true
		}
		ch, overflow := w.events(w.buf[:n])
		if overflow {
			w.reset(c)
			return true
		}
		changed = changed || ch
	}
	w.reset(c)
	return true
}

// readNonblock is read(2) on the non-blocking inotify descriptor as a raw
// system call: without the scheduler's hand-off that unix.Read makes for a
// call that might block (about a third of a warm IsIgnored's poll). It
// never blocks: the descriptor is IN_NONBLOCK, so an empty queue fails at
// once with EAGAIN, and a queued event is copied out without waiting.
func readNonblock(fd int, buf []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(len(buf)))
	return int(r), e
}

// epollNoWait is epoll_pwait(ep, one event, timeout 0, no signal mask) as
// a raw system call: it never blocks, so it needs no scheduler hand-off.
// It returns the number of ready descriptors (0 or 1).
func epollNoWait(ep int) (int, unix.Errno) {
	var ev unix.EpollEvent
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&ev)), 1, 0, 0, 0)
	return int(r), e
}

// events goes through one buffer of events. It reports whether any
// concerns a name the Cache depends on, and whether the queue overflowed.
func (w *watcher) events(b []byte) (changed, overflow bool) {
	const hdr = unix.SizeofInotifyEvent
	for len(b) >= hdr {
		wd := int32(binary.NativeEndian.Uint32(b[0:]))
		mask := binary.NativeEndian.Uint32(b[4:])
		n := int(binary.NativeEndian.Uint32(b[12:]))
		if hdr+n > len(b) {
			n = len(b) - hdr
		}
		name := b[hdr : hdr+n]
		b = b[hdr+n:]
		if i := indexNUL(name); i >= 0 {
			name = name[:i]
		}
		if mask&unix.IN_Q_OVERFLOW != 0 {
			return true, true
		}
		d := w.byWD[wd]
		if d == nil {
			continue // a watch already dropped
		}
		switch {
		case mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0:
			// The watched directory is gone from its path (or will be): the
			// path and every path below it must be watched afresh.
			w.drop(d, mask&unix.IN_IGNORED == 0)
			changed = true
		case len(name) == 0:
			changed = true // the directory's own attributes
		default:
			if _, ok := d.names[string(name)]; ok {
				changed = true
			}
		}
	}
	return changed, false
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// drop forgets d and every watched directory below it (their paths may now
// name other directories), removing their kernel watches; d's own is left
// alone when the kernel already removed it.
func (w *watcher) drop(d *watchDir, rmSelf bool) {
	prefix := d.path + "/"
	if d.path == "/" {
		prefix = "/"
	}
	for p, x := range w.dirs {
		if x != d && !strings.HasPrefix(p, prefix) {
			continue
		}
		if x != d || rmSelf {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(x.wd))
		}
		delete(w.dirs, p)
		delete(w.byWD, x.wd)
	}
	w.full = false
}

// dirResult is what watching one directory gave.
type dirResult uint8

const (
	dirWatched dirResult = iota
	dirAbsent            // nothing is there, or not a directory: nothing below exists
	dirUnwatchable
)

// dir watches the directory p (absolute, clean), or finds its watch.
func (w *watcher) dir(c *Cache, p string) (*watchDir, dirResult) {
	if d := w.dirs[p]; d != nil {
		return d, dirWatched
	}
	if w.full || len(w.dirs) >= maxWatches {
		return nil, dirUnwatchable
	}
	if c.watchHook != nil {
		if err := c.watchHook(p); err != nil {
			return nil, dirUnwatchable
		}
	}
	var wd int
	var err error
	for {
		wd, err = unix.InotifyAddWatch(w.fd, p, watchMask)
		if err != unix.EINTR {
			break
		}
	}
	switch err {
	case nil:
	case unix.ENOENT:
		return nil, dirAbsent
	case unix.ENOTDIR:
		// A file (nothing below it exists) or a symbolic link (what is
		// below it cannot be watched through it).
		var st unix.Stat_t
		if lerr := unix.Lstat(p, &st); lerr == unix.ENOENT ||
			lerr == nil && st.Mode&unix.S_IFMT != unix.S_IFLNK && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return nil, dirAbsent
		}
		return nil, dirUnwatchable
	case unix.ENOSPC:
		w.full = true // max_user_watches
		return nil, dirUnwatchable
	default: // EACCES, ENOMEM, ...
		return nil, dirUnwatchable
	}
	if w.byWD[int32(wd)] != nil {
		// The same directory under another path (a bind mount): events
		// could not be told apart; leave this path to stat.
		return nil, dirUnwatchable
	}
	d := &watchDir{path: p, wd: int32(wd), names: map[string]struct{}{}}
	w.dirs[p] = d
	w.byWD[d.wd] = d
	return d, dirWatched
}

// watchFile makes sure that any change to what path names (absolute and
// clean) queues an event: the file's directory and every directory above
// it are watched, each with the next name on the way marked as mattering.
// Where a directory on the way does not exist, the watch on its parent
// sees it appear. It reports false when that cannot be guaranteed (a
// watch could not be added, a symbolic link on the way, or at the end of
// a path that follows one), and the caller re-checks path by stat.
// Callers hold c.mu and call it before stat'ing path, so that a change
// between the two is queued rather than lost.
func (w *watcher) watchFile(c *Cache, path string, follow bool) bool {
	if w.state != watchOpen || len(path) < 2 || path[0] != '/' {
		return false
	}
	d, r := w.dir(c, "/")
	if r != dirWatched {
		return false
	}
	i := 1
	for {
		j := strings.IndexByte(path[i:], '/')
		if j < 0 {
			d.mark(path[i:])
			break
		}
		d.mark(path[i : i+j])
		next := path[:i+j]
		nd, r := w.dir(c, next)
		switch r {
		case dirAbsent:
			return true
		case dirUnwatchable:
			return false
		}
		d, i = nd, i+j+1
	}
	if follow {
		// A final symbolic link is followed by the stat; its target's
		// directory is not watched.
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return false
		}
	}
	return true
}

// watchesDir reports whether the directory p is watched: it was a real
// directory when the watch was added, and no event since (up to the last
// poll) says it left that path.
func (w *watcher) watchesDir(p string) bool {
	_, ok := w.dirs[p]
	return ok
}

// mark records that events about name matter.
func (d *watchDir) mark(name string) {
	if _, ok := d.names[name]; !ok {
		d.names[strings.Clone(name)] = struct{}{}
	}
}
