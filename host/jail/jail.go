// Package jail holds the roots a Host may touch and resolves paths inside
// them so that no "..", absolute path or symbolic link can leave them.
//
// # Guarantee
//
// Under the Jailed policy, every operation of a Jail (and of the packages
// built on it, host/fs and the host facade) reaches only files and
// directories beneath one of its roots. Paths are resolved one component at
// a time through open directory descriptors, each opened with O_NOFOLLOW;
// ".." is never opened but computed from the path already walked; a
// symbolic link is read with readlinkat and followed only when its target
// lies inside a root (any root: a link from one root into another is
// followed). Because every step starts from a descriptor obtained the same
// way, a symbolic link swapped in while a path is being resolved is seen as
// a link, judged, and refused if it leads out: there is no window between a
// check and a use. On Linux the common case (no symbolic link on the way)
// is a single openat2 call with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, which
// the kernel enforces; anything else falls back to the walk described above.
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
// goroutines at once, AddRoot included.
type Jail struct {
	policy Policy
	home   string

	mu     sync.Mutex   // serializes AddRoot and Close
	inUse  sync.RWMutex // held for reading by every operation, for writing by Close
	roots  atomic.Pointer[rootSet]
	closed atomic.Bool

	// slashSet is the single root "/" that operations walk from under the
	// Unrestricted policy.
	slashSet *rootSet
}

// New returns a Jail whose first root is workspace and whose others are
// extra. Each root is ~-expanded, made absolute and canonicalized; a root
// that does not exist or is not a directory gives an error wrapping
// ErrInvalidRoot. home overrides $HOME for ~ expansion ("" means
// os.UserHomeDir). The Jail holds a descriptor per root until Close.
func New(workspace string, extra []string, policy Policy, home string) (*Jail, error) {
	if policy != Jailed && policy != Unrestricted {
		return nil, fmt.Errorf("jail: unknown policy %d", int(policy))
	}
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	j := &Jail{policy: policy, home: home}
	j.roots.Store(&rootSet{byCanon: map[string]*root{}, ancestors: map[string]bool{}})
	if policy == Unrestricted {
		d, err := openRootDir("/")
		if err != nil {
			return nil, err
		}
		r := &root{canon: "/", dir: d}
		j.slashSet = &rootSet{list: []*root{r}, byCanon: map[string]*root{"/": r}, ancestors: map[string]bool{}}
	}
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
func (j *Jail) Roots() []string {
	rs := j.roots.Load()
	out := make([]string, len(rs.list))
	for i, r := range rs.list {
		out[i] = r.canon
	}
	return out
}

// AddRoot widens the jail with dir and returns its canonical path. dir is
// ~-expanded and made absolute against the process's working directory.
// Adding a root that is already there (in either its given or canonical
// form) returns it again and changes nothing. A missing path or a
// non-directory gives an error wrapping ErrInvalidRoot, and the jail stays
// as it was. Resolutions running at the same time see the jail either
// before or after the root was added.
func (j *Jail) AddRoot(dir string) (string, error) {
	if err := checkPath(dir); err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidRoot, err)
	}
	given := expandHome(dir, j.home)
	if !filepath.IsAbs(given) {
		abs, err := filepath.Abs(given)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %v", ErrInvalidRoot, dir, err)
		}
		given = abs
	}
	given = filepath.Clean(given)
	canon, err := filepath.EvalSymlinks(given)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrInvalidRoot, dir, err)
	}
	canon, err = filepath.Abs(canon)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrInvalidRoot, dir, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed.Load() {
		return "", fmt.Errorf("%w: %s: jail is closed", ErrInvalidRoot, dir)
	}
	old := j.roots.Load()
	if r, ok := old.byCanon[canon]; ok {
		if given != canon && !old.hasAlias(given) {
			j.roots.Store(old.withAlias(given, r))
		}
		return canon, nil
	}
	d, err := openRootDir(canon)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrInvalidRoot, dir, err)
	}
	r := &root{canon: canon, dir: d}
	next := old.with(r)
	if given != canon {
		next = next.withAlias(given, r)
	}
	j.roots.Store(next)
	return canon, nil
}

// Close releases the roots' descriptors. Operations after Close fail.
func (j *Jail) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed.Swap(true) {
		return nil
	}
	j.inUse.Lock() // wait for running operations
	defer j.inUse.Unlock()
	rs := j.roots.Load()
	var first error
	for _, r := range rs.list {
		if err := r.dir.close(); err != nil && first == nil {
			first = err
		}
	}
	if j.slashSet != nil {
		j.slashSet.list[0].dir.close()
	}
	return first
}

// acquire marks the start of an operation; release must follow. It fails
// once the Jail is closed.
func (j *Jail) acquire() (*rootSet, error) {
	j.inUse.RLock()
	if j.closed.Load() {
		j.inUse.RUnlock()
		return nil, os.ErrClosed
	}
	return j.roots.Load(), nil
}

func (j *Jail) release() { j.inUse.RUnlock() }

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
