package jail

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 is found missing (Linux before 5.6) or
// forbidden (a seccomp filter); the slow walk then does all the work.
var noOpenat2 atomic.Bool

var errSlow = errors.New("jail: take the slow path")

// beneath makes the kernel refuse any symbolic link and any escape from
// the directory; whatever it refuses, the slow walk judges.
var beneath = unix.OpenHow{Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}

func openat2(dirfd int, rel string, flag int, perm fs.FileMode) (int, error) {
	how := beneath
	how.Flags = uint64(flag | unix.O_CLOEXEC)
	if flag&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
		how.Mode = uint64(perm.Perm())
	}
	for {
		fd, err := unix.Openat2(dirfd, rel, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err == unix.ENOSYS {
			// Before Linux 5.6, or a seccomp filter that answers ENOSYS.
			// (An EPERM may concern one file only, and costs just the
			// slow path for that call.)
			noOpenat2.Store(true)
		}
		return fd, err
	}
}

// locateFast resolves abs with one openat2 for its parent directory when abs
// is a plain path under a root; any doubt returns errSlow.
func (j *Jail) locateFast(rs *rootSet, abs string) (*Location, error) {
	if j.policy == Unrestricted {
		rs = j.slashSet
	}
	r, rel := rs.containing(abs)
	if r == nil || !cleanRel(rel) {
		return nil, errSlow
	}
	dir, name := filepath.Split(rel)
	if dir == "" {
		return &Location{Dir: r.dir, Name: name, Path: abs, j: j}, nil
	}
	if noOpenat2.Load() {
		return nil, errSlow
	}
	fd, err := openat2(r.dir.fd, dir[:len(dir)-1], oPath|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, errSlow
	}
	return &Location{Dir: &Dir{fd: fd}, Name: name, Path: abs, owned: true, j: j}, nil
}

// openFast opens abs with a single openat2 when it is a plain path under a
// root with no symbolic link on the way.
func (j *Jail) openFast(rs *rootSet, abs string, flag int, perm fs.FileMode) (*os.File, string, bool) {
	if noOpenat2.Load() {
		return nil, "", false
	}
	if j.policy == Unrestricted {
		rs = j.slashSet
	}
	r, rel := rs.containing(abs)
	if r == nil || !cleanRel(rel) {
		return nil, "", false
	}
	fd, err := openat2(r.dir.fd, rel, flag, perm)
	if err != nil {
		return nil, "", false
	}
	return os.NewFile(uintptr(fd), abs), abs, true
}
