package jail

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxHeldDirs is the most directory descriptors one resolution holds open
// at once, however deep the path (the roots' descriptors, which the Jail
// holds anyway, are not counted). The walk keeps the last MaxHeldDirs
// directories it went through, for ".."; a ".." past them re-derives the
// parent by walking again from "/" through the roots' descriptors (never
// by opening a path string). 8 covers the ".." chains real paths hold,
// and keeps 64 concurrent resolutions of any depth at 512 descriptors, half
// the usual default soft limit of 1024 (ulimit -n).
const MaxHeldDirs = 8

// mode says what a resolution is for.
type mode struct {
	// follow: a final symbolic link is followed (its target must lie
	// inside a root); the operation never sees a final link.
	follow bool
	// open, when set, lets the resolution open the final component itself:
	// with one openat2 (RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) from the
	// deepest directory it holds when the rest of the path is plain.
	open *finalOpen
	// mkdirs: a directory missing on the way is created (mkdirat on the
	// descriptor the walk stands in) and the walk goes on into it.
	mkdirs  bool
	created []string // the canonical paths mkdirs created, in order
	// nearest: a directory missing on the way (or a file where a
	// directory should be) ends the walk there, with Location.missing set.
	nearest bool
	// noLinks: a symbolic link anywhere on the way, the final component
	// included, is an error wrapping ErrSymlink (DoNoLinks).
	noLinks bool
	// triedFast: the caller's single openat2 for the whole path failed;
	// the walk's first pass does not repeat it.
	triedFast bool
}

// finalOpen is the open(2) an OpenFile resolution ends with, and its
// result.
type finalOpen struct {
	flag  int
	perm  fs.FileMode
	file  *os.File // the file opened
	canon string   // its canonical path
	// raw: the descriptor is kept bare, in fd, with no *os.File made for
	// it (OpenDirFd: a directory used only as a base for *at calls).
	raw bool
	fd  int
}

// walker is the state of one resolution: where it stands and the ring of
// the last directories it opened.
type walker struct {
	set   *rootSet // the roots walked through ("/" alone under Unrestricted or for AddRoot)
	root  *root    // the root the walk is in; nil while above every root
	below int      // components walked below root
	// buf is the canonical absolute path of where the walk stands, built
	// in place (map lookups on string(buf) do not allocate).
	buf []byte
	// ring[:n] are the directories at depths below-n+1 .. below under
	// root, oldest first; ring[n-1] is the current directory when below>0.
	ring [MaxHeldDirs]*Dir
	n    int

	hints *linkHints
}

// reset puts the walk back at "/".
func (w *walker) reset() {
	w.closeRing()
	w.root, w.below, w.buf = w.set.byCanon["/"], 0, append(w.buf[:0], '/')
}

// add appends a name to buf and returns buf's length before.
func (w *walker) add(name string) int {
	mark := len(w.buf)
	if mark > 1 {
		w.buf = append(w.buf, '/')
	}
	w.buf = append(w.buf, name...)
	return mark
}

// back removes buf's last name.
func (w *walker) back() {
	i := bytes.LastIndexByte(w.buf, '/')
	if i <= 0 {
		i = 1
	}
	w.buf = w.buf[:i]
}

func (w *walker) canon() string { return string(w.buf) }

func (w *walker) closeRing() {
	for i := range w.n {
		w.ring[i].close()
		w.ring[i] = nil
	}
	w.n = 0
}

// cur is the directory the walk stands in, nil above every root.
func (w *walker) cur() *Dir {
	switch {
	case w.root == nil:
		return nil
	case w.below == 0:
		return w.root.dir
	}
	return w.ring[w.n-1]
}

// room makes space for one more descriptor by closing the oldest, so that
// the walk never holds more than MaxHeldDirs.
func (w *walker) room() {
	if w.n < MaxHeldDirs {
		return
	}
	w.ring[0].close()
	copy(w.ring[:], w.ring[1:])
	w.n--
	w.ring[w.n] = nil
}

func (w *walker) push(d *Dir, name string) {
	w.ring[w.n] = d
	w.n++
	w.below++
	w.add(name)
}

// up applies "..". It reports true when the parent is not held and must be
// re-derived by walking to w.canon() again.
func (w *walker) up() (rewalk bool) {
	if w.root != nil && w.below > 0 {
		w.n--
		w.ring[w.n].close()
		w.ring[w.n] = nil
		w.below--
		w.back()
		return w.below > 0 && w.n == 0
	}
	w.back()
	if r := w.set.byCanon[string(w.buf)]; r != nil {
		w.root, w.below = r, 0
		return false
	}
	if r, _ := w.set.containing(w.canon()); r != nil {
		// Out of a nested root into the root around it.
		return true
	}
	w.root = nil
	return false
}

// take returns the current directory for a Location, which then owns it
// unless it is a root's.
func (w *walker) take() (d *Dir, owned bool) {
	if w.below == 0 {
		return w.root.dir, false
	}
	w.n--
	d = w.ring[w.n]
	w.ring[w.n] = nil
	return d, true
}

func (w *walker) location(name, canon string, slash bool) *Location {
	d, owned := w.take()
	return &Location{Dir: d, Name: name, Path: canon, Slash: slash, owned: owned}
}

// walk is the jail's resolver, the general case: one component at a time
// from "/", through the roots' descriptors, each directory opened with
// O_NOFOLLOW from the one before. A symbolic link is read with readlinkat
// and the walk restarts from "/" on its target followed by the rest of the
// path, so what the link means is judged by the same rules; after a
// restart the plain rest of the path (no ".." left) goes through one
// openat2 where the kernel has it. ".." is never opened: it is the
// directory walked before, kept in a ring of MaxHeldDirs, or, past the
// ring, re-derived by walking to the parent's canonical path again. Above
// a root, only other roots and their ancestors may be named, and nothing
// there is opened. The canonical path is built from the names the walk
// went through, so it has no "//", ".", ".." or trailing "/".
func (j *Jail) walk(rs, set *rootSet, abs string, m *mode) (*Location, error) {
	w := walker{set: set, buf: make([]byte, 0, len(abs)+64), hints: &j.hints}
	defer w.closeRing()
	links, rewalks := 0, 0
	p := abs
	// A trailing "/" or "/." means a directory ("f/." is ENOTDIR for a file).
	slash := strings.HasSuffix(abs, "/") || strings.HasSuffix(abs, "/.")
	// An openat2 jump is tried at most once per run of plain names (a
	// refused one is not retried inside the run); the first run of the
	// first pass is the one the caller's fast path just tried, if it did.
	skipFirst := m.triedFast
	tooMany := func() error { return &os.PathError{Op: "resolve", Path: abs, Err: ErrTooManyLinks} }
	comps := make([]string, 0, strings.Count(abs, "/")+8)
restart:
	comps = appendSplit(comps[:0], p)
	w.reset()
	jumpFrom := 0 // no jump starts before this index
	for i := 0; i < len(comps); i++ {
		c := comps[i]
		if c == ".." {
			if w.up() {
				// Bounded: every re-walk consumes a "..", and the path it
				// restarts on has no ".." but the ones still to come.
				if rewalks++; rewalks > MaxPathLen {
					return nil, tooMany()
				}
				p = w.canon() + "/" + strings.Join(comps[i+1:], "/")
				skipFirst = false
				goto restart
			}
			continue
		}
		last := i == len(comps)-1
		cur := w.cur()
		mark := w.add(c)
		if cur == nil {
			if r := set.byCanon[string(w.buf)]; r != nil {
				w.root, w.below = r, 0
				continue
			}
			if !last && set.ancestors[string(w.buf)] {
				continue
			}
			return nil, &EscapeError{Path: abs, Roots: rs.canonRoots()}
		}
		if r := set.byCanon[string(w.buf)]; r != nil {
			// A root nested in this one is its descriptor, whatever the
			// name now holds (as on the fast path, which starts from the
			// deepest root).
			w.closeRing()
			w.root, w.below = r, 0
			continue
		}
		w.buf = w.buf[:mark]
		next := func() string { return joinName(w.canon(), c) }
		if (!last || m.follow || slash || m.noLinks) && w.hinted(c) {
			// It was a link: read it first.
			if target, err := cur.Readlink(c); err == nil {
				if m.noLinks {
					return nil, linkRefused(next())
				}
				if links++; links > MaxSymlinks {
					return nil, tooMany()
				}
				p = linkTarget(set, w.buf, target, comps[i+1:])
				skipFirst = false
				goto restart
			}
			w.hints.drop(next())
		}
		if i >= jumpFrom {
			e, end := w.runEnd(comps, i)
			jumpFrom = e + 1
			if e == i {
				// a root's name or a hinted link: dealt with above
			} else if skipFirst {
				skipFirst = false
			} else if l, n := w.jump(comps[i:e], end, m, slash); l != nil {
				return l, nil
			} else if n > 0 {
				i += n - 1 // n directories walked at once
				continue
			}
		}
		if last {
			// A trailing slash means a directory: links are followed.
			if m.follow || slash || m.noLinks {
				target, err := cur.Readlink(c)
				if err == nil {
					if m.noLinks {
						return nil, linkRefused(next())
					}
					if links++; links > MaxSymlinks {
						return nil, tooMany()
					}
					w.hints.add(next())
					p = linkTarget(set, w.buf, target, nil)
					skipFirst = false
					goto restart
				}
				if !isNotLink(err) {
					return nil, err
				}
			}
			return w.location(c, next(), slash), nil
		}
		w.room()
		nd, err := cur.openDir(c)
		if err != nil && m.mkdirs && errors.Is(err, fs.ErrNotExist) {
			switch merr := cur.Mkdir(c, 0o777); {
			case merr == nil:
				m.created = append(m.created, next())
			case !errors.Is(merr, fs.ErrExist): // created meanwhile: open it
				return nil, merr
			}
			nd, err = cur.openDir(c)
		}
		if err == nil {
			w.push(nd, c)
			continue
		}
		if isMaybeLink(err) {
			if target, lerr := cur.Readlink(c); lerr == nil {
				if m.noLinks {
					return nil, linkRefused(next())
				}
				if links++; links > MaxSymlinks {
					return nil, tooMany()
				}
				w.hints.add(next())
				p = linkTarget(set, w.buf, target, comps[i+1:])
				skipFirst = false
				goto restart
			}
		}
		if m.nearest && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, enotdir)) {
			l := w.location(c, next(), false)
			l.missing = true
			return l, nil
		}
		return nil, &os.PathError{Op: "openat", Path: next(), Err: err}
	}
	if w.cur() == nil {
		return nil, &EscapeError{Path: abs, Roots: rs.canonRoots()}
	}
	return w.location(".", w.canon(), slash), nil
}

// linkRefused is the error for a link met in noLinks mode.
func linkRefused(p string) error {
	return &os.PathError{Op: "resolve", Path: p, Err: ErrSymlink}
}

// jump walks part of a run of plain names (run: no "..") with one openat2
// from the current directory, which refuses every symbolic link. When the
// run ends the path (tail) and the resolution opens the final component
// itself, the whole run is opened and returned as a Location holding the
// file; when it ends the path otherwise, the directories before the final
// name are walked; when ".." follows the run, all but its last
// MaxHeldDirs directories are, so that the ring still holds the parents
// the ".." will need. It returns how many names it walked (0: nothing
// changed, openat2 missing, refused, or not worth it); the walk then goes
// one component at a time and judges what the kernel refused.
func (w *walker) jump(run []string, end runEndKind, m *mode, slash bool) (*Location, int) {
	if noOpenat2.Load() {
		return nil, 0
	}
	cur := w.cur()
	if end == endTail && m.open != nil {
		flag := m.open.flag
		if slash {
			flag |= oDirectory
		}
		canon, rel := w.joinRun(run)
		if m.open.raw {
			fd, err := cur.openBeneathFd(rel, flag, m.open.perm)
			if err != nil {
				return nil, 0
			}
			return &Location{Name: run[len(run)-1], Path: canon, Slash: slash, fd: fd, hasFd: true}, 0
		}
		f, err := cur.openBeneath(rel, flag, m.open.perm, canon)
		if err != nil {
			return nil, 0
		}
		return &Location{Name: run[len(run)-1], Path: canon, Slash: slash, file: f}, 0
	}
	var n int
	switch end {
	case endTail:
		n = len(run) - 1 // the final name is the walk's
	case endDotDot:
		n = len(run) - MaxHeldDirs
	case endStop:
		n = len(run)
	}
	if n < 2 {
		return nil, 0 // one openat does as well
	}
	dirs := strings.Join(run[:n], "/")
	d, err := cur.openDirBeneath(dirs)
	if err != nil {
		return nil, 0
	}
	w.closeRing()
	w.ring[0], w.n = d, 1
	w.below += n
	w.add(dirs)
	return nil, n
}

// runEnd returns where the run of plain names from comps[i] ends: at the
// first "..", at a name whose path is a root (the walk enters that root by
// its descriptor) or a hinted link (the walk reads it), or at the end of
// the path (tail).
func (w *walker) runEnd(comps []string, i int) (e int, end runEndKind) {
	mark := len(w.buf)
	defer func() { w.buf = w.buf[:mark] }()
	nested, hinted := w.set.ancestors[string(w.buf)], w.hints.any()
	for ; i < len(comps); i++ {
		if comps[i] == ".." {
			return i, endDotDot
		}
		if nested || hinted {
			w.add(comps[i])
			if nested && w.set.byCanon[string(w.buf)] != nil || hinted && w.hints.hasBytes(w.buf) {
				return i, endStop
			}
			nested = nested && w.set.ancestors[string(w.buf)]
		}
	}
	return i, endTail
}

// runEndKind says what ends a run of plain names.
type runEndKind int

const (
	endTail   runEndKind = iota // the end of the path
	endDotDot                   // "..": the ring must hold the run's last directories
	endStop                     // a root or a hinted link, which the walk deals with itself
)

// hinted reports whether the name c in the current directory was a link.
func (w *walker) hinted(c string) bool {
	if !w.hints.any() {
		return false
	}
	mark := w.add(c)
	ok := w.hints.hasBytes(w.buf)
	w.buf = w.buf[:mark]
	return ok
}

// joinRun returns the canonical path of run below where the walk stands,
// and run joined (a suffix of it), in one allocation.
func (w *walker) joinRun(run []string) (canon, rel string) {
	n := len(w.buf) + len(run)
	for _, c := range run {
		n += len(c)
	}
	var b strings.Builder
	b.Grow(n)
	b.Write(w.buf)
	start := b.Len() + 1
	if len(w.buf) == 1 {
		start = 1
	}
	for _, c := range run {
		if b.Len() > 1 {
			b.WriteByte('/')
		}
		b.WriteString(c)
	}
	canon = b.String()
	return canon, canon[start:]
}

// linkTarget is the absolute path to resolve after meeting a symbolic link
// in directory dir whose target is target, with rest still to walk.
func linkTarget(rs *rootSet, dir []byte, target string, rest []string) string {
	abs := filepath.IsAbs(target)
	if abs {
		target = rs.unalias(target)
	}
	n := len(dir) + 1 + len(target)
	for _, c := range rest {
		n += 1 + len(c)
	}
	var b strings.Builder
	b.Grow(n)
	if !abs {
		b.Write(dir)
		b.WriteByte('/')
	}
	b.WriteString(target)
	for _, c := range rest {
		b.WriteByte('/')
		b.WriteString(c)
	}
	return b.String()
}

// appendSplit appends the components of the absolute path p to out,
// dropping empty ones and ".".
func appendSplit(out []string, p string) []string {
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
