package jail

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Location is a resolved path: an open directory and the name of the final
// component inside it. It holds the Jail open until Close.
type Location struct {
	// Dir is the open directory that holds the final component.
	Dir *Dir
	// Name is the final component: never empty, never "..", and "." when
	// the path names the directory Dir itself.
	Name string
	// Path is the canonical absolute path of the final component.
	Path string
	// Slash is true when the path was written with a trailing slash, so the
	// caller meant a directory.
	Slash bool

	owned bool // Dir is ours to close (not a root's)
	j     *Jail
}

// Close releases the directory and the Jail. It is safe to call twice.
func (l *Location) Close() {
	if l == nil || l.j == nil {
		return
	}
	if l.owned {
		l.Dir.close()
	}
	l.j.release()
	l.j = nil
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
// links followed (within the roots), ".." applied the way the kernel does.
// The final component need not exist. Under Jailed, a path that leaves every
// root gives an error wrapping ErrEscape, a loop one wrapping
// ErrTooManyLinks, a missing directory on the way fs.ErrNotExist. Under
// Unrestricted it is Abs. The result is for display and permission prompts;
// the host's operations never re-open it.
func (j *Jail) Resolve(cwd, path string) (string, error) {
	if j.policy == Unrestricted {
		// What the operations would touch, when that can be known (links
		// followed, ".." as the kernel means it); else the path made
		// absolute (a missing directory on the way, say).
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
		out = l.Path
		if l.Name == "." {
			return nil
		}
		// The fast path does not look at the final component: a link there
		// must be followed the slow way.
		if _, err := l.Dir.Readlink(l.Name); err == nil {
			return errFinalLink
		} else if !isNotLink(err) {
			return err // a name too long, a permission denied, ...
		}
		if l.Slash {
			if fi, err := l.Dir.Lstat(l.Name); err == nil && !fi.IsDir() {
				return &os.PathError{Op: "resolve", Path: path, Err: enotdir}
			}
		}
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
// When follow is true, a final symbolic link is followed (its target must
// lie inside a root); op reports a final component that is, or has just
// become, a symbolic link by returning an error that matches
// syscall.ELOOP (opening with O_NOFOLLOW does that by itself), and Do then
// resolves again, following it. When follow is false, the final component
// is taken as it is (a link is the link). op's error is returned as is.
func (j *Jail) Do(cwd, path string, follow bool, op func(*Location) error) error {
	rs, err := j.acquire()
	if err != nil {
		return err
	}
	abs, err := j.join(rs, cwd, path, true)
	if err != nil {
		j.release()
		return err
	}
	l, err := j.locateFast(rs, abs)
	if err != nil {
		l, err = j.lookup(rs, abs, follow)
	}
	if err != nil {
		j.release()
		return err
	}
	for try := 0; ; try++ {
		err = runOp(l, op)
		if !follow || try >= MaxSymlinks || !errors.Is(err, eloop) {
			return err
		}
		if rs, err = j.acquire(); err != nil {
			return err
		}
		if l, err = j.lookup(rs, abs, true); err != nil {
			j.release()
			return err
		}
	}
}

// runOp calls op and closes l even if op panics.
func runOp(l *Location, op func(*Location) error) error {
	defer l.Close()
	return op(l)
}

// OpenFile opens the file path names, following symbolic links within the
// roots, with flag (O_NOFOLLOW and O_CLOEXEC are added; O_CREATE is allowed
// and creates inside the jail only). It returns the file and its canonical
// path. Errors are as for Resolve, plus those of open(2) as *fs.PathError.
func (j *Jail) OpenFile(cwd, path string, flag int, perm fs.FileMode) (*os.File, string, error) {
	rs, err := j.acquire()
	if err != nil {
		return nil, "", err
	}
	defer j.release()
	abs, err := j.join(rs, cwd, path, true)
	if err != nil {
		return nil, "", err
	}
	if f, canon, ok := j.openFast(rs, abs, flag, perm); ok {
		return f, canon, nil
	}
	var f *os.File
	var canon string
	for try := 0; ; try++ {
		l, err := j.lookup(rs, abs, true)
		if err != nil {
			return nil, "", err
		}
		if l.Slash && l.Name != "." {
			flag |= oDirectory
		}
		f, err = l.Dir.OpenFile(l.Name, flag, perm)
		canon = l.Path
		if l.owned {
			l.Dir.close()
		}
		if err == nil {
			return f, canon, nil
		}
		if try >= MaxSymlinks || !errors.Is(err, eloop) {
			return nil, "", err
		}
	}
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
	l, err := j.lookup(rs, cwd, true)
	if err != nil {
		return "", err
	}
	canon := l.Path
	if l.owned {
		l.Dir.close()
	}
	return canon, nil
}

// lookup is the slow, general resolution: one component at a time from "/",
// through the roots' descriptors, following symbolic links whose targets
// stay inside the roots. It never opens "..": the parent of a directory is
// the one below it on the stack of directories already opened, or, above a
// root, a path computed from the root's canonical name; above a root only
// other roots and their ancestors may be named.
func (j *Jail) lookup(rs *rootSet, abs string, follow bool) (*Location, error) {
	if j.policy == Unrestricted {
		rs = j.slashSet
	}
	links := 0
	p := abs
	// A trailing "/" or "/." means a directory ("f/." is ENOTDIR for a file).
	slash := strings.HasSuffix(abs, "/") || strings.HasSuffix(abs, "/.")
restart:
	comps := splitPath(p)
	var (
		stack []*Dir // directories opened below the current root
		cur   *Dir   // nil while outside every root
		canon = "/"
	)
	closeAll := func() {
		for _, d := range stack {
			d.close()
		}
		stack = stack[:0]
	}
	if r := rs.byCanon["/"]; r != nil {
		cur = r.dir
	}
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		last := i == len(comps)-1
		if c == ".." {
			canon = parentDir(canon)
			if n := len(stack); n > 0 {
				stack[n-1].close()
				stack = stack[:n-1]
				if n > 1 {
					cur = stack[n-2]
				} else {
					cur = rs.byCanon[canon].dir
				}
			} else if r := rs.byCanon[canon]; r != nil {
				cur = r.dir
			} else {
				cur = nil
			}
			continue
		}
		next := joinName(canon, c)
		if cur == nil {
			if r := rs.byCanon[next]; r != nil {
				cur, canon = r.dir, next
				continue
			}
			if !last && rs.ancestors[next] {
				canon = next
				continue
			}
			return nil, &EscapeError{Path: abs, Roots: rs.canonRoots()}
		}
		if last {
			// A trailing slash means a directory: links are followed.
			if follow || slash {
				target, err := cur.Readlink(c)
				if err == nil {
					if links++; links > MaxSymlinks {
						closeAll()
						return nil, &os.PathError{Op: "resolve", Path: abs, Err: ErrTooManyLinks}
					}
					p = linkTarget(rs, canon, target, nil)
					closeAll()
					goto restart
				}
				if !isNotLink(err) {
					closeAll()
					return nil, err
				}
			}
			return j.location(stack, cur, c, next, slash), nil
		}
		nd, err := cur.openDir(c)
		if err == nil {
			stack = append(stack, nd)
			cur, canon = nd, next
			continue
		}
		if isMaybeLink(err) {
			if target, lerr := cur.Readlink(c); lerr == nil {
				if links++; links > MaxSymlinks {
					closeAll()
					return nil, &os.PathError{Op: "resolve", Path: abs, Err: ErrTooManyLinks}
				}
				p = linkTarget(rs, canon, target, comps[i+1:])
				closeAll()
				goto restart
			}
		}
		closeAll()
		return nil, &os.PathError{Op: "openat", Path: next, Err: err}
	}
	if cur == nil {
		return nil, &EscapeError{Path: abs, Roots: rs.canonRoots()}
	}
	return j.location(stack, cur, ".", canon, slash), nil
}

// location builds the result of lookup: cur stays open (if it is ours),
// every other directory on the stack is closed.
func (j *Jail) location(stack []*Dir, cur *Dir, name, canon string, slash bool) *Location {
	owned := false
	for _, d := range stack {
		if d == cur {
			owned = true
			continue
		}
		d.close()
	}
	return &Location{Dir: cur, Name: name, Path: canon, Slash: slash, owned: owned, j: j}
}

// linkTarget is the absolute path to resolve after meeting a symbolic link
// in directory dir whose target is target, with rest still to walk.
func linkTarget(rs *rootSet, dir, target string, rest []string) string {
	var p string
	if filepath.IsAbs(target) {
		p = rs.unalias(target)
	} else {
		p = dir + "/" + target
	}
	if len(rest) > 0 {
		p += "/" + strings.Join(rest, "/")
	}
	return p
}

// splitPath splits an absolute path into its components, dropping empty
// ones and ".".
func splitPath(p string) []string {
	out := make([]string, 0, strings.Count(p, "/"))
	for p != "" {
		i := strings.IndexByte(p, '/')
		var c string
		if i < 0 {
			c, p = p, ""
		} else {
			c, p = p[:i], p[i+1:]
		}
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func joinName(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func parentDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// cleanRel reports whether rel is a plain relative path: no empty, "." or
// ".." component, no leading or trailing slash.
func cleanRel(rel string) bool {
	if rel == "" || rel[0] == '/' || rel[len(rel)-1] == '/' {
		return false
	}
	start := 0
	for i := 0; i <= len(rel); i++ {
		if i == len(rel) || rel[i] == '/' {
			c := rel[start:i]
			if c == "" || c == "." || c == ".." {
				return false
			}
			start = i + 1
		}
	}
	return true
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
		path = rs.list[0].canon + "/" + path
	}
	path = rs.unalias(path)
	r, rel := rs.containing(path)
	if r == nil || !cleanRel(rel) || path != r.canon+"/"+rel && !(r.canon == "/" && path == "/"+rel) {
		return "", "", false
	}
	return path, r.canon, true
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
	r, _ := rs.containing(rs.unalias(filepath.Clean(p)))
	if r == nil {
		return ""
	}
	return r.canon
}

// OpenDir opens the directory path names (links followed inside the
// roots) only to stand in it: on Linux the descriptor is O_PATH, so no
// read permission is needed. It returns the directory and its canonical
// path. A file gives an error matching syscall.ENOTDIR; errors are
// otherwise as for Resolve.
func (j *Jail) OpenDir(cwd, path string) (*os.File, string, error) {
	var dir *os.File
	var canon string
	err := j.Do(cwd, path, true, func(l *Location) error {
		f, err := l.Dir.OpenFile(l.Name, oPath|oDirectory, 0)
		if err != nil {
			if errors.Is(err, enotdir) {
				// A final link is refused by O_NOFOLLOW as ENOTDIR or
				// ELOOP; make it ELOOP so that Do follows it.
				if _, lerr := l.Dir.Readlink(l.Name); lerr == nil {
					return errFinalLink
				}
			}
			return err
		}
		dir, canon = f, l.Path
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return dir, canon, nil
}
