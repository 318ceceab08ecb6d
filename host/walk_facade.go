package host

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/agenthost/agenthost/host/jail"
	"github.com/agenthost/agenthost/host/walk"
)

// WalkOptions shape a Walk; the zero value walks everything, applies the
// ignore rules and skips dot-files. It is [walk.Options], where each field
// is documented: go doc github.com/agenthost/agenthost/host/walk Options.
type WalkOptions = walk.Options

// WalkEntry is one file, symbolic link or directory a Walk found. Its
// Path is the walked directory's canonical absolute path (what
// ResolveInJail returns for it), a separator and the names below it, so it
// is absolute; Depth is 1 for the children of the walked directory. It is
// [walk.Entry], where each field is documented: go doc
// github.com/agenthost/agenthost/host/walk Entry.
type WalkEntry = walk.Entry

// PartialError is what Walk returns, with every entry it could read, when
// some directories could not be read or an index could not be used. It is
// [walk.PartialError], documented: go doc
// github.com/agenthost/agenthost/host/walk PartialError.
type PartialError = walk.PartialError

// CheckIgnoreOptions shape CheckIgnore; the zero value consults the index,
// as git check-ignore does. It is [walk.CheckOptions], where each field is
// documented: go doc github.com/agenthost/agenthost/host/walk CheckOptions.
type CheckIgnoreOptions = walk.CheckOptions

// IgnoreMatch is the answer for one path: ignored or not, tracked, and the
// rule that decided. It is [walk.Match], where each field is documented:
// go doc github.com/agenthost/agenthost/host/walk Match.
type IgnoreMatch = walk.Match

// IgnoreRule is one line of an ignore file. It is [walk.Rule], where each
// field is documented: go doc github.com/agenthost/agenthost/host/walk Rule.
type IgnoreRule = walk.Rule

// IgnoreResult is CheckIgnore's answer for one path: the match, or the
// error that kept the path from being judged.
type IgnoreResult struct {
	IgnoreMatch
	// Path is the absolute path judged ("" when Err is set).
	Path string
	// Err is nil, a resolution error (ErrEscape, ErrInvalidPath), one
	// wrapping walk.ErrIndexUnsupported or walk.ErrIndexCorrupt (the
	// match is then the one without the index), or one wrapping
	// walk.ErrIncludeDepth or walk.ErrConfigTooLarge: the repository's
	// git config is one git refuses (an include cycle, say), and the
	// path has no answer, as git check-ignore has none.
	Err error
}

// walkFacadeState is the Host's share of package walk: the cache of
// compiled ignore rules, repositories and directory contexts that makes
// IsPathIgnored cheap after the first call. Its zero value is ready.
type walkFacadeState struct {
	once    sync.Once // sets cache.Jail and cache.NoWatch
	cache   walk.Cache
	oneShot bool
}

// OneShot tells the Host that it serves one short command (a CLI call):
// the walk cache then sets up no inotify watches, which cost more than a
// process that exits right after can save, and re-checks ignore files by
// stat (once per CheckIgnore batch). A long-lived Host (an MCP server, an
// embedding agent) should not call it. It takes effect only before the
// first Walk, IsPathIgnored or CheckIgnore.
func (h *Host) OneShot() { h.walk.oneShot = true }

// walkState returns the Host's walk cache. Under the Jailed policy the
// cache reads through the Host's jail (set once, before first use): what
// IsPathIgnored and Walk answer then depends on no file outside the roots
// but those the user's own git configuration names, so a model that can
// write .git/config cannot make the answer reveal lines of an outside file
// (see walk.Jail).
func (h *Host) walkState() *walk.Cache {
	h.walk.once.Do(func() {
		if h.PathPolicy() == Jailed {
			h.walk.cache.Jail = walkJail{h.jail}
		}
		h.walk.cache.NoWatch = h.walk.oneShot
	})
	return &h.walk.cache
}

// walkJail is the Host's jail as package walk needs it.
type walkJail struct{ j *jail.Jail }

// Contains is jail.Jail.Contains: lexical, no system call.
func (w walkJail) Contains(path string) bool { return w.j.Contains(path) }

// EnterRoots is jail.Jail.EnterRoots: where a path outside the roots
// enters them through its symbolic links.
func (w walkJail) EnterRoots(path string, follow bool) (string, bool) {
	return w.j.EnterRoots(path, follow)
}

// Open opens path read-only through the jail. O_NONBLOCK keeps a FIFO from
// blocking the open; walk reads only regular files.
func (w walkJail) Open(path string) (*os.File, error) {
	f, _, err := w.j.OpenFile("", path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	return f, err
}

// OpenDirFd opens the directory path through the jail as a bare
// descriptor (walk.DirFdOpener): one openat2 where no link is on the way.
func (w walkJail) OpenDirFd(path string) (int, error) {
	fd, _, err := w.j.OpenDirFd("", path)
	return fd, err
}

// Walk lists the tree under path (resolved like ResolveInJail, symbolic
// links on the way followed inside the roots) the way git sees it: entries
// ignored by .gitignore files, info/exclude or the global excludes file are
// left out and ignored directories are not entered, ".git" is never
// listed, dot-files only with opts.Hidden, and no symbolic link below path
// is followed (a link is listed as a file). A nested repository is entered
// with its own rules only. The entries come back sorted by Path.
//
// Errors: those of ResolveInJail (ErrEscape, fs.ErrNotExist, ...); ctx's;
// and a *walk.PartialError, returned together with every entry that could
// be read, when some directories could not be (errors.Is sees the
// per-directory causes, such as fs.ErrPermission) or a repository's git
// config is one git refuses (walk.ErrIncludeDepth,
// walk.ErrConfigTooLarge: that repository is listed by the config read
// before the fault). When path is a file,
// the result is that one file at Depth 0.
func (h *Host) Walk(ctx context.Context, cwd, path string, opts WalkOptions) ([]WalkEntry, error) {
	var mu sync.Mutex
	var out []WalkEntry
	werr := h.WalkFunc(ctx, cwd, path, opts, func(e walk.Entry) error {
		mu.Lock()
		out = append(out, e)
		mu.Unlock()
		return nil
	})
	slices.SortFunc(out, func(a, b WalkEntry) int { return strings.Compare(a.Path, b.Path) })
	var partial *walk.PartialError
	if werr != nil && !errors.As(werr, &partial) {
		return nil, werr
	}
	return out, werr
}

// WalkFunc is Walk without the collecting and sorting: it resolves path
// like Walk and calls fn for each entry as it is found, from several
// goroutines at once (in no particular order), or with opts.MaxEntries,
// After or Sorted from one goroutine in path order (walk.Options), stopping
// at fn's first error, which it returns. Every entry's Path
// starts with what ResolveInJail(ctx, cwd, path) returns. Errors are
// Walk's.
func (h *Host) WalkFunc(ctx context.Context, cwd, path string, opts WalkOptions, fn func(WalkEntry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if h.PathPolicy() == Unrestricted {
		dir, err := h.ResolveInJail(ctx, cwd, path)
		if err != nil {
			return err
		}
		return h.walkState().Walk(ctx, dir, opts, fn)
	}
	// Open the starting directory through the jail and walk from that
	// descriptor: the path string is never opened again, so a directory
	// swapped for a link (or a root moved away) cannot redirect the walk.
	var dir *os.File
	var root string
	var file *WalkEntry
	err := h.jail.Do(cwd, path, true, func(l *jail.Location) error {
		f, err := l.Dir.OpenFile(l.Name, os.O_RDONLY|jail.O_DIRECTORY|syscall.O_NONBLOCK, 0)
		if err == nil {
			dir, root = f, l.Path
			return nil
		}
		if errors.Is(err, syscall.ENOTDIR) {
			fi, lerr := l.Dir.Lstat(l.Name)
			if lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP} // Do follows it
			}
			if lerr == nil {
				file = &WalkEntry{Path: l.Path}
				return nil
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	if file != nil {
		return fn(*file)
	}
	defer dir.Close()
	return h.walkState().WalkDir(ctx, dir, root, opts, fn)
}

// IsPathIgnored reports whether git would ignore path, consistently with
// what Walk from the root that holds it leaves out: nested .gitignore
// files, info/exclude and the global excludes file are consulted, and a
// path below an ignored directory is ignored. The path is resolved like
// ResolveInJail except that a final symbolic link is judged as itself (as
// git does); it need not exist, and a path that does not exist is judged
// as a file unless written with a trailing slash. An edit to an ignore file
// is seen by the next call on Linux (inotify), and within
// walk.RecheckInterval elsewhere or where inotify cannot watch.
//
// Once warm, a plain path (relative to the workspace root or absolute, no
// "." or ".." component, cwd "") is answered without a system call to
// resolve it when the walk cache's inotify watches vouch that every
// directory on the way is a real directory (see
// walk.Cache.IsIgnoredIfReal); any doubt resolves through the jail.
//
// Under the Jailed policy the answer reveals nothing about files outside
// the roots that the user's own git setup does not name: ignore and config
// files inside the roots are read through the jail (a link out of the
// roots counts as no file), and a core.excludesFile, include.path or
// includeIf path that a config file inside the roots names outside them
// is taken as a file that does not exist. git would read it; this is the
// one place the answer departs from git on purpose (ADR 0002). Global and
// system config, the global excludes file and a linked worktree's git
// directory are the user's and are read wherever they are.
//
// A path inside the jail but in no git repository gives false and no
// error. Errors: those of resolution (ErrEscape for a path outside every
// root, ErrInvalidPath) and ctx's.
func (h *Host) IsPathIgnored(ctx context.Context, cwd, path string) (bool, error) {
	// Warm fast path: a plain path whose directories the walk cache's
	// inotify watches vouch for needs no resolution (it names what it
	// spells); anything else is resolved through the jail below.
	if cwd == "" {
		plain := trimSlashes(path)
		if top, rel, ok := h.jail.PlainRel(plain); ok {
			if ignored, ok, err := h.walkState().IsIgnoredIfRealRel(ctx, top, rel, len(plain) != len(path)); ok || err != nil {
				return ignored, err
			}
		}
	}
	abs, err := h.resolveNoFollow(ctx, cwd, path)
	if err != nil {
		return false, err
	}
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(os.PathSeparator)) {
		abs += string(os.PathSeparator)
	}
	return h.walkState().IsIgnored(ctx, h.jail.RootOf(abs), abs)
}

// CheckIgnore is IsPathIgnored for many paths at once, with the reasons
// git check-ignore -v gives: each path is resolved as IsPathIgnored
// resolves it (the directory holding a path's last component is resolved
// through the jail once per batch, for all the paths written inside it),
// and the walk cache brings its sources up to date once for the whole
// batch (one freshness check). The results come in the order of paths. An
// error that concerns the batch as a whole (ctx's) is returned as the
// second value, with the results so far.
func (h *Host) CheckIgnore(ctx context.Context, cwd string, paths []string, opts CheckIgnoreOptions) ([]IgnoreResult, error) {
	res := make([]IgnoreResult, len(paths))
	bt := h.walkState().NewBatch(opts)
	// The answered paths' strings, one allocation for many: buffers of
	// about what the batch needs, up to 64 KiB (a batch of one path, as
	// check-ignore --stdin makes for a pipe, takes a few hundred bytes).
	// One buffer sized for the whole batch up front measured slower in
	// ignorebench (most likely its zeroing, all at once, pushes the memo
	// out of the cache). An absolute path that is already plain is its
	// own Path.
	paths8 := pathArena{chunk: min(max(len(paths)*64, 256), 64<<10)}
	sh := &sharedParents{sizeHint: min(dirRuns(paths), len(paths)/2, 1<<14), arena: &paths8}
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return res[:i], err
		}
		if cwd == "" {
			plain := trimSlashes(p)
			if top, rel, ok := h.jail.PlainRel(plain); ok {
				if m, ok, err := bt.CheckIfRealRel(ctx, top, rel, len(plain) != len(p)); ok || err != nil {
					res[i].IgnoreMatch = m
					if isJoined(plain, top, rel) {
						res[i].Path = plain // the caller's own string: nothing to build
					} else {
						res[i].Path = paths8.join(top, rel)
					}
					if err != nil {
						res[i].Err = err
					}
					continue
				}
			}
		}
		abs, par, shared, fd, err := h.resolveShared(ctx, cwd, p, sh)
		if err != nil {
			if long, ok := h.resolveLong(ctx, cwd, p, err); ok && opts.Pathspec {
				// Longer than the jail takes, read as git check-ignore
				// reads its arguments: answered as git answers it.
				res[i].Path = long
				if strings.HasSuffix(p, "/") {
					long += "/"
				}
				res[i].IgnoreMatch, res[i].Err = bt.Check(ctx, h.jail.RootOf(res[i].Path), long)
				continue
			}
			res[i].Err = err
			continue
		}
		res[i].Path = abs
		if strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(os.PathSeparator)) {
			abs += string(os.PathSeparator)
		}
		var m IgnoreMatch
		if shared && !par.rootBelow {
			// The root holding the parent holds the path (no root is
			// the path itself), and the parent was just opened as a
			// directory: the cache need not look whether it exists, and
			// looks at its .git and .gitignore relative to fd.
			m, err = bt.CheckInDirFd(ctx, par.top, abs, par.dir, fd)
		} else {
			m, err = bt.Check(ctx, h.jail.RootOf(res[i].Path), abs)
		}
		if fd >= 0 {
			jail.CloseFd(fd)
		}
		if cerr := ctx.Err(); cerr != nil {
			return res[:i], cerr
		}
		res[i].IgnoreMatch, res[i].Err = m, err
	}
	return res, nil
}

// dirRuns counts the runs of consecutive paths written with the same
// directory part, an upper bound on the directories resolveShared will
// remember when the paths come sorted (a walk's order: a few hundred
// directories for ten thousand paths), so that its map is made for
// about them rather than for half the paths. One scan, no allocation.
func dirRuns(paths []string) int {
	n, prev := 0, "\x00"
	for _, p := range paths {
		d := p[:max(strings.LastIndexByte(p, '/'), 0)]
		if d != prev {
			n++
			prev = d
		}
	}
	return n
}

// trimSlashes is strings.TrimRight(p, "/") written out for the warm
// paths (no call, no cutset): p without its trailing slashes, a prefix of
// p, so it differs from p exactly when it is shorter.
func trimSlashes(p string) string {
	for len(p) > 0 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	return p
}

// isJoined reports whether p is exactly top+"/"+rel ("/"+rel for the
// root), as joinRoot would build it: then p itself can be the answered
// Path (a plain absolute path under a root's canonical form).
func isJoined(p, top, rel string) bool {
	k := len(top)
	if top != "/" {
		k++
	}
	return len(p) == k+len(rel) && p[0] == '/' && p[k-1] == '/' && p[:len(top)] == top && p[k:] == rel
}

// pathArena builds many path strings in a few large buffers: each string
// is a stretch of a buffer that is never written again (a full buffer is
// left to the strings that use it and a new one started). The buffer's
// slice header is written only when a buffer is started, so joining
// stores no pointer (no write barrier while the GC runs).
type pathArena struct {
	buf   []byte // the current buffer, written up to off
	off   int
	chunk int // the size of a new buffer (64 KiB when 0)
}

// join returns root+"/"+rel (as joinRoot does).
func (a *pathArena) join(root, rel string) string {
	n := len(root) + 1 + len(rel)
	if root == "/" {
		n--
	}
	if len(a.buf)-a.off < n {
		chunk := a.chunk
		if chunk == 0 {
			chunk = 64 << 10
		}
		a.buf, a.off = make([]byte, max(n, chunk)), 0
	}
	b := a.buf[a.off : a.off+n : a.off+n]
	k := copy(b, root)
	if root != "/" {
		b[k] = '/'
		k++
	}
	copy(b[k:], rel)
	a.off += n
	return unsafe.String(&b[0], n)
}

// sharedParents is what resolveShared remembers over one batch.
type sharedParents struct {
	byDir map[string]sharedParent // by the directory part as written; made at first use
	// sizeHint is byDir's size when made (a warm batch, answered
	// without resolving, makes none).
	sizeHint int
	roots    []string   // the roots when the batch first resolved a parent
	arena    *pathArena // where the paths are joined
}

// sharedParent is one resolved directory part: dir is its canonical
// path ("" when it did not resolve to a directory), top the root holding
// it, and rootBelow tells that a root lies directly in it (a path there
// may be that root, which RootOf must then name).
type sharedParent struct {
	dir, top  string
	rootBelow bool
}

// resolveShared is resolveNoFollow(ctx, cwd, path) for one path of a
// batch: the directory part of path as written (everything before the
// last component) is resolved through the jail once, following links, and
// remembered in sh for the paths after it; the last component, a plain
// name, is appended unresolved, as resolveNoFollow leaves it (a final link
// is judged as itself), and par is the directory part resolved (shared
// true). When this call is the one that resolved it, fd is a descriptor
// on that directory (jail.OpenDirFd), for the caller to hand to the walk
// cache and close; otherwise fd is -1. Whenever the shortcut does not apply (no directory
// part, a last component "." or "..", a NUL byte, a name or path over the
// limits, a directory part that does not resolve to a directory, a
// non-'/' system, the Unrestricted policy) the path is resolved on its
// own, shared is false and fd -1.
func (h *Host) resolveShared(ctx context.Context, cwd, path string, sh *sharedParents) (abs string, par sharedParent, shared bool, fd int, err error) {
	fd = -1
	if os.PathSeparator != '/' || h.PathPolicy() == Unrestricted {
		abs, err = h.resolveNoFollow(ctx, cwd, path)
		return abs, sharedParent{}, false, -1, err
	}
	trimmed := strings.TrimRight(path, "/")
	i := strings.LastIndexByte(trimmed, '/')
	name := trimmed[i+1:]
	if i <= 0 || name == "." || name == ".." || len(name) > maxNameLen || len(path) > jail.MaxPathLen || strings.IndexByte(path, 0) >= 0 {
		// No directory part ("name", "/name", "~"): nothing to share.
		abs, err = h.resolveNoFollow(ctx, cwd, path)
		return abs, sharedParent{}, false, -1, err
	}
	dir := trimmed[:i]
	if sh.byDir == nil {
		sh.byDir = make(map[string]sharedParent, sh.sizeHint)
		sh.roots = h.jail.Roots()
	}
	sp, seen := sh.byDir[dir]
	if !seen {
		if err := ctx.Err(); err != nil {
			return "", sharedParent{}, false, -1, err
		}
		// Opened as a directory (links followed inside the roots): only a
		// directory resolves, so "file/x" fails as it does alone. With no
		// link on the way this is one openat2, and the descriptor is kept
		// bare (no os.File) for the walk cache to look inside.
		var canon string
		var err error
		fd, canon, err = h.jail.OpenDirFd(cwd, dir)
		if errors.Is(err, errors.ErrUnsupported) {
			var f *os.File
			if f, canon, err = h.jail.OpenFile(cwd, dir, os.O_RDONLY|jail.O_DIRECTORY, 0); err == nil {
				f.Close()
			}
		}
		if err == nil {
			sp = sharedParent{dir: canon, top: h.jail.RootOf(canon)}
			for _, r := range sh.roots {
				if r != canon && parentOf(r) == canon {
					sp.rootBelow = true
				}
			}
		}
		sh.byDir[dir] = sp
	}
	if sp.dir == "" || len(sp.dir)+1+len(name) > jail.MaxPathLen {
		if fd >= 0 {
			jail.CloseFd(fd)
		}
		abs, err = h.resolveNoFollow(ctx, cwd, path)
		return abs, sharedParent{}, false, -1, err
	}
	return sh.arena.join(sp.dir, name), sp, true, fd, nil
}

// parentOf is filepath.Dir of a clean absolute path.
func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// maxNameLen is the longest name one component may have (NAME_MAX): a
// longer one is left to the jail, which reports it as it would alone.
const maxNameLen = 255

// resolveNoFollow resolves path like ResolveInJail but leaves a final
// symbolic link unfollowed. Missing directories on the way are allowed (git
// judges paths that do not exist): the longest existing prefix is resolved
// and the rest, which cannot hold a link, is appended.
func (h *Host) resolveNoFollow(ctx context.Context, cwd, path string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if h.PathPolicy() == Unrestricted {
		return h.jail.Abs(cwd, path)
	}
	resolve := func(p string) (string, error) {
		var out string
		err := h.jail.Do(cwd, p, false, func(l *jail.Location) error {
			out = l.Path
			return nil
		})
		return out, err
	}
	out, err := resolve(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return out, err
	}
	// Climb to a directory that exists; refuse ".." in the missing part,
	// whose meaning would depend on directories that are not there.
	p := filepath.Clean(path)
	var rest []string
	for errors.Is(err, fs.ErrNotExist) {
		dir, base := filepath.Dir(p), filepath.Base(p)
		if dir == p || base == ".." {
			return "", err
		}
		rest = append(rest, base)
		p = dir
		out, err = resolve(p)
	}
	if err != nil {
		return "", err
	}
	for i := len(rest) - 1; i >= 0; i-- {
		out = filepath.Join(out, rest[i])
	}
	return out, nil
}

// resolveLong is, for a path that the jail refused as longer than
// jail.MaxPathLen (err), the path to judge in its place: its longest
// leading part (cut at a slash) that the jail takes, resolved as any
// path is (links followed inside the roots, an escape refused), and the
// rest joined to it as names, never opened. git answers such a path (a
// check-ignore question is about a name; git's own reads of the
// .gitignore files below PATH_MAX fail and it warns), so check-ignore
// does too: the walk cache reads each .gitignore on its way through the
// jail, which takes none past its limit, as git reads none past PATH_MAX.
// false (keep err) for any other refusal, a NUL byte, or a ".." in the
// rest, whose meaning would depend on links that are not resolved.
func (h *Host) resolveLong(ctx context.Context, cwd, p string, err error) (string, bool) {
	if !errors.Is(err, ErrInvalidPath) || len(p) <= jail.MaxPathLen/2 || strings.IndexByte(p, 0) >= 0 || os.PathSeparator != '/' {
		return "", false
	}
	trimmed := strings.TrimRight(p, "/")
	limit := jail.MaxPathLen
	var out, rest string
	for {
		i := strings.LastIndexByte(trimmed[:min(len(trimmed), limit+1)], '/')
		if i == 0 {
			return "", false // "/" and a name past the limit: no root is "/"
		}
		lead := "." // one name past the limit: in cwd
		if i > 0 {
			lead = trimmed[:i]
		}
		var rerr error
		if out, rerr = h.resolveNoFollow(ctx, cwd, lead); rerr == nil {
			rest = trimmed[i+1:]
			break
		}
		if i < 0 {
			return "", false
		}
		if !errors.Is(rerr, ErrInvalidPath) {
			return "", false
		}
		limit = i - 1 // with cwd before it, still too long: cut shorter
	}
	// The rest is names, taken as git takes them: "." and empty ones
	// dropped, ".." undoing the name before it (never the resolved part).
	b := make([]byte, 0, len(out)+1+len(rest))
	b = append(b, out...)
	for rest != "" {
		name, more, _ := strings.Cut(rest, "/")
		rest = more
		switch name {
		case "", ".":
			continue
		case "..":
			j := bytes.LastIndexByte(b, '/')
			if len(b) <= len(out) || j < len(out) {
				return "", false
			}
			b = b[:j]
			continue
		}
		if len(b) == 0 || b[len(b)-1] != '/' {
			b = append(b, '/')
		}
		b = append(b, name...)
	}
	return string(b), true
}
