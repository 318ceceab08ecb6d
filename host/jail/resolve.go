package jail

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Location is a resolved path: an open directory and the name of the final
// component inside it. It is valid while the operation given it runs.
type Location struct {
	// Dir is the open directory that holds the final component.
	Dir *Dir
	// Name is the final component: never empty, never "..", and "." when
	// the path names the directory Dir itself.
	Name string
	// Path is the canonical absolute path of the final component: no
	// "//", no "." or ".." component, no trailing "/".
	Path string
	// Slash is true when the path was written with a trailing slash, so the
	// caller meant a directory.
	Slash bool

	owned   bool     // Dir is ours to close (not a root's)
	file    *os.File // the final component, when the resolution opened it (OpenFile)
	fd      int      // the same, bare, for a raw open (OpenDirFd), when hasFd
	hasFd   bool
	open    *finalOpen // OpenFile's open, for openFinal
	missing bool       // Nearest: Name does not exist (or is not a directory) in Dir
	rs      *rootSet   // the roots the resolution went through
}

// Close releases the directory. It is safe to call twice; the operation
// that was given the Location need not call it.
func (l *Location) Close() {
	if l == nil {
		return
	}
	if l.owned {
		l.Dir.close()
		l.owned = false
	}
	if l.file != nil {
		l.file.Close()
		l.file = nil
	}
	if l.hasFd {
		closeFd(l.fd)
		l.hasFd = false
	}
}

// Abs returns path made absolute: ~-expanded, joined to cwd when relative
// (cwd itself relative to the workspace root, "" meaning the workspace
// root), and cleaned lexically. It reads nothing and checks nothing but the
// shape of its inputs (ErrInvalidPath). It is what the Unrestricted policy
// uses as its resolution, and is not a safe basis for opening anything.
func (j *Jail) Abs(cwd, path string) (string, error) {
	p, err := j.join(j.roots.Load(), cwd, path, false)
	if err != nil {
		return "", err
	}
	return filepath.Clean(p), nil
}

// Resolve returns the canonical absolute path that path names: symbolic
// links followed (within the roots), ".." applied the way the kernel does,
// no "//", "." or trailing "/" left. The final component need not exist.
// Under Jailed, a path that leaves every root gives an error wrapping
// ErrEscape, a loop one wrapping ErrTooManyLinks, a missing directory on
// the way fs.ErrNotExist. Under Unrestricted it is what the operations
// would touch when that can be known, else Abs. The result is for display
// and permission prompts; the host's operations never re-open it.
func (j *Jail) Resolve(cwd, path string) (string, error) {
	if j.policy == Unrestricted {
		if p, err := j.resolve(cwd, path); err == nil {
			return p, nil
		}
		return j.Abs(cwd, path)
	}
	return j.resolve(cwd, path)
}

func (j *Jail) resolve(cwd, path string) (string, error) {
	var out string
	err := j.Do(cwd, path, true, func(l *Location) error {
		if l.Slash && l.Name != "." {
			if fi, err := l.Dir.Lstat(l.Name); err == nil && !fi.IsDir() {
				return &os.PathError{Op: "resolve", Path: path, Err: enotdir}
			}
		}
		out = l.Path
		return nil
	})
	if err != nil {
		return "", err
	}
	return out, nil
}

// errFinalLink is returned by an operation passed to Do when the final
// component turned out to be a symbolic link that must be followed.
var errFinalLink = &os.PathError{Op: "open", Err: eloop}

// Do resolves path and calls op with its Location, closed when op returns.
//
// When follow is true, a final symbolic link is followed (its target must
// lie inside a root): op is given the link's target, never the link. A
// link swapped in after the resolution and before op acts is op's to
// report, by an error matching syscall.ELOOP (opening with O_NOFOLLOW
// does that by itself); Do then resolves again and calls op again, at most
// MaxSymlinks times. When follow is false, the final component is taken as
// it is (a link is the link). op's error is returned as is.
func (j *Jail) Do(cwd, path string, follow bool, op func(*Location) error) error {
	return j.do(cwd, path, &mode{follow: follow}, op)
}

// DoNoLinks is Do for places that must not be reached through any
// symbolic link (an outbox, say): a link anywhere on path's way, the final
// component included, gives an error wrapping ErrSymlink, and op is never
// given a link. cwd is resolved as for Do. A link swapped in after the
// resolution is op's to refuse (O_NOFOLLOW and the *at calls of Dir do);
// Do does not retry.
func (j *Jail) DoNoLinks(cwd, path string, op func(*Location) error) error {
	return j.do(cwd, path, &mode{noLinks: true}, op)
}

// do is Do with a mode.
func (j *Jail) do(cwd, path string, m *mode, op func(*Location) error) error {
	rs, err := j.acquire()
	if err != nil {
		return err
	}
	defer rs.release()
	abs, err := j.join(rs, cwd, path, true)
	if err != nil {
		return err
	}
	return j.run(rs, j.walkSet(rs), abs, m, op)
}

// walkSet is the set a resolution walks through: the roots, or "/" alone
// under Unrestricted.
func (j *Jail) walkSet(rs *rootSet) *rootSet {
	if j.policy == Unrestricted {
		return j.slashSet
	}
	return rs
}

// run resolves abs through set (fast path first, then the walk) and calls
// op, again when op reports a final link that was swapped in.
func (j *Jail) run(rs, set *rootSet, abs string, m *mode, op func(*Location) error) error {
	for try := 0; ; try++ {
		l := j.locateFast(set, abs, m)
		if l == opened {
			return nil // the fast path did the open: nothing left for op
		}
		if l == nil {
			var err error
			if l, err = j.walk(rs, set, abs, m); err != nil {
				return err
			}
		}
		l.rs, l.open = rs, m.open
		err := runOp(l, op)
		if !m.follow || try >= MaxSymlinks || !errors.Is(err, eloop) {
			return err
		}
		m.triedFast = false
	}
}

// runOp calls op and closes l even if op panics.
func runOp(l *Location, op func(*Location) error) error {
	defer l.Close()
	return op(l)
}

// locateFast is the common case, without the walk: abs is a plain path
// below a root (no "//", ".", ".." or trailing "/"). The final component
// is opened with one openat2 from the root when the resolution opens it
// (OpenFile), else its directory is (the root itself when the name is
// directly in it), and a final link that must be followed sends the
// resolution to the walk. It returns nil to take the walk, m.triedFast
// set when openat2 refused.
func (j *Jail) locateFast(set *rootSet, abs string, m *mode) *Location {
	r, rel := set.containing(abs)
	if r == nil || !cleanRel(rel) {
		return nil
	}
	canon := abs // when abs is spelled canonically, as it mostly is
	if len(abs) != len(r.canon)+1+len(rel) || r.canon == "/" {
		canon = joinName(r.canon, rel)
	}
	if j.hints.under(r.canon, canon) {
		// A link was on this way last time: the walk goes straight to it
		// (one openat2 up to it, then readlinkat).
		return nil
	}
	if m.open != nil {
		if noOpenat2.Load() {
			return nil
		}
		if m.open.raw {
			fd, err := r.dir.openBeneathFd(rel, m.open.flag, m.open.perm)
			if err != nil {
				m.triedFast = true
				return nil
			}
			m.open.fd, m.open.canon = fd, canon
			return opened
		}
		f, err := r.dir.openBeneath(rel, m.open.flag, m.open.perm, canon)
		if err != nil {
			m.triedFast = true
			return nil
		}
		m.open.file, m.open.canon = f, canon
		return opened
	}
	l := &Location{Dir: r.dir, Name: rel, Path: canon}
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		if noOpenat2.Load() {
			return nil
		}
		d, err := r.dir.openDirBeneath(rel[:i])
		if err != nil {
			m.triedFast = true
			return nil
		}
		l.Dir, l.Name, l.owned = d, rel[i+1:], true
	}
	if m.follow || m.noLinks {
		if _, err := l.Dir.Readlink(l.Name); err == nil || !isNotLink(err) {
			l.Close() // a link to follow, or an error for the walk to report
			return nil
		}
	}
	return l
}

// OpenFile opens the file path names, following symbolic links within the
// roots, with flag (O_NOFOLLOW and O_CLOEXEC are added; O_CREATE is allowed
// and creates inside the jail only). It returns the file and its canonical
// path. Errors are as for Resolve, plus those of open(2) as *fs.PathError.
// It is Do with an operation that opens; when no link is on the way, the
// resolution and the open are one openat2.
func (j *Jail) OpenFile(cwd, path string, flag int, perm fs.FileMode) (*os.File, string, error) {
	fo := &finalOpen{flag: flag, perm: perm}
	if err := j.do(cwd, path, &mode{follow: true, open: fo}, openFinal); err != nil {
		return nil, "", err
	}
	return fo.file, fo.canon, nil
}

// opened is what locateFast returns when it did the final open itself.
var opened = &Location{}

// openFinal is OpenFile's operation: take the file the resolution opened,
// or open the final component in its directory.
func openFinal(l *Location) error {
	fo := l.open
	if l.file != nil {
		fo.file, fo.canon, l.file = l.file, l.Path, nil
		return nil
	}
	if l.hasFd {
		fo.fd, fo.canon, l.hasFd = l.fd, l.Path, false
		return nil
	}
	flag := fo.flag
	if l.Slash && l.Name != "." {
		flag |= oDirectory
	}
	var file *os.File
	var err error
	if fo.raw {
		fo.fd, err = l.Dir.openFd(l.Name, flag, fo.perm)
	} else {
		file, err = l.Dir.OpenFile(l.Name, flag, fo.perm)
	}
	if err != nil {
		if errors.Is(err, enotdir) && flag&oDirectory != 0 {
			// A link swapped in is refused by O_NOFOLLOW|O_DIRECTORY
			// as ENOTDIR; make it ELOOP so that Do follows it (a
			// directory there now was a link a moment ago).
			if fi, lerr := l.Dir.Lstat(l.Name); lerr == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
				return errFinalLink
			}
		}
		return err
	}
	fo.file, fo.canon = file, l.Path
	return nil
}

// OpenDirFd is OpenDir for a directory used only as a base for *at calls
// (fstatat, openat with O_NOFOLLOW on a single name): it returns the bare
// descriptor, which the caller must close (syscall.Close), and no
// *os.File is made for it (one fcntl and allocation less). Its resolution
// and errors are OpenDir's. Where descriptors are not plain numbers
// (Windows) it returns an error matching errors.ErrUnsupported.
func (j *Jail) OpenDirFd(cwd, path string) (fd int, canon string, err error) {
	if !rawFds {
		return -1, "", errors.ErrUnsupported
	}
	fo := &finalOpen{flag: oPath | oDirectory, raw: true, fd: -1}
	if err := j.do(cwd, path, &mode{follow: true, open: fo}, openFinal); err != nil {
		return -1, "", err
	}
	return fo.fd, fo.canon, nil
}

// OpenDir opens the directory path names (links followed inside the
// roots) only to stand in it: on Linux the descriptor is O_PATH, so no
// read permission is needed. It returns the directory and its canonical
// path. A file gives an error matching syscall.ENOTDIR; errors are
// otherwise as for Resolve.
func (j *Jail) OpenDir(cwd, path string) (*os.File, string, error) {
	return j.OpenFile(cwd, path, oPath|oDirectory, 0)
}

// MkdirAll creates the directory path names with perm (before the umask),
// and every missing directory on its way, and returns the canonical paths
// of the directories it created, in order. It is the jail's walk with a
// mkdirat on the descriptor it stands in wherever a directory is missing,
// so ".." after a symbolic link means what the kernel means, and a
// directory is created only inside the roots. With existOK, a directory
// (or a link to one inside the jail) already at path is not an error;
// otherwise it wraps fs.ErrExist, as does a file there in either case.
func (j *Jail) MkdirAll(cwd, path string, perm fs.FileMode, existOK bool) ([]string, error) {
	m := &mode{mkdirs: true}
	err := j.do(cwd, path, m, func(l *Location) error {
		if l.Name == "." {
			return &os.PathError{Op: "mkdir", Path: path, Err: fs.ErrExist}
		}
		if err := l.Dir.Mkdir(l.Name, perm); err != nil {
			return err
		}
		m.created = append(m.created, l.Path)
		return nil
	})
	if err != nil && existOK && errors.Is(err, fs.ErrExist) {
		err = j.Do(cwd, path, true, func(l *Location) error {
			fi, err := l.Dir.Lstat(l.Name)
			if err != nil {
				return err
			}
			if !fi.IsDir() {
				return &os.PathError{Op: "mkdir", Path: path, Err: fmt.Errorf("%w: not a directory", fs.ErrExist)}
			}
			return nil
		})
	}
	return m.created, err
}

// Nearest returns what exists of path: dir is the canonical path of the
// deepest existing directory on its way (links followed inside the
// roots), and missing the name in dir that does not exist, or is a file
// where the path needs a directory; missing is "" when the whole path
// exists (dir is then the path itself if it is a directory, else its
// directory). Errors are Resolve's for the part that exists: a path that
// leaves every root wraps ErrEscape even when it would not exist there.
func (j *Jail) Nearest(cwd, path string) (dir, missing string, err error) {
	err = j.do(cwd, path, &mode{follow: true, nearest: true}, func(l *Location) error {
		if l.missing {
			dir, missing = parentDir(l.Path), l.Name
			return nil
		}
		if l.Name == "." {
			dir = l.Path
			return nil
		}
		fi, err := l.Dir.Lstat(l.Name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			dir, missing = parentDir(l.Path), l.Name
		case err != nil:
			return err
		case fi.IsDir():
			dir = l.Path
		default:
			dir = parentDir(l.Path)
		}
		return nil
	})
	if err != nil {
		return "", "", err
	}
	return dir, missing, nil
}

// join turns (cwd, path) into an absolute path, not cleaned (cleaning
// before symbolic links are known would change what ".." means). Under
// Jailed, cwd itself must resolve inside a root; unalias rewrites a root's
// given form to its canonical one.
func (j *Jail) join(rs *rootSet, cwd, path string, unalias bool) (string, error) {
	if err := checkPath(path); err != nil {
		return "", err
	}
	path = expandHome(path, j.home)
	if !filepath.IsAbs(path) {
		base, err := j.cwd(rs, cwd)
		if err != nil {
			return "", err
		}
		path = base + "/" + path
		if len(path) > MaxPathLen {
			return "", checkPath(path)
		}
	}
	if unalias {
		path = rs.unalias(path)
	}
	return path, nil
}

// cwd returns the canonical absolute working directory for a tool.
func (j *Jail) cwd(rs *rootSet, cwd string) (string, error) {
	ws := ""
	if len(rs.list) > 0 {
		ws = rs.list[0].canon
	}
	if cwd == "" {
		return ws, nil
	}
	if err := checkPath(cwd); err != nil {
		return "", err
	}
	cwd = expandHome(cwd, j.home)
	if !filepath.IsAbs(cwd) {
		cwd = ws + "/" + cwd
	}
	if j.policy == Unrestricted {
		return filepath.Clean(cwd), nil
	}
	cwd = rs.unalias(cwd)
	// The common case: cwd is a root itself.
	if r, ok := rs.byCanon[cwd]; ok {
		return r.canon, nil
	}
	// A working directory must be a directory: open it as one.
	fo := &finalOpen{flag: oPath | oDirectory}
	if err := j.run(rs, rs, cwd, &mode{follow: true, open: fo}, openFinal); err != nil {
		return "", err
	}
	fo.file.Close()
	return fo.canon, nil
}

// Plain returns, without any system call, the absolute path that path
// spells and the canonical root it lies in, when path is plain: relative
// to the workspace root or absolute (a root's given form is rewritten to
// its canonical one), ~-expanded, and below a root with no empty, "." or
// ".." component. ok is false for anything else, and always under the
// Unrestricted policy. Plain says nothing about symbolic links on the way:
// it is for callers that can vouch for the directories by other means (the
// walk's inotify watches) and resolve through the jail otherwise.
func (j *Jail) Plain(path string) (abs, root string, ok bool) {
	if j.policy != Jailed || checkPath(path) != nil {
		return "", "", false
	}
	rs := j.roots.Load()
	path = expandHome(path, j.home)
	if !filepath.IsAbs(path) {
		if len(rs.list) == 0 {
			return "", "", false
		}
		path = joinCanon(rs.list[0].canon, path)
	}
	path = rs.unalias(path)
	r, rel := rs.containing(path)
	if r == nil || !cleanRel(rel) || path != joinCanon(r.canon, rel) {
		return "", "", false
	}
	return path, r.canon, true
}

// joinCanon joins a canonical root and a clean relative path with one
// separator ("/" and "f" give "/f", not "//f").
func joinCanon(root, rel string) string {
	if root == "/" {
		return "/" + rel
	}
	return root + "/" + rel
}

// Contains reports, without any system call, whether the absolute path p
// lies under a root by whole components (a root's given form counts too).
// It says nothing about symbolic links below the root: it is a cheap
// pre-check for callers that then open p through the jail.
func (j *Jail) Contains(p string) bool { return j.RootOf(p) != "" }

// RootOf returns, without any system call, the canonical path of the
// deepest root the absolute path p lies under by whole components (a
// root's given form counts too), or "" when there is none. Like Contains,
// it says nothing about symbolic links below the root.
func (j *Jail) RootOf(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	rs := j.roots.Load()
	if os.PathSeparator != '/' || p != "/" && !cleanRel(p[1:]) {
		p = filepath.Clean(p) // a clean path (the hot callers') is left as is
	}
	r, _ := rs.containing(rs.unalias(p))
	if r == nil {
		return ""
	}
	return r.canon
}
