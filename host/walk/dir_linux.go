//go:build linux

package walk

import (
	"bytes"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On Linux a walk holds a descriptor per directory it is reading and opens
// each subdirectory relative to it with O_NOFOLLOW|O_DIRECTORY, so a
// directory swapped for a symbolic link mid-walk is refused (ELOOP or
// ENOTDIR) rather than followed out of the tree. Entries come from
// getdents64 with their d_type, so no entry is stat'ed unless the file
// system leaves the type unknown.

// dirHandle is an open directory descriptor.
type dirHandle int

// minDirentSpace keeps room for at least a few maximal records per
// getdents64 call (a record is at most 19+256 bytes, rounded up).
const minDirentSpace = 4096

// dirBufSize is the getdents64 buffer, and so the most of a directory a
// walk holds at once: 32 KiB reads some 800 entries in one call (Go's os
// package uses 8 KiB); a larger directory is read and delivered in parts
// of that size.
const dirBufSize = 32 << 10

// dirBuf holds one directory's raw records and the entries parsed from
// them; entry names point into arena.
type dirBuf struct {
	arena   []byte
	entries []rawEntry
}

func newDirBuf() *dirBuf { return &dirBuf{arena: make([]byte, 0, dirBufSize)} }

// openRoot opens the walk's starting directory (a final symbolic link is
// followed: the caller named it).
func openRoot(path string) (dirHandle, error) {
	fd, err := retryEINTR(func() (int, error) {
		return unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return dirHandle(fd), nil
}

// handleFromFile duplicates an open directory's descriptor for the walk,
// which closes its handles as it goes.
func handleFromFile(f *os.File, _ string) (dirHandle, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "dup", Path: f.Name(), Err: err}
	}
	return dirHandle(fd), nil
}

// openSubdir opens directory name inside parent, refusing a symbolic link.
// quick makes the call a raw one (see rawOpenat).
func openSubdir(parent dirHandle, name, path string, quick bool) (dirHandle, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	var fd int
	var err error
	if quick {
		fd, err = retryEINTR(func() (int, error) { return rawOpenat(int(parent), name, flags) })
	} else {
		fd, err = retryEINTR(func() (int, error) { return unix.Openat(int(parent), name, flags, 0) })
	}
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return dirHandle(fd), nil
}

// rawOpenat is openat(2) made as a raw system call, the name copied to a
// NUL-terminated buffer on the stack (no allocation per directory).
//
// Raw calls: the calls a walk makes for each directory (openat,
// getdents64, close) can be made as raw system calls, which do not tell
// the Go scheduler that the goroutine is in the kernel. On a warm cache
// they return in microseconds, and telling the scheduler costs more than
// the call (entering and leaving it; one that outlasts sysmon's 20 us
// tick may have its P handed to another thread, woken for little); on a
// 10,000-file tree that was 2-5% of the walk's CPU. A raw call that
// blocks holds its P (and a stop-the-world waits for it), so a walk makes
// them only while they are quick: the first getdents64 that takes longer
// than slowSyscall (a cold cache, a network file system) turns them off
// for the rest of the walk.
func rawOpenat(dirfd int, name string, flags int) (int, error) {
	var buf [256]byte
	var p *byte
	if len(name) < len(buf) {
		if strings.IndexByte(name, 0) >= 0 {
			return -1, unix.EINVAL
		}
		copy(buf[:], name)
		p = &buf[0]
	} else {
		var err error
		if p, err = unix.BytePtrFromString(name); err != nil {
			return -1, err
		}
	}
	r, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags), 0, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

func (d dirHandle) close() { unix.Close(int(d)) }

// closeQuick closes d, with a raw system call when quick. close(2) is
// never retried: Linux releases the descriptor even when it reports EINTR.
func (d dirHandle) closeQuick(quick bool) {
	if quick {
		unix.RawSyscall(unix.SYS_CLOSE, uintptr(d), 0, 0)
		return
	}
	unix.Close(int(d))
}

// invalidHandle is no directory.
const invalidHandle dirHandle = -1

// dup is a second descriptor for the same directory (O_CLOEXEC).
func (d dirHandle) dup() (dirHandle, error) {
	fd, err := unix.FcntlInt(uintptr(d), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	return dirHandle(fd), nil
}

// readChunk lists the next part of d, "." and ".." excluded: as many
// entries as b's buffer holds (dirBufSize: some 800 names), never the
// whole of a large directory, so that a walk holds a bounded part of any
// directory at a time. eof reports that the directory was read to its end
// (or could not be read further: err says why). The names live in b until
// its next use. quick makes the getdents64 calls raw ones (see
// rawOpenat) and times them on the monotonic clock from since: slow
// reports that one took longer than slowSyscall, and at is the time
// since since when the last one ended (0 when not quick). One clock
// reading per call: the walk makes two calls per small directory, and
// reads the clock for nothing else.
func readChunk(d dirHandle, path string, b *dirBuf, quick bool, since time.Time) (_ []rawEntry, eof bool, at time.Duration, slow bool, _ error) {
	arena := b.arena[:0]
	if cap(arena) < dirBufSize {
		arena = make([]byte, 0, dirBufSize)
	}
	var rerr error
	if quick {
		at = time.Since(since)
	}
	for cap(arena)-len(arena) >= minDirentSpace {
		var n int
		var err error
		if quick {
			n, err = retryEINTR(func() (int, error) { return rawGetdents(int(d), arena[len(arena):cap(arena)]) })
			end := time.Since(since)
			slow = slow || end-at > slowRead
			at = end
		} else {
			n, err = retryEINTR(func() (int, error) { return unix.Getdents(int(d), arena[len(arena):cap(arena)]) })
		}
		if err != nil {
			rerr = &os.PathError{Op: "readdirent", Path: path, Err: err}
			eof = true
			break
		}
		if n <= 0 {
			eof = true
			break
		}
		arena = arena[:len(arena)+n]
	}
	b.arena = arena
	ents := b.entries[:0]
	for off := 0; off+19 <= len(arena); {
		rec := arena[off:]
		reclen := int(*(*uint16)(unsafe.Pointer(&rec[16])))
		if reclen < 20 || reclen > len(rec) {
			break
		}
		ino := *(*uint64)(unsafe.Pointer(&rec[0]))
		typ := rec[18]
		name := rec[19:reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		off += reclen
		if ino == 0 || len(name) == 0 || (name[0] == '.' && (len(name) == 1 || (len(name) == 2 && name[1] == '.'))) {
			continue
		}
		var t entryType
		switch typ {
		case unix.DT_DIR:
			t = typeDir
		case unix.DT_REG:
			t = typeFile
		case unix.DT_LNK:
			t = typeSymlink
		case unix.DT_UNKNOWN:
			t = typeUnknown
		default:
			t = typeOther
		}
		ents = append(ents, rawEntry{name: unsafe.String(&name[0], len(name)), typ: t})
	}
	b.entries = ents
	return ents, eof, at, slow, rerr
}

// rewind makes the next readChunk of d start again at d's first entry.
func rewind(d dirHandle, _ *dirBuf) error {
	_, err := unix.Seek(int(d), 0, 0)
	return err
}

// release ends b's use for one directory (nothing to do on Linux: the
// directory's descriptor is the walk's).
func (b *dirBuf) release() {}

// existsAt reports whether d holds an entry name (of any type, a symbolic
// link not followed).
func existsAt(d dirHandle, name string) bool { return sizeAt(d, name) >= 0 }

// sizeAt returns the size of the entry name in d (a symbolic link not
// followed), -1 when it cannot be stat-ed.
func sizeAt(d dirHandle, name string) int64 {
	var st unix.Stat_t
	if _, err := retryEINTR(func() (int, error) { return 0, unix.Fstatat(int(d), name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return -1
	}
	return st.Size
}

// rawGetdents is getdents64(2) made as a raw system call into buf.
func rawGetdents(fd int, buf []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(len(buf)))
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// typeAt stats name inside d without following a symbolic link.
func typeAt(d dirHandle, name string) entryType {
	var st unix.Stat_t
	if _, err := retryEINTR(func() (int, error) { return 0, unix.Fstatat(int(d), name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return typeOther
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return typeDir
	case unix.S_IFREG:
		return typeFile
	case unix.S_IFLNK:
		return typeSymlink
	}
	return typeOther
}

// readFileAt reads the regular file name inside d, refusing a symbolic
// link (as git does for .gitignore since 2.32) and anything but a regular
// file (see readRegular). d was opened by the walk, from a descriptor the
// caller may have opened through a jail, so no path string is involved.
func readFileAt(_ *Cache, d dirHandle, name, _ string) ([]byte, error) {
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(int(d), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	})
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	data, _, err := readRegular(fd, maxIgnoreFileSize)
	return data, err
}
