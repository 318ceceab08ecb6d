// Package jail holds the roots a Host may touch and resolves paths inside
// them so that no "..", absolute path or symbolic link can leave them.
//
// # Guarantee
//
// Under the Jailed policy, every operation of a Jail (and of the packages
// built on it, host/fs and the host facade) reaches only files and
// directories beneath one of its roots. There is one resolver (walk, in
// lookup.go): paths are resolved one component at a time through open
// directory descriptors, each opened with O_NOFOLLOW; ".." is never opened
// but is the directory walked before (or, past the last MaxHeldDirs, the
// parent re-derived by walking again through the roots' descriptors); a
// symbolic link is read with readlinkat and followed only when its target
// lies inside a root (any root: a link from one root into another is
// followed). Because every step starts from a descriptor obtained the same
// way, a symbolic link swapped in while a path is being resolved is seen as
// a link, judged, and refused if it leads out: there is no window between a
// check and a use. On Linux a run of plain names (no link, no "..") is one
// openat2 call with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, which the kernel
// enforces; anything it refuses falls back to the walk.
//
// Every path a Jail returns is canonical: no "//", no "." or "..", no
// trailing "/". A resolution holds at most MaxHeldDirs descriptors of its
// own, however deep the path. Roots are opened by the same walk (AddRoot)
// and removed by reference counting (RemoveRoot): an operation that starts
// after RemoveRoot returns cannot reach the root, and its descriptor is
// closed once no running operation uses it. Whether a directory is or holds
// a root is decided by device and inode (Location.HeldRoot), not by
// comparing strings.
//
// # Not guaranteed
//
// Like os.Root, a Jail does not prohibit crossing filesystem boundaries,
// Linux bind mounts, /proc special files or device files that lie inside a
// root. If a directory that is being traversed is moved out of every root by
// another process at that very moment, the operation may complete in its new
// location (the descriptor follows the directory). A hard link inside a root
// to a file outside is that file. The jail protects the file operations
// only: what a shell command run through host/exec does is not confined
// (that needs an OS sandbox).
//
// # Platforms
//
// Linux and macOS use the descriptor walk above (openat2 only on Linux).
// Windows falls back to os.Root semantics per directory.
package jail

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Policy says how far a Jail lets a path reach.
type Policy int

const (
	// Jailed is the default: every path must lie inside a root.
	Jailed Policy = iota
	// Unrestricted only makes paths absolute (with ~ expansion); nothing is
	// refused, and symbolic links are followed wherever they lead.
	Unrestricted
)

// String returns "jailed" or "unrestricted".
func (p Policy) String() string {
	switch p {
	case Jailed:
		return "jailed"
	case Unrestricted:
		return "unrestricted"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

var (
	// ErrEscape is wrapped by every error for a path that leaves every root,
	// directly, through "..", or through a symbolic link.
	ErrEscape = errors.New("path escapes the allowed directories")
	// ErrInvalidRoot is wrapped by the error for a root that does not exist
	// or is not a directory.
	ErrInvalidRoot = errors.New("invalid root")
	// ErrInvalidPath is wrapped by the error for a path that is empty,
	// contains a NUL byte, or is longer than MaxPathLen.
	ErrInvalidPath = errors.New("invalid path")
	// ErrTooManyLinks is wrapped by the error for a path whose resolution
	// meets more than MaxSymlinks symbolic links (a loop, usually). It also
	// matches syscall.ELOOP.
	ErrTooManyLinks = errTooManyLinks{}
)

// ErrSymlink is wrapped by DoNoLinks's error for a path with a symbolic
// link on the way (the final component included). It also matches
// syscall.ELOOP.
var ErrSymlink = errSymlink{}

type errSymlink struct{}

func (errSymlink) Error() string { return "a symbolic link on the way, where none is allowed" }
func (errSymlink) Is(target error) bool {
	return target == eloop
}

type errTooManyLinks struct{}

func (errTooManyLinks) Error() string { return "too many levels of symbolic links" }
func (errTooManyLinks) Is(target error) bool {
	return target == eloop
}

const (
	// MaxSymlinks is how many symbolic links one resolution may follow. 40
	// is Linux's MAXSYMLINKS, so a path the kernel resolves, we resolve.
	MaxSymlinks = 40
	// MaxPathLen is the longest path accepted, in bytes. 4096 is Linux's
	// PATH_MAX; a longer one could not be opened by the kernel either.
	MaxPathLen = 4096
)

// EscapeError is the error for a path that leaves every root. It wraps
// ErrEscape and names the offending path and the roots it would have to be in.
type EscapeError struct {
	Path  string   // the path as given (after ~ expansion and joining to cwd)
	Roots []string // the canonical roots at the time
}

func (e *EscapeError) Error() string {
	return fmt.Sprintf("%s: %v (allowed: %s)", e.Path, ErrEscape, strings.Join(e.Roots, ", "))
}

// Unwrap returns ErrEscape.
func (e *EscapeError) Unwrap() error { return ErrEscape }

// Jail is a set of roots and a policy. Its methods are safe to use from many
// goroutines at once, AddRoot and RemoveRoot included.
type Jail struct {
	policy Policy
	home   string

	mu     sync.Mutex // serializes AddRoot, RemoveRoot and Close
	roots  atomic.Pointer[rootSet]
	closed atomic.Bool

	// slash is the root "/": AddRoot walks from it to open a new root, and
	// under the Unrestricted policy every operation walks from it. Every
	// root set holds it, so it is closed with the last one.
	slash    *root
	slashSet *rootSet

	hints linkHints // paths that were symbolic links (see linkHints)
}

// New returns a Jail whose first root is workspace and whose others are
// extra. Each root is ~-expanded, made absolute and opened as AddRoot
// does; a root that does not exist or is not a directory gives an error
// wrapping ErrInvalidRoot. home overrides $HOME for ~ expansion ("" means
// os.UserHomeDir). The Jail holds a descriptor per root until Close.
func New(workspace string, extra []string, policy Policy, home string) (*Jail, error) {
	if policy != Jailed && policy != Unrestricted {
		return nil, fmt.Errorf("jail: unknown policy %d", int(policy))
	}
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	j := &Jail{policy: policy, home: home}
	if needSlash(policy) {
		d, err := openRootDir("/")
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidRoot, err)
		}
		j.slash = &root{canon: "/", dir: d}
		j.slashSet = &rootSet{list: []*root{j.slash}, byCanon: map[string]*root{"/": j.slash}, ancestors: map[string]bool{}}
	}
	j.roots.Store(newRootSet(nil, nil, j.slash))
	if _, err := j.AddRoot(workspace); err != nil {
		j.Close()
		return nil, err
	}
	for _, d := range extra {
		if _, err := j.AddRoot(d); err != nil {
			j.Close()
			return nil, err
		}
	}
	return j, nil
}

// Policy returns the policy the Jail was made with.
func (j *Jail) Policy() Policy { return j.policy }

// WorkspaceRoot returns the canonical absolute path of the first root.
func (j *Jail) WorkspaceRoot() string {
	rs := j.roots.Load()
	if len(rs.list) == 0 {
		return ""
	}
	return rs.list[0].canon
}

// Roots returns the canonical absolute roots, the workspace root first, in
// the order they were added.
func (j *Jail) Roots() []string { return j.roots.Load().canonRoots() }

// AddRoot widens the jail with dir and returns its canonical path. dir is
// ~-expanded and made absolute against the process's working directory.
//
// The root is opened by the jail's own walk from "/": one component at a
// time through descriptors, each opened with O_NOFOLLOW, a symbolic link
// read and followed by restarting the walk, ".." taken from the
// directories already walked. The canonical path is the names of the
// directories the walk went through, so the descriptor the Jail keeps is
// the directory its listed path named at the moment each step was taken:
// a directory swapped for a link meanwhile is seen as the link and
// followed as one, never opened by a string that names something else.
//
// Adding a root that is already there (in either its given or canonical
// form) returns it again and changes nothing. A missing path or a
// non-directory gives an error wrapping ErrInvalidRoot, and the jail stays
// as it was. Resolutions running at the same time see the jail either
// before or after the root was added.
func (j *Jail) AddRoot(dir string) (string, error) {
	if err := checkPath(dir); err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidRoot, err)
	}
	given, err := absDir(expandHome(dir, j.home))
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrInvalidRoot, dir, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed.Load() {
		return "", fmt.Errorf("%w: %s: jail is closed", ErrInvalidRoot, dir)
	}
	old := j.roots.Load()
	// The given form of a root already there: nothing to open.
	if r := old.lookupGiven(given); r != nil {
		return r.canon, nil
	}
	d, canon, err := j.openRoot(old, given)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrInvalidRoot, dir, rootErr(err))
	}
	alias := aliasable(given) && given != canon
	if r, ok := old.byCanon[canon]; ok {
		d.close()
		if alias && !old.hasAlias(given) {
			j.publish(old.withAlias(given, r))
		}
		return canon, nil
	}
	r := &root{canon: canon, dir: d}
	next := old.with(r)
	if alias {
		// Built from next, which is never published: drop its reference
		// (after the new set holds the roots, so none is closed).
		withAlias := next.withAlias(given, r)
		next.release()
		next = withAlias
	}
	j.publish(next)
	return canon, nil
}

// RemoveRoot narrows the jail: dir (the canonical path of a root, a form
// it was added with, or any path that opens the same directory) stops
// being a root. Operations that start after RemoveRoot returns cannot
// reach it (unless it lies inside another root); an operation already
// running may finish with it, and its descriptor is closed when the last
// such operation ends. Removing what is not a root does nothing and
// returns nil, so RemoveRoot is idempotent. The workspace root cannot be
// removed: that error wraps ErrInvalidRoot.
func (j *Jail) RemoveRoot(dir string) error {
	if err := checkPath(dir); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidRoot, err)
	}
	given, err := absDir(expandHome(dir, j.home))
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalidRoot, dir, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed.Load() {
		return os.ErrClosed
	}
	old := j.roots.Load()
	r := old.lookupGiven(given)
	if r == nil {
		// Not a name the jail knows: compare the directory it opens, by
		// device and inode, with each root's descriptor.
		d, _, err := j.openRoot(old, given)
		if err != nil {
			return nil // nothing there, so no root is there
		}
		r = old.sameDir(d)
		d.close()
	}
	if r == nil {
		return nil
	}
	if r == old.list[0] {
		return fmt.Errorf("%w: %s is the workspace root, which cannot be removed", ErrInvalidRoot, r.canon)
	}
	j.publish(old.without(r))
	return nil
}

// publish makes next the current root set and drops the Jail's reference
// to the one before; its descriptors no other set holds are closed once no
// operation uses it. j.mu must be held.
func (j *Jail) publish(next *rootSet) {
	old := j.roots.Swap(next)
	old.release()
}

// Close releases the roots' descriptors: at once when no operation is
// running, else when the last running one ends. Operations that start
// after Close fail with os.ErrClosed.
func (j *Jail) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed.Swap(true) {
		return nil
	}
	j.roots.Load().release()
	return nil
}

// acquire marks the start of an operation and returns the roots it works
// with; release must follow. It fails once the Jail is closed.
func (j *Jail) acquire() (*rootSet, error) {
	for {
		if j.closed.Load() {
			return nil, os.ErrClosed
		}
		if rs := j.roots.Load(); rs.tryAcquire() {
			return rs, nil
		}
		// That set was replaced and drained between the load and the
		// acquire: the next load sees its successor (or Close).
	}
}

// rootErr is what AddRoot says about a root the walk could not open: the
// system's reason alone (the root's path is in the message already), or
// the jail's own error.
func rootErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// absDir makes a root's path absolute against the working directory
// without cleaning it: ".." after a symbolic link is for the walk to apply.
func absDir(p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return wd + string(filepath.Separator) + p, nil
}

// aliasable reports whether an absolute path may stand for the root it
// opens as a string prefix: only when it is clean (no "." or ".."
// component, whose meaning depends on the links before it; no "//").
func aliasable(p string) bool {
	return p == filepath.Clean(p)
}

// checkPath rejects the inputs that can never be a path.
func checkPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%w: empty", ErrInvalidPath)
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("%w: %q contains a NUL byte", ErrInvalidPath, p)
	case len(p) > MaxPathLen:
		return fmt.Errorf("%w: %d bytes is longer than %d", ErrInvalidPath, len(p), MaxPathLen)
	}
	return nil
}

// expandHome expands a leading "~" or "~/" against home. "~user" and a "~"
// anywhere else stay literal, as in a shell.
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return home + p[1:]
	}
	return p
}
