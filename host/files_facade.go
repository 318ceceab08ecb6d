package host

import (
	"context"
	"io"
	"time"

	hostfs "github.com/agenthost/agenthost/host/fs"
	"github.com/agenthost/agenthost/invalidation"
)

// The file operations tools build on, beyond ReadFile, WriteFile and
// OpenFile (a descriptor to read from, read_raw.go): a writer fed by an
// io.Reader, a mode that follows no link, exclusive creation, a directory
// listing, touch and the removal of a tree. Each has the jail's guarantee (nothing outside the
// roots is read, written or removed, whatever links are swapped in while
// it runs) and is built on host/fs: there is one atomic writer and one
// resolver, and a tool needs neither the jail nor its descriptors.

// Options shape how a file operation reaches and writes its file; the
// zero value is ReadFile's and WriteFile's behaviour: NoFollow (a
// symbolic link anywhere on the way is refused with ErrSymlink),
// Exclusive (a write fails with fs.ErrExist when anything is at the
// path), Perm (a new file's mode before the umask, 0 meaning 0666),
// ReplacePerm (Perm for a file that replaces another too) and Verify (a
// last check of a write before its file is put in place). It is
// [hostfs.Options], where each field is documented: go doc
// github.com/agenthost/agenthost/host/fs Options.
type Options = hostfs.Options

// TempPrefix starts the name of every temporary file the host's writer
// names (see WriteFile). A file so named whose writer is gone is removed
// by the next write to its directory.
const TempPrefix = hostfs.TempPrefix

var (
	// ErrSymlink is wrapped by the error of an operation with
	// Options.NoFollow that met a symbolic link on the way.
	ErrSymlink = hostfs.ErrSymlink
	// ErrLocked is wrapped by a write's error when another writer held
	// the file's lock longer than hostfs.LockTimeout (nothing written).
	ErrLocked = hostfs.ErrLocked
)

// WriteFrom is WriteFile fed by r (read to io.EOF) and shaped by opts:
// the same atomic writer, the same lock against a concurrent UpdateFile,
// the same promises (see WriteFile). With opts.Exclusive an existing file
// wraps fs.ErrExist and the new one appears whole or not at all; with
// opts.NoFollow a link on the way (the final component included) wraps
// ErrSymlink; opts.Verify's error is returned as is. The invocation in
// ctx records a confirmed content and tree change of the canonical path.
func (h *Host) WriteFrom(ctx context.Context, cwd, path string, r io.Reader, opts Options) (FileStat, error) {
	if err := ctx.Err(); err != nil {
		return FileStat{}, err
	}
	st, err := h.fs.WriteFrom(cwd, path, r, opts)
	if err == nil {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeContent|invalidation.ScopeTree, st.Path)
	}
	return st, err
}

// StatWith is Stat shaped by opts: with opts.NoFollow a link on the way,
// the final component included, wraps ErrSymlink instead of being
// followed.
func (h *Host) StatWith(ctx context.Context, cwd, path string, opts Options) (FileStat, error) {
	if err := ctx.Err(); err != nil {
		return FileStat{}, err
	}
	return h.fs.StatWith(cwd, path, opts)
}

// MakeDir creates one directory inside the jail (its parent must exist:
// fs.ErrNotExist) and reports whether it made it; a directory already
// there is not an error, anything else wraps fs.ErrExist (with
// opts.NoFollow, a link on the way wraps ErrSymlink). The invocation in
// ctx records a confirmed tree change when it made it.
func (h *Host) MakeDir(ctx context.Context, cwd, path string, opts Options) (created bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	created, canon, err := h.fs.MakeDir(cwd, path, opts)
	if created {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeTree, canon)
	}
	return created, err
}

// ReadDir lists a directory inside the jail: one FileStat per entry (in
// directory order), taken without following links (a link has
// fs.ModeSymlink in Mode). With opts.NoFollow the directory must be
// reached without a link.
func (h *Host) ReadDir(ctx context.Context, cwd, path string, opts Options) ([]FileStat, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return h.fs.ReadDir(cwd, path, opts)
}

// Touch sets the access and modification times of a file or directory
// inside the jail to t (a final link is followed inside the jail, or
// with opts.NoFollow refused). Not supported on Windows yet.
func (h *Host) Touch(ctx context.Context, cwd, path string, t time.Time, opts Options) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := h.fs.Touch(cwd, path, t, opts)
	return err
}

// RemoveTree removes a file, link or directory inside the jail with
// everything beneath it, through descriptors and never following a link
// (a link is removed, not its target), so it never leaves the tree it
// was given. A missing path is not an error; a root or "." cannot be
// removed. With opts.NoFollow a link on the way to it wraps ErrSymlink.
// The invocation in ctx records a confirmed content and tree change of
// the canonical path. Not supported on Windows yet.
func (h *Host) RemoveTree(ctx context.Context, cwd, path string, opts Options) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	canon, err := h.fs.RemoveTree(cwd, path, opts)
	if err == nil {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeContent|invalidation.ScopeTree, canon)
	}
	return err
}

// RemoveEmptyDir removes a directory inside the jail when it is empty, in
// one step, so that a file put in it meanwhile keeps it: a directory that
// holds anything gives an error matching syscall.ENOTEMPTY and is left as
// it is; a missing one wraps fs.ErrNotExist; anything else, a final link
// included (never followed), matches syscall.ENOTDIR; a root or "."
// cannot be removed. With opts.NoFollow a link on the way to it wraps
// ErrSymlink. The invocation in ctx records a confirmed tree change of
// the canonical path. Not supported on Windows yet.
func (h *Host) RemoveEmptyDir(ctx context.Context, cwd, path string, opts Options) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	canon, err := h.fs.RemoveEmptyDir(cwd, path, opts)
	if err == nil {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeTree, canon)
	}
	return err
}
