package senduserfile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agenthost/agenthost/host"
)

const (
	// ToolName is the tool's name as hooks and matchers see it.
	ToolName = "SendUserFile"
	// OutboxDir is where copies go, relative to the working directory.
	OutboxDir = ".agent-harness/outbox"
	// DefaultMaxBytes is the budget of source bytes one call may stage (a
	// reused copy counts too): the script's 64 MiB, enough for any report
	// or screenshot, small enough that a hook never copies a disk image.
	DefaultMaxBytes int64 = 64 << 20
	// DefaultDeadline bounds one call: it is checked before each file, and a
	// file reached after it is kept. Four seconds is the script's figure,
	// well inside Claude Code's hook timeout.
	DefaultDeadline = 4 * time.Second
	// PruneAfter is how long a digest folder may stay untouched before a
	// call that stages something removes it: two weeks, the script's figure.
	PruneAfter = 14 * 24 * time.Hour

	// digestLen is the number of hex digits that name a digest folder.
	digestLen = 16
	// copyTries is how many times a source that changes while it is copied
	// (or whose empty digest folder another call's tidy removes before the
	// copy is in it) is copied before it is kept.
	copyTries = 3
	// maxSweep bounds the empty digest folders a call tries to remove
	// (one rmdir each): more than a call makes, so that every folder a
	// killed call left is gone after the next call, and few enough that an
	// outbox of thousands of copies costs a call at most a millisecond or
	// two.
	maxSweep = 1024
)

var (
	// ErrSymlink is wrapped by the error of a file kept because a symbolic
	// link (or something else that is not a plain directory or file) stands
	// in the outbox path: .agent-harness, outbox, .gitignore, the digest
	// folder or the target.
	ErrSymlink = errors.New("senduserfile: symbolic link in the outbox path")
	// ErrBudget is wrapped by the error of a file kept because it is larger
	// than what is left of the call's byte budget.
	ErrBudget = errors.New("senduserfile: over the byte budget of the call")
	// ErrDeadline is wrapped by the error of a file kept because the call's
	// deadline had passed (or its context was done) when it was reached.
	ErrDeadline = errors.New("senduserfile: deadline of the call passed")
	// ErrChanged is wrapped by the error of a file kept because it kept
	// changing while it was copied.
	ErrChanged = errors.New("senduserfile: source changed while it was copied")
	// ErrSecret is wrapped by the error of a file that the Host's sandbox
	// denies commands (a key under ~/.ssh, say: Host.IsSecret): a copy in
	// the outbox would put it within every sandboxed command's reach, and
	// the hook copies before the user approves the call. The file is left
	// as it was. (Here agent-host hook parts from the Python hook, which
	// copies any file.) A file whose check could not finish (a hard link
	// whose search among the secret directories stopped at a bound) is
	// kept too: its error wraps host.ErrSecretUnchecked as well, names the
	// bound, and the hook's message says so.
	ErrSecret = errors.New("senduserfile: a secret the sandbox denies commands; not copied into the workspace")
)

// Options tune a call. The zero value is the script's behaviour.
type Options struct {
	// MaxBytes is the byte budget of a call; 0 means DefaultMaxBytes and a
	// negative value allows nothing.
	MaxBytes int64
	// Deadline bounds a call, from its start; 0 means DefaultDeadline and a
	// negative value has always passed.
	Deadline time.Duration
	// Home is what "~" expands to; "" means $HOME (then os.UserHomeDir).
	Home string
	// OpenSource, when set, is the only way Stage reaches a source. It gets
	// each non-blank entry as given (making it absolute, expanding "~" and
	// deciding what may be read are its business) and returns the file open
	// for reading and its canonical path. Stage then learns everything about
	// the source from that descriptor: the size and times of the digest
	// (whose real path is realPath), the regular-file check, the budget, the
	// copy, and the before-and-after check of a torn copy (a torn copy is
	// retried from the same descriptor, rewound). Nothing is looked up by
	// path again, so a link swapped into the path meanwhile cannot change
	// which file is copied. An error from it keeps the entry with that error
	// as File.Err, as it is (a missing file included, unlike without it); so
	// does a source that is not a regular file, wherever it lies (an error
	// wrapping host.ErrNotRegular). A regular file inside cwd is left alone,
	// as without it. The MCP server opens through its Host's jail, so that
	// only files inside the roots are ever staged.
	//
	// nil is the Claude Code hook's behaviour, whose sources lie outside
	// cwd by design: the entry is expanded and joined to cwd, its real path
	// taken with filepath.EvalSymlinks, and that path stat'ed and opened.
	OpenSource func(path string) (f *os.File, realPath string, err error)
}

func (o Options) maxBytes() int64 {
	switch {
	case o.MaxBytes == 0:
		return DefaultMaxBytes
	case o.MaxBytes < 0:
		return 0
	}
	return o.MaxBytes
}

func (o Options) deadline() time.Duration {
	if o.Deadline == 0 {
		return DefaultDeadline
	}
	return o.Deadline
}

// Status is what became of one entry of files.
type Status int

const (
	// Untouched: left alone (not a string, blank, inside the working
	// directory, missing, a directory or not a regular file).
	Untouched Status = iota
	// Staged: copied into the outbox now.
	Staged
	// Reused: a copy made earlier was still there and is used again.
	Reused
	// Kept: it should have been staged but could not be; see File.Err.
	Kept
)

// String returns "untouched", "staged", "reused" or "kept".
func (s Status) String() string {
	switch s {
	case Untouched:
		return "untouched"
	case Staged:
		return "staged"
	case Reused:
		return "reused"
	case Kept:
		return "kept"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// File is the fate of one entry of files.
type File struct {
	// Given is the entry as given ("" for an entry that is not a string).
	Given string
	// Status is what became of it.
	Status Status
	// Source is the real path of the file (set from Staged, Reused and,
	// when it got that far, Kept; with Options.OpenSource, the realPath it
	// returned, for every entry it opened).
	Source string
	// Path replaces the entry when it is Staged or Reused: the copy, as
	// <cwd>/.agent-harness/outbox/<digest>/<name> with cwd as given.
	Path string
	// Bytes is how many bytes were copied (0 for Reused).
	Bytes int64
	// Err is why a Kept file could not be staged.
	Err error
}

// Result is what a call did.
type Result struct {
	// Files has one element per entry of files, in order.
	Files []File
	// Staged counts the Staged and Reused files; Kept the Kept ones.
	Staged, Kept int
	// BytesStaged is the number of bytes actually copied.
	BytesStaged int64
	// Written lists the canonical paths the call created, changed or
	// removed in the outbox (copies, folders, .gitignore, pruned folders).
	Written []string
}

// Stage stages files, the entries of a SendUserFile call's files, for a
// session whose working directory is cwd (absolute; it need not be
// canonical). Writes go through h's jail, so cwd must lie inside it; a Host
// whose workspace root is cwd is the usual choice. Entries are handled in
// order as the package documentation says; a blank entry (what a caller
// passes for one that is not a string) is left alone.
//
// Stage never fails as a whole: the fate of each entry, with the error of
// each kept file (wrapping ErrSymlink, ErrBudget, ErrDeadline, ErrChanged,
// host.ErrEscape or the operating system's error; with Options.OpenSource,
// also host.ErrNotRegular or the opener's own error), is in the Result.
// After a call that staged something, digest folders untouched for
// PruneAfter are removed; after any call that reached the outbox, so are
// its empty digest folders (a failed or killed staging's).
func Stage(ctx context.Context, h *host.Host, cwd string, files []string, opts Options) Result {
	s := newStager(ctx, h, cwd, opts)
	res := Result{Files: make([]File, len(files))}
	for i, entry := range files {
		f := &res.Files[i]
		f.Given = entry
		s.one(f)
		switch f.Status {
		case Staged, Reused:
			res.Staged++
			res.BytesStaged += f.Bytes
		case Kept:
			res.Kept++
		}
	}
	if res.Staged > 0 || (s.outboxDone && s.outboxErr == nil) {
		s.tidy(res.Staged > 0)
	}
	res.Written = s.written
	return res
}

// newStager is the state of a call on cwd. Every write it makes goes
// through h. (withoutHost, in hook.go, makes one with a nil h only to
// call source: it stages nothing.)
func newStager(ctx context.Context, h *host.Host, cwd string, opts Options) *stager {
	s := &stager{
		ctx:   ctx,
		h:     h,
		cwd:   cwd,
		opts:  opts,
		start: time.Now(),
		left:  opts.maxBytes(),
		home:  opts.Home,
	}
	if s.home == "" {
		s.home = homeDir()
	}
	if real, ok := realNoLinks(cwd); ok {
		s.real = real
	} else if real, err := pyRealpath(cwd); err == nil {
		s.real = real
	} else {
		s.realErr = err
	}
	return s
}

// stager is the state of one Stage call.
type stager struct {
	ctx     context.Context
	h       *host.Host
	cwd     string // as given
	real    string // its real path
	realErr error
	opts    Options
	start   time.Time
	left    int64 // budget left
	home    string

	outboxDone bool
	outboxErr  error
	written    []string
	made       map[string]bool // the directories this call made (rel)
}

// one decides the fate of one entry and stages it when it must be.
func (s *stager) one(f *File) {
	src := s.source(f)
	if src == nil {
		return // left alone, or kept
	}
	fi, _ := src.Stat() // nil when it fails: the path alone is checked
	if err := s.h.CheckSecret(f.Source, fi); err != nil {
		src.Close()
		f.Status, f.Err = Kept, fmt.Errorf("%w: %w", ErrSecret, err)
		return
	}
	if err := s.late(); err != nil {
		src.Close()
		f.Status, f.Err = Kept, err
		return
	}
	path, n, reused, err := s.stage(src, f.Source)
	if err != nil {
		f.Status, f.Err = Kept, err
		return
	}
	f.Path, f.Bytes, f.Status = path, n, Staged
	if reused {
		f.Status = Reused
	}
}

// source decides whether the entry of f is a file to stage, and returns
// it open if so. Otherwise it returns nil, with f left alone (a blank
// entry, one inside cwd, or for the hook one that is not a file to stage)
// or kept with its error.
func (s *stager) source(f *File) *os.File {
	if strings.TrimSpace(f.Given) == "" {
		return nil
	}
	keep := func(err error) {
		f.Status, f.Err = Kept, err
	}
	if strings.IndexByte(f.Given, 0) >= 0 {
		keep(fmt.Errorf("%w: %q contains a NUL byte", host.ErrInvalidPath, f.Given))
		return nil
	}
	if s.realErr != nil {
		keep(s.realErr)
		return nil
	}
	src, real, err := s.openGiven(f.Given)
	f.Source = real
	if err != nil {
		keep(err)
		return nil
	}
	return src
}

// late returns an error wrapping ErrDeadline when the call's context is
// done or its deadline has passed.
func (s *stager) late() error {
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("%w: %v", ErrDeadline, err)
	}
	if d := s.opts.deadline(); d < 0 || time.Since(s.start) > d {
		return ErrDeadline
	}
	return nil
}

// within reports whether p is dir or lies under it, by whole components.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if dir == string(filepath.Separator) || strings.HasSuffix(dir, string(filepath.Separator)) {
		return strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir) && p[len(dir)] == filepath.Separator
}

// openGiven opens the entry given (through Options.OpenSource, else the
// hook's openReal) and returns it with its real path; a nil file and no
// error mean the entry is left alone (inside cwd, or, for the hook,
// missing or not a regular file). Everything is judged on the open file.
func (s *stager) openGiven(given string) (*os.File, string, error) {
	open := s.opts.OpenSource
	// The hook (no OpenSource) leaves alone what it cannot open as a
	// regular file, as the script does; an OpenSource caller is told why.
	lenient := open == nil
	if open == nil {
		open = s.openReal
	}
	src, real, err := open(given)
	if err != nil {
		if lenient && (!errors.Is(err, errScriptRaised) || real == "" || within(real, s.real)) {
			return nil, real, nil
		}
		return nil, "", err
	}
	fi, err := src.Stat()
	switch {
	case err != nil:
		src.Close()
		if lenient {
			return nil, real, nil
		}
		return nil, real, err
	case !fi.Mode().IsRegular():
		src.Close()
		if lenient {
			return nil, real, nil
		}
		return nil, real, &fs.PathError{Op: "stage", Path: real, Err: host.ErrNotRegular}
	case within(real, s.real):
		src.Close()
		return nil, real, nil
	}
	return src, real, nil
}

// openReal is the hook's opener: given is expanded as Python's expanduser,
// joined to cwd, and its real path taken as the script takes it
// (pyRealpath: "/tmp/shot.png/" is the file, a missing part is kept) and
// opened (non-blocking, so a FIFO cannot hang the call); whether it is a
// regular file is judged on the open file. What the script would have
// left alone (a missing file, a path through a file, a link loop, a
// socket) is an error the caller ignores; what it would have failed on
// after finding a file (a link it cannot read, a file it may not open)
// wraps errScriptRaised, and the file is kept. When the kernel opens the
// path with no link on its way (openSourceNoLinks), that file and the
// path as written (spelled as realpath spells it) are the answer, and
// none of Python's lstats is needed.
func (s *stager) openReal(given string) (*os.File, string, error) {
	p := expandUser(given, s.home)
	if !filepath.IsAbs(p) {
		p = s.cwd + string(filepath.Separator) + p
	}
	if f, real, ok := openSourceNoLinks(p); ok {
		return f, real, nil
	}
	real, err := pyRealpath(p)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", errScriptRaised, err)
	}
	f, err := openSource(real)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) &&
		!errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.ENXIO) {
		err = fmt.Errorf("%w: %w", errScriptRaised, err)
	}
	return f, real, err
}

// errScriptRaised marks an error the script met after it had found a
// regular file to stage (it then names the file as not copied).
var errScriptRaised = errors.New("senduserfile: cannot read the file")

// errNoOutbox is wrapped by the error of every file kept because a
// symbolic link stands where the outbox goes (.agent-harness, outbox or
// its .gitignore): the script names those files by their real name, and
// the others by the entry's last component.
var errNoOutbox = errors.New("senduserfile: no outbox")

// stage copies the regular file src, whose real path is real, into the
// outbox (or reuses its copy) and returns the path that replaces its
// entry, the bytes copied, and whether an earlier copy was reused. It
// closes src.
func (s *stager) stage(src *os.File, real string) (string, int64, bool, error) {
	for try := 1; ; try++ {
		path, n, reused, torn, err := s.stageFrom(src, real)
		if err == nil && torn && try < copyTries {
			src, err = s.again(src, real)
			if err != nil {
				return "", 0, false, err
			}
			continue
		}
		src.Close()
		if err != nil {
			return "", 0, false, err
		}
		if !torn {
			return path, n, reused, nil
		}
		return "", 0, false, fmt.Errorf("%w: %s (%d tries)", ErrChanged, real, copyTries)
	}
}

// again readies the source for another copy after a torn one. From
// Options.OpenSource, it is the same descriptor rewound: nothing about the
// source is looked up by path again. Otherwise (the hook) src is closed
// and the real path opened anew, so that the newest version is copied.
func (s *stager) again(src *os.File, real string) (*os.File, error) {
	if s.opts.OpenSource != nil {
		if _, err := src.Seek(0, io.SeekStart); err != nil {
			src.Close()
			return nil, err
		}
		return src, nil
	}
	src.Close()
	return openSource(real)
}

// noFollow is how every outbox path is reached: a symbolic link anywhere
// on the way from cwd (.agent-harness, outbox, .gitignore, a digest
// folder, a copy) is refused, never followed.
var noFollow = host.Options{NoFollow: true}

// errTorn is Verify's verdict on a copy whose source changed meanwhile.
var errTorn = errors.New("senduserfile: source changed during the copy")

// symlinkErr makes the error of an outbox operation that met a link
// (host.ErrSymlink: NoFollow refused it) wrap ErrSymlink too.
func symlinkErr(err error) error {
	if err == nil || errors.Is(err, ErrSymlink) || !errors.Is(err, host.ErrSymlink) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrSymlink, err)
}

// stageFrom is one attempt of stage with the source open.
func (s *stager) stageFrom(src *os.File, real string) (path string, n int64, reused, torn bool, err error) {
	before, err := src.Stat()
	if err != nil {
		return "", 0, false, false, err
	}
	if !before.Mode().IsRegular() {
		return "", 0, false, false, &os.PathError{Op: "stage", Path: real, Err: errors.New("not a regular file")}
	}
	size := before.Size()
	if size > s.left {
		return "", 0, false, false, fmt.Errorf("%w: %s is %d bytes, %d left", ErrBudget, real, size, s.left)
	}
	if err := s.ensureOutbox(); err != nil {
		return "", 0, false, false, err
	}
	digest := Digest(real, before)
	dirRel := OutboxDir + "/" + digest
	if err := s.ensureDir(dirRel); err != nil {
		return "", 0, false, false, err
	}
	name := filepath.Base(real)
	rel := dirRel + "/" + name
	st, err := s.h.StatWith(s.ctx, s.real, rel, noFollow)
	switch {
	case err == nil && st.Mode.IsRegular() && st.Size == size:
		if err := s.h.Touch(s.ctx, s.real, dirRel, time.Now(), noFollow); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			return "", 0, false, false, symlinkErr(err)
		}
		s.wrote(s.canon(dirRel))
		s.left -= size
		return scriptPath(s.cwd, OutboxDir, digest, name), 0, true, false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", 0, false, false, symlinkErr(err)
	}
	// The copy goes through the host's one atomic writer; Verify, run
	// once the bytes are written and synced, refuses a torn copy, which
	// then leaves nothing behind. The limit stops a file that grows
	// without end; one byte past the size is enough to see that it grew.
	opts := noFollow
	opts.Perm, opts.ReplacePerm = 0o600, true // the script's mkstemp, renamed over the target
	opts.Verify = func(written int64) error {
		n = written
		if afterCopy != nil {
			afterCopy()
		}
		after, err := src.Stat()
		if err != nil {
			return err
		}
		if written != size || !sameVersion(before, after) {
			return errTorn
		}
		return nil
	}
	_, err = s.h.WriteFrom(s.ctx, s.real, rel, &io.LimitedReader{R: src, N: size + 1}, opts)
	if errors.Is(err, errTorn) {
		return "", n, false, true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		// The folder went after it was made: another call's tidy took it
		// for a killed call's empty folder. Made again on the next try.
		return "", 0, false, true, nil
	}
	if err != nil {
		return "", 0, false, false, symlinkErr(err)
	}
	s.wrote(s.canon(rel))
	s.left -= size
	return scriptPath(s.cwd, OutboxDir, digest, name), n, false, false, nil
}

// afterCopy, when set (by tests), runs between the copy and the second
// stat of the source.
var afterCopy func()

// sameVersion reports whether two stats of one file show the same
// version: same size, mtime and ctime.
func sameVersion(a, b fs.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && ctimeNs(a) == ctimeNs(b)
}

// Digest names the folder a version of a file is staged in: the first 16
// hex digits of the SHA-256 of "realpath\x00size\x00mtime_ns\x00ctime_ns"
// (decimal numbers; on Windows ctime is the creation time, as Python's
// st_ctime_ns there).
func Digest(realPath string, fi fs.FileInfo) string {
	h := sha256.New()
	buf := make([]byte, 0, len(realPath)+64)
	buf = append(buf, realPath...)
	buf = append(buf, 0)
	buf = strconv.AppendInt(buf, fi.Size(), 10)
	buf = append(buf, 0)
	buf = strconv.AppendInt(buf, fi.ModTime().UnixNano(), 10)
	buf = append(buf, 0)
	buf = strconv.AppendInt(buf, ctimeNs(fi), 10)
	h.Write(buf)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))[:digestLen]
}

// isDigestName reports whether name is exactly 16 lowercase hex digits.
func isDigestName(name string) bool {
	if len(name) != digestLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// canon is the canonical path of rel, an outbox path reached with
// noFollow: no link on the way, so it is cwd's real path joined to it.
func (s *stager) canon(rel string) string {
	if s.real == "/" {
		return "/" + rel
	}
	return s.real + "/" + rel
}

// wrote records a canonical path the call changed.
func (s *stager) wrote(p string) { s.written = append(s.written, p) }

// ensureOutbox makes .agent-harness, its outbox and the outbox's
// .gitignore, once per call.
func (s *stager) ensureOutbox() error {
	if s.outboxDone {
		return s.outboxErr
	}
	s.outboxDone = true
	s.outboxErr = s.ensureDir(".agent-harness")
	if s.outboxErr == nil {
		s.outboxErr = s.ensureDir(OutboxDir)
	}
	if s.outboxErr == nil {
		s.outboxErr = s.ensureGitignore()
	}
	if errors.Is(s.outboxErr, ErrSymlink) {
		s.outboxErr = fmt.Errorf("%w: %w", errNoOutbox, s.outboxErr)
	}
	return s.outboxErr
}

// ensureDir makes the directory rel (its parent must exist), or checks
// that what is there is a directory reached without a link.
func (s *stager) ensureDir(rel string) error {
	created, err := s.h.MakeDir(s.ctx, s.real, rel, noFollow)
	if err != nil {
		return symlinkErr(err)
	}
	if created {
		s.wrote(s.canon(rel))
		if s.made == nil {
			s.made = map[string]bool{}
		}
		s.made[rel] = true
	}
	return nil
}

// gitignore is what the outbox's .gitignore holds: everything in the
// outbox, the file itself included, is ignored.
const gitignore = "*\n"

// ensureGitignore writes the outbox's .gitignore when nothing is there (an
// exclusive create: whatever is already there, from another call or the
// user, is kept, as the script keeps it); a link there is refused.
func (s *stager) ensureGitignore() error {
	rel := OutboxDir + "/.gitignore"
	for {
		_, err := s.h.StatWith(s.ctx, s.real, rel, noFollow)
		if err == nil {
			return nil // there already (whatever it is, as for the script's exists())
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return symlinkErr(err)
		}
		opts := noFollow
		opts.Exclusive = true
		_, err = s.h.WriteFrom(s.ctx, s.real, rel, strings.NewReader(gitignore), opts)
		if errors.Is(err, fs.ErrExist) {
			continue // made by another call just now: look at what it is
		}
		if err != nil {
			return symlinkErr(err)
		}
		s.wrote(s.canon(rel))
		return nil
	}
}

// tidy looks after the outbox at the end of a call that reached it: with
// prune (the call staged something, as the script prunes), digest folders
// untouched for PruneAfter are removed; and empty digest folders, which a
// staging that failed, or was killed between making its folder and
// putting its copy in, leaves behind, are removed whatever their age: the
// ones this call made, and those last changed before it started (at most
// maxSweep of them, the newest first: the one a killed call left is among
// the newest when the next call comes). A folder another call made since
// this one started is left alone: that call may be copying into it.
// Failures are ignored: this is housekeeping. The outbox is listed once
// (each entry's times taken from the open directory, links not followed);
// only an old folder is looked at again before it is removed, as a tree
// that follows no link. An empty folder is removed in one step that fails
// when a file is in it (Host.RemoveEmptyDir); a concurrent call whose
// folder is removed before its copy is put in all the same (it made the
// folder before this call started, and is still copying) makes the
// folder again and copies again (stage).
func (s *stager) tidy(prune bool) {
	cutoff := time.Now().Add(-PruneAfter)
	ents, err := s.h.ReadDir(s.ctx, s.real, OutboxDir, noFollow)
	if err != nil {
		return
	}
	var fresh []host.FileStat
	for _, e := range ents {
		n := filepath.Base(e.Path)
		if !e.IsDir || !isDigestName(n) {
			continue // a link to a directory is not a directory here
		}
		if !e.ModTime.Before(cutoff) {
			if e.ModTime.Before(s.start) || s.made[OutboxDir+"/"+n] {
				fresh = append(fresh, e)
			}
			continue
		}
		if !prune {
			continue
		}
		rel := OutboxDir + "/" + n
		st, err := s.h.StatWith(s.ctx, s.real, rel, noFollow)
		if err != nil || !st.IsDir || !st.ModTime.Before(cutoff) {
			continue
		}
		if s.h.RemoveTree(s.ctx, s.real, rel, noFollow) == nil {
			s.wrote(st.Path)
		}
	}
	slices.SortFunc(fresh, func(a, b host.FileStat) int { return b.ModTime.Compare(a.ModTime) })
	for _, e := range fresh[:min(len(fresh), maxSweep)] {
		rel := OutboxDir + "/" + filepath.Base(e.Path)
		if s.h.RemoveEmptyDir(s.ctx, s.real, rel, noFollow) == nil {
			s.wrote(s.canon(rel))
		}
	}
}

// expandUser expands a leading "~" or "~user" as Python's
// os.path.expanduser does: "~" and "~/..." from home, "~user/..." from the
// user database; anything else, or an unknown user, is returned as is.
func expandUser(p, home string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	i := strings.IndexByte(p, '/')
	if i < 0 {
		i = len(p)
	}
	var base string
	if i == 1 {
		if home == "" {
			return p
		}
		base = home
	} else {
		var ok bool
		if base, ok = lookupHome(p[1:i]); !ok {
			return p
		}
	}
	base = strings.TrimRight(base, "/")
	if out := base + p[i:]; out != "" {
		return out
	}
	return "/"
}

// homeDir is $HOME, or the user's home directory when it is unset.
func homeDir() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// scriptPath is the path the script wrote for a copy:
// str(Path(cwd) / ...), which keeps cwd as given but for empty and "."
// components and a trailing slash (a ".." stays).
func scriptPath(cwd string, parts ...string) string {
	if filepath.Separator != '/' {
		return filepath.Join(append([]string{cwd}, parts...)...)
	}
	return pyPurePath(cwd + "/" + strings.Join(parts, "/"))
}
