// Package host is the side-effect seam of a coding agent: one Host value per
// session, shared by every tool, through which every file read or written,
// every command run and every directory walked goes, and from which nothing
// can leave the directories the user allowed.
//
// The Host composes the lower packages and owns no algorithm: host/jail
// (roots, policy, resolution), host/fs (file operations on descriptors),
// host/walk (a git-exact walk), host/exec (commands with limits) and
// invalidation (notices of what may have changed). It re-exports the types
// it takes and returns, so a user imports host alone.
//
// Under the Jailed policy the guarantee is the jail's (see package
// host/jail): file operations reach only files beneath a root, whatever
// "..", absolute path or symbolic link the path holds, even one swapped in
// while it is resolved.
//
// Commands run by Exec and RunCapture are confined by an OS sandbox
// (Config.Sandbox; on by default on Linux, see SandboxPolicy): writes only
// beneath the roots, no secrets of the home directory, no network unless
// the policy allows it, nothing left running after the run, and plants
// in git and agent configuration refused or undone. A program that embeds
// the Host calls SandboxMain first thing in main; where a part of the
// sandbox is missing (no Landlock, no user namespaces), Exec fails with
// ErrNoSandbox unless the policy is BestEffort. On macOS and Windows a
// command is not confined beyond its environment (SandboxPolicy says
// which parts hold where; `agent-host sandbox check` tests them live).
package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	hostexec "github.com/agenthost/agenthost/host/exec"
	hostfs "github.com/agenthost/agenthost/host/fs"
	"github.com/agenthost/agenthost/host/jail"
	"github.com/agenthost/agenthost/invalidation"
)

var (
	// ErrEscape is wrapped by every error for a path that leaves every root.
	ErrEscape = jail.ErrEscape
	// ErrInvalidRoot is wrapped by the error for a root that does not exist
	// or is not a directory.
	ErrInvalidRoot = jail.ErrInvalidRoot
	// ErrInvalidPath is wrapped by the error for an empty path, a path with
	// a NUL byte, or one longer than MaxPathLen.
	ErrInvalidPath = jail.ErrInvalidPath
	// ErrTooManyLinks is wrapped by the error for a path whose resolution
	// meets more than MaxSymlinks symbolic links (a loop, usually); it also
	// matches syscall.ELOOP.
	ErrTooManyLinks = jail.ErrTooManyLinks
	// ErrNotRegular is wrapped by ReadFile's and WriteFile's error for a
	// directory, FIFO, socket or device.
	ErrNotRegular = hostfs.ErrNotRegular
	// ErrTooLarge is wrapped by ReadFile's error for a file over the limit.
	ErrTooLarge = hostfs.ErrTooLarge
	// ErrChanged is wrapped by UpdateFile's error when the file changed
	// between its read and its write (nothing was written).
	ErrChanged = hostfs.ErrChanged
)

const (
	// MaxPathLen is the longest path accepted, in bytes (Linux's PATH_MAX).
	MaxPathLen = jail.MaxPathLen
	// MaxSymlinks is how many symbolic links one resolution may follow
	// (Linux's MAXSYMLINKS).
	MaxSymlinks = jail.MaxSymlinks
)

// EscapeError is the error for a path that leaves every root: it wraps
// ErrEscape and names the Path and the Roots it would have to be in. It is
// [jail.EscapeError], where each field is documented: go doc
// github.com/agenthost/agenthost/host/jail EscapeError.
type EscapeError = jail.EscapeError

// FileStat describes a file as an operation saw it: canonical Path, Size,
// Mode, ModTime, IsDir. It is [hostfs.FileStat], where each field is
// documented: go doc github.com/agenthost/agenthost/host/fs FileStat.
type FileStat = hostfs.FileStat

// FileRead is what ReadFile returns: the canonical Path, the Contents as
// lossy UTF-8 (OpenFile gives the bytes as they are) and the Stat. It is
// [hostfs.FileRead], where each field is documented: go doc
// github.com/agenthost/agenthost/host/fs FileRead.
type FileRead = hostfs.FileRead

// Host is one session's view of the machine. Its methods are safe for
// concurrent use by many tools.
type Host struct {
	cfg    Config
	jail   *jail.Jail
	fs     *hostfs.FS
	runner *hostexec.Runner
	walk   walkFacadeState
}

// New builds a Host. The workspace root is required and, like each extra
// root, must be an existing directory: otherwise the error wraps
// ErrInvalidRoot. The Host holds a descriptor per root until Close.
func New(cfg Config) (*Host, error) {
	if cfg.WorkspaceRoot == "" {
		return nil, fmt.Errorf("%w: Config.WorkspaceRoot is required", ErrInvalidRoot)
	}
	j, err := jail.New(cfg.WorkspaceRoot, cfg.ExtraRoots, cfg.PathPolicy, cfg.Home)
	if err != nil {
		return nil, err
	}
	h := &Host{
		cfg:    cfg,
		jail:   j,
		fs:     hostfs.New(j, cfg.MaxReadBytes),
		runner: hostexec.NewRunner(cfg.Exec),
	}
	return h, nil
}

// Close releases the roots' descriptors and the walk cache's inotify
// descriptor. Operations after Close fail.
func (h *Host) Close() error {
	return errors.Join(h.jail.Close(), h.walkState().Close(), h.runner.Close())
}

// WorkspaceRoot returns the canonical absolute workspace root.
func (h *Host) WorkspaceRoot() string { return h.jail.WorkspaceRoot() }

// Roots returns the canonical absolute roots, the workspace root first.
func (h *Host) Roots() []string { return h.jail.Roots() }

// AddRoot widens the jail with dir (the /add-dir of agents) and returns its
// canonical path. It is idempotent; a missing path or a non-directory gives
// an error wrapping ErrInvalidRoot and changes nothing.
func (h *Host) AddRoot(dir string) (string, error) { return h.jail.AddRoot(dir) }

// RemoveRoot narrows the jail: dir (a root's canonical path, the form it
// was added with, or any path that opens the same directory) stops being
// a root. Operations that start after RemoveRoot returns cannot reach it
// (unless it lies inside another root); the root's descriptor is closed
// when the last operation already running ends. Removing what is not a
// root does nothing and returns nil (RemoveRoot is idempotent); the
// workspace root cannot be removed (the error wraps ErrInvalidRoot).
func (h *Host) RemoveRoot(dir string) error { return h.jail.RemoveRoot(dir) }

// PathPolicy returns the policy the Host was built with.
func (h *Host) PathPolicy() PathPolicy { return h.jail.Policy() }

// Limits returns the exec limits in force, defaults filled in.
func (h *Host) Limits() ExecLimits { return h.runner.Limits() }

// ResolveInJail returns the canonical absolute path that path names: cwd
// is the tool's working directory (absolute, or relative to the workspace
// root; "" is the workspace root) and must lie inside the jail; path is
// absolute, ~-prefixed or relative to cwd. Symbolic links are followed
// inside the roots and the final component need not exist. A path that
// leaves every root wraps ErrEscape. Under Unrestricted the path is only
// made absolute. The result is for display and permission prompts: the
// Host's operations never re-open it.
func (h *Host) ResolveInJail(ctx context.Context, cwd, path string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return h.jail.Resolve(cwd, path)
}

// NearestDir says what exists of path (cwd and path as for ResolveInJail):
// dir is the canonical path of the deepest existing directory on its way,
// symbolic links followed inside the roots, and missing the name in dir
// that does not exist (or is a file where a directory is needed), "" when
// the whole path exists. It is for error messages that show what is near a
// missing path. A path that leaves every root wraps ErrEscape.
func (h *Host) NearestDir(ctx context.Context, cwd, path string) (dir, missing string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	return h.jail.Nearest(cwd, path)
}

// openDir opens a tool's working directory through the jail ("" is the
// workspace root) and returns it with its canonical path. A command is
// started in the descriptor, not the path, so a directory swapped for a
// link after the check cannot move the start outside the roots.
func (h *Host) openDir(ctx context.Context, cwd string) (*os.File, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if cwd == "" {
		cwd = "."
	}
	dir, canon, err := h.jail.OpenDir("", cwd)
	if errors.Is(err, syscall.ENOTDIR) {
		return nil, "", &fs.PathError{Op: "chdir", Path: cwd, Err: syscall.ENOTDIR}
	}
	return dir, canon, err
}

// ReadFile reads a regular file inside the jail. See ResolveInJail for cwd
// and path. Errors wrap ErrEscape, fs.ErrNotExist, ErrNotRegular (a
// directory, FIFO, socket or device: never blocks) or ErrTooLarge.
func (h *Host) ReadFile(ctx context.Context, cwd, path string) (FileRead, error) {
	if err := ctx.Err(); err != nil {
		return FileRead{}, err
	}
	return h.fs.ReadFile(cwd, path)
}

// WriteFile atomically creates or replaces a file inside the jail and
// returns its stat; a missing parent wraps fs.ErrNotExist. A symbolic link
// inside the jail has its target replaced. It is WriteFrom with the zero
// Options: see there, and hostfs.FS.WriteFrom for what a rewrite keeps. The invocation in ctx (if any)
// records a confirmed content and tree change of the canonical path.
func (h *Host) WriteFile(ctx context.Context, cwd, path string, contents []byte) (FileStat, error) {
	if err := ctx.Err(); err != nil {
		return FileStat{}, err
	}
	st, err := h.fs.WriteFile(cwd, path, contents)
	if err == nil {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeContent|invalidation.ScopeTree, st.Path)
	}
	return st, err
}

// UpdateFile reads a regular file inside the jail, passes it to fn and
// atomically replaces it with what fn returns: read, check and write all
// go through one open directory, so the file replaced is the file read,
// and under the file's lock, so no WriteFile or UpdateFile through any
// Host in any process is lost (see hostfs.FS.UpdateFile). If a program
// outside agenthost changed the file in between, nothing is written and
// the error wraps ErrChanged; fn's own error is returned as is. The invocation in ctx
// records a confirmed content change of the canonical path.
func (h *Host) UpdateFile(ctx context.Context, cwd, path string, fn func(FileRead) ([]byte, error)) (FileStat, error) {
	if err := ctx.Err(); err != nil {
		return FileStat{}, err
	}
	st, err := h.fs.UpdateFile(cwd, path, fn)
	if err == nil {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeContent, st.Path)
	}
	return st, err
}

// RenameError is Rename's error, naming the end (source or destination)
// it concerns. It is [hostfs.RenameError]: go doc
// github.com/agenthost/agenthost/host/fs RenameError.
type RenameError = hostfs.RenameError

// Rename moves src to dst inside the jail (a file, a directory, or a link
// as the link) and returns both canonical paths. It never replaces
// anything (the error wraps fs.ErrExist), never moves a root or a
// directory holding one, and resolves both ends through descriptors, so
// a link swapped in cannot lead either end out. Errors are *RenameError.
// The invocation in ctx records a confirmed content and tree change of
// both paths. (Not supported on Windows yet.)
func (h *Host) Rename(ctx context.Context, cwd, src, dst string) (from, to string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	from, to, err = h.fs.Rename(cwd, src, dst)
	if err == nil {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeContent|invalidation.ScopeTree, from, to)
	}
	return from, to, err
}

// CreateDir creates a directory inside the jail: with parents, missing
// parents too; with existOK, an existing directory is not an error
// (otherwise it wraps fs.ErrExist). The invocation in ctx records a
// confirmed tree change of each directory created.
func (h *Host) CreateDir(ctx context.Context, cwd, path string, parents, existOK bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	created, err := h.fs.CreateDir(cwd, path, parents, existOK)
	if len(created) > 0 {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeTree, created...)
	}
	return err
}

// RemoveFile removes one file or symbolic link (the link, not its target)
// inside the jail; a directory is an error. The invocation in ctx records a
// confirmed content and tree change of the canonical path.
func (h *Host) RemoveFile(ctx context.Context, cwd, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	canon, err := h.fs.RemoveFile(cwd, path)
	if err == nil {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeContent|invalidation.ScopeTree, canon)
	}
	return err
}

// Stat returns the stat of what path names, following symbolic links
// inside the jail. A missing file wraps fs.ErrNotExist.
func (h *Host) Stat(ctx context.Context, cwd, path string) (FileStat, error) {
	if err := ctx.Err(); err != nil {
		return FileStat{}, err
	}
	return h.fs.Stat(cwd, path)
}
