package walk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sync/errgroup"
)

// Options shape a Walk. The zero value walks the whole tree, applies the
// ignore rules and skips dot-files.
type Options struct {
	// NoIgnore, when true, applies no ignore rules at all: no .gitignore,
	// no info/exclude, no global excludes file. ".git" is still skipped.
	NoIgnore bool
	// Hidden, when true, includes names starting with '.' (".git" itself
	// is always skipped).
	Hidden bool
	// Follow, when true, enters symbolic links to directories (on Linux;
	// elsewhere a link stays a file): with Cache.Jail set only links that
	// lead inside its roots (one that leads out is listed as a file), and
	// never a directory that is already being walked above the link (a
	// loop), which is skipped and told to OnSkip with ErrLoop. Without
	// it, no link is followed and a link is listed as a file.
	Follow bool
	// MaxDepth limits how deep the walk goes: 0 is unlimited, 1 lists only
	// the children of the starting directory.
	MaxDepth int
	// NoIndex, when true, leaves the repository's index out: a tracked file
	// that the ignore rules match is left out like an untracked one (git
	// ls-files -o --exclude-standard). By default it is listed, and so is
	// every directory on the way to it, as git ls-files -co
	// --exclude-standard lists it.
	NoIndex bool
	// Filter, if set, is asked about every entry the rules leave in, with
	// its path relative to the walk's start ('/'-separated) and whether it
	// is a directory; false leaves the entry out, and a directory left out
	// is not entered. It is called from several goroutines at once.
	Filter func(rel string, isDir bool) bool
	// Override, if set, is asked about every entry before the hidden and
	// ignore rules, with the same arguments as Filter, as ripgrep asks its
	// -g globs: Include lists the entry (and enters a directory) whatever
	// those rules say, Exclude leaves it out (a directory is not entered),
	// and Undecided leaves the entry to the rules and Filter. Entries
	// below an included directory are asked again, one by one. It is
	// called from several goroutines at once.
	Override func(rel string, isDir bool) Verdict
	// OnSkip, if set, is told of each directory skipped because it went
	// away while the walk ran (removed, or replaced by a file or a
	// symbolic link), as find and rg skip them; such a directory is not an
	// error of the walk. It is called from several goroutines at once.
	OnSkip func(path string, err error)
	// Batch, if set, is given the entries in runs, instead of Walk's fn
	// one at a time (Walk then never calls fn, which may be nil;
	// Host.WalkFunc calls it for a starting path that is a file): the same
	// entries fn would get, in the same order. A run holds entries of one
	// directory only, at most a part of it (some 800 to 1,000 entries: a
	// large directory comes in several runs, as it is read), and comes
	// after that directory's own entry; a starting path that is not a
	// directory comes alone. It is called from several goroutines at once
	// (one at a time in a sorted walk). The slice and the memory of its
	// Paths are the walk's again once Batch returns (a path is not a string
	// of its own, so that a walk that writes paths out allocates nothing
	// per entry): copy what is kept. An error stops the walk as fn's does.
	Batch func([]Entry) error
	// MaxEntries stops the walk after that many entries (0: unlimited):
	// exactly the first MaxEntries entries of the sorted order (see
	// After), or all of them when there are no more. A limit makes the
	// walk sequential and sorted: one goroutine, depth first, each
	// directory's entries in the byte order of their names, a directory's
	// entry followed at once by everything below it (so every entry's
	// parent directory comes before it). Memory stays bounded by the limit
	// (at most 16,384 names of one directory at a time), not by the size
	// of a directory: a directory larger than that is read again for its
	// next names.
	MaxEntries int
	// After, if set, resumes a sorted walk after that entry: a path
	// relative to the walk's start, names separated by '/' (as the last
	// entry of an earlier walk with the same options, relative to the
	// same start). Only the entries that sort after it are delivered, in
	// the order MaxEntries describes (paths compared name by name, each
	// name byte-wise); so a walk in pages (MaxEntries, then After set to
	// the last entry delivered) lists every entry that exists throughout
	// exactly once, whatever is created or removed between and during the
	// pages. The entry need not exist any more. Setting After makes the
	// walk sequential and sorted as MaxEntries does. An After that is
	// absolute or holds an empty, "." or ".." name gives ErrInvalidAfter.
	After string
	// Sorted, when true, makes the walk sequential and sorted as
	// MaxEntries does, without a limit: for a caller that stops the walk
	// itself (fn's error) after the first entries of its own choosing.
	Sorted bool
	// OnCut, if set, is called once, when the walk returns, if MaxEntries
	// cut it: the walk found an entry beyond the limit that it would have
	// delivered. A walk that delivers MaxEntries entries and finds no more
	// is not cut.
	OnCut func()
}

// Verdict is an Options.Override answer about one entry.
type Verdict int8

const (
	// Undecided leaves the entry to the hidden and ignore rules.
	Undecided Verdict = iota
	// Include lists the entry whatever the hidden and ignore rules say.
	Include
	// Exclude leaves the entry out; a directory is not entered.
	Exclude
)

// Entry is one file, symbolic link or directory found by a walk.
type Entry struct {
	// Path is the entry's path: the starting directory as given, a
	// separator, and the names below it.
	Path string
	// Depth is 1 for the children of the starting directory, 2 for theirs,
	// and so on; 0 only when the starting path is itself not a directory.
	Depth int
	// IsDir is true for a directory the walk entered (or, at MaxDepth,
	// would have); false for a file or a symbolic link of any kind.
	IsDir bool
}

// PartialError is what Walk returns when some directories could not be
// read (no permission, or no descriptor to be had even after backing off
// and retrying at the end) or a repository's index could not be used: the walk went on without them
// (without an index, the rules alone decide) and every other entry was
// delivered. Errs holds one *fs.PathError per such directory and one
// error wrapping ErrIndexUnsupported or ErrIndexCorrupt per such index;
// errors.Is(err, fs.ErrPermission) and the like see through it.
type PartialError struct {
	Errs []error
}

// Error lists the first few unreadable paths.
func (e *PartialError) Error() string {
	const show = 3
	var b strings.Builder
	fmt.Fprintf(&b, "walk: %d path", len(e.Errs))
	if len(e.Errs) != 1 {
		b.WriteString("s")
	}
	b.WriteString(" could not be read: ")
	for i, err := range e.Errs {
		if i == show {
			b.WriteString("; ...")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// Unwrap returns the per-directory errors.
func (e *PartialError) Unwrap() []error { return e.Errs }

// ErrLoop is what OnSkip is told for a directory that Follow would enter
// a second time: a symbolic link leads back to a directory above it.
var ErrLoop = errors.New("walk: file system loop (a link to a directory above it)")

// dirID is a directory's identity, for loop detection.
type dirID struct{ dev, ino uint64 }

// idChain is the identities of the directories from the walk's start down
// to one directory (immutable, shared by the directories below).
type idChain struct {
	parent *idChain
	id     dirID
}

func (c *idChain) has(id dirID) bool {
	for ; c != nil; c = c.parent {
		if c.id == id {
			return true
		}
	}
	return false
}

// errNotDir is the error for a subdirectory that is no longer one.
var errNotDir = errors.New("not a directory")

// fdRetries and fdBackoff bound the waiting for a descriptor when opening
// a directory fails with EMFILE or ENFILE: a few short sleeps (1, 2, 4, 8,
// 16 ms: other goroutines close theirs as their directories end), then the
// directory is put off to the end of the walk, when the walk's goroutines
// hold none but the root's, and opened again from the root, with the same
// retries longer (up to fdLastBackoff each).
const (
	fdRetries     = 5
	fdBackoff     = time.Millisecond
	fdLastBackoff = 100 * time.Millisecond
)

// vanished reports an error that says a directory went away mid-walk.
func vanished(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) || errors.Is(err, errNotDir)
}

// outOfFDs reports an error that says no descriptor was to be had.
func outOfFDs(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// A walk starts on one goroutine and fans out to walkParallelism
// goroutines only once the tree proves large: after seqEntries entries, or
// seqTime, or a slow directory read (a cold cache), whichever comes first.
// Fanning out costs CPU on two counts, goroutines that start and end per
// directory and the scheduler's waking of idle threads to run them, and
// on a tree read from a warm cache in a few milliseconds it buys little:
// one goroutine walks a 10,000-file tree with 5-15% less CPU, and a
// GOROOT copy (17,000 entries) with a quarter less, in about the same
// wall time (ADR 0010, decision 7). A tree larger than that
// is walked by one goroutine for at most seqTime or seqEntries before
// the others join, a few percent of its walk. seqTime is for a walk slow
// for another reason than its size or a cold cache (costly rules, say);
// it is wall time, so it is kept above what a small walk takes on a
// loaded machine, where fanning out would not buy time either.
const (
	seqEntries = 20000
	seqTime    = 25 * time.Millisecond
)

// fanOutEntries, fanOutTime and slowRead are seqEntries, seqTime and
// slowSyscall, and startCold starts a walk with blocking-aware system
// calls (as after a slow read):
// variables for the tests only, which lower the thresholds so that their
// small trees fan out too, and walk with both kinds of calls.
var (
	fanOutEntries = seqEntries
	fanOutTime    = seqTime
	startCold     = false
	slowRead      = slowSyscall
)

// slowSyscall is how long a directory read may take before the walk
// takes its cache for cold (see rawOpenat in dir_linux.go).
const slowSyscall = time.Millisecond

// walkParallelism is how many goroutines besides the caller's read
// directories: twice the usable CPUs, because a goroutine blocked in a
// directory read on a cold cache leaves its CPU to the others.
func walkParallelism() int { return 2 * runtime.GOMAXPROCS(0) }

// Walk lists the tree under root (an absolute path; Host.Walk passes the
// canonical path the jail resolved) and calls fn once per entry. Without
// opts.MaxEntries, opts.After or opts.Sorted it calls fn from several
// goroutines at once, in no particular order: only a directory's entry is
// delivered before anything below it. With any of them it calls fn from
// one goroutine, in path order (see Options.MaxEntries). Either way a
// directory is read a part at a time (some 800 entries) and each part is
// delivered before the next is read, so a directory of a million files
// is never held whole and its first entries come at once. Ignored
// entries, ".git", dot-files (unless opts.Hidden), FIFOs, sockets and
// devices are skipped; ignored directories are not entered.
//
// Walk returns nil when the whole tree was read (or MaxEntries cut it:
// OnCut says so); fn's first non-nil error
// (the walk stops soon after, and other goroutines may deliver a few more
// entries meanwhile); ctx.Err() if ctx ends first; a *PartialError when
// only some directories could not be read; ErrInvalidAfter for a bad
// opts.After; or an error when root itself cannot be opened. When root
// is not a directory fn gets root itself, at depth 0.
func (c *Cache) Walk(ctx context.Context, root string, opts Options, fn func(Entry) error) error {
	return c.walk(ctx, root, nil, opts, fn)
}

// WalkDir is Walk from dir, an open directory whose path is root: the walk
// reads dir itself and (on Linux) opens everything below it relative to it,
// so a caller that opened dir safely (through a jail, say) knows that no
// path string is opened again on the way down. dir stays the caller's to
// close. root names the entries and locates the ignore files above dir.
func (c *Cache) WalkDir(ctx context.Context, dir *os.File, root string, opts Options, fn func(Entry) error) error {
	return c.walk(ctx, root, dir, opts, fn)
}

func (c *Cache) walk(ctx context.Context, root string, dir *os.File, opts Options, fn func(Entry) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !filepath.IsAbs(root) {
		return fmt.Errorf("walk: %q is not an absolute path", root)
	}
	root = filepath.Clean(root)
	if opts.Batch != nil {
		fn = func(e Entry) error { return opts.Batch([]Entry{e}) } // root itself, when not a directory
	}
	after, err := splitAfter(opts.After)
	if err != nil {
		return err
	}
	w := &walker{root: root, rootH: invalidHandle, c: c, opts: opts, fn: fn, seq: opts.MaxEntries > 0 || after != nil || opts.Sorted, after: after, ctx: ctx, start: time.Now()}
	stop := context.AfterFunc(ctx, func() { w.halt(ctx.Err()) })
	defer stop()

	if c.openHook != nil {
		if err := c.openHook(root); err != nil {
			return err
		}
	}
	var h dirHandle
	if dir != nil {
		h, err = handleFromFile(dir, root)
		if err != nil {
			return err
		}
	} else if h, err = openRoot(root); err != nil {
		if k := statKey(root, true); k.exists && !k.isDir {
			if err := fn(Entry{Path: root}); err != nil {
				return err
			}
			return nil
		}
		return err
	}
	pctx := noRepo
	if !opts.NoIgnore {
		c.mu.Lock()
		now := c.now()
		c.sync(false) // use inotify if IsIgnored opened it, open none
		cut := false
		if parent := filepath.Dir(root); parent != root {
			ps := c.dirStateFor(ctx, parent, now)
			pctx, cut = ps.ctx, ps.cut
		}
		c.mu.Unlock()
		if cut {
			w.halt(ctx.Err()) // the rules above root were not all read
		}
		w.configFault(pctx.repo)
	}
	if !w.seq {
		w.g.SetLimit(walkParallelism())
		w.seqLeft, w.seqFor = fanOutEntries, fanOutTime
	}
	if startCold {
		w.cold.Store(true)
	}
	// A second descriptor for the root, to reopen from it the directories
	// put off for want of descriptors.
	if rh, err := h.dup(); err == nil {
		w.rootH = rh
		defer rh.close()
	}
	if w.seq {
		w.sortedDir(h, root, filepath.Base(root), 0, pctx, nil, upIndex{}, w.after)
	} else {
		w.dir(h, root, filepath.Base(root), 0, pctx, nil, upIndex{})
	}
	_ = w.g.Wait()
	w.finishDeferred()
	w.bg.Wait()
	if w.cut.Load() && opts.OnCut != nil {
		opts.OnCut()
	}
	if w.fatal != nil {
		return w.fatal
	}
	if len(w.errs) > 0 {
		return &PartialError{Errs: w.errs}
	}
	return nil
}

// walker is one Walk in progress.
type walker struct {
	ctx   context.Context
	root  string    // the walk's start, clean
	rootH dirHandle // a descriptor of root's own, for finishDeferred (-1 or "": none)
	c     *Cache
	opts  Options
	fn    func(Entry) error
	seq   bool     // one goroutine, sorted (MaxEntries or After; see sorted.go)
	after []string // Options.After, split into names
	g     errgroup.Group

	stopped atomic.Bool
	count   atomic.Int64
	cut     atomic.Bool // MaxEntries stopped the walk before an entry it would have delivered

	fdPressure atomic.Bool // an open failed for want of descriptors: start no goroutine

	// par: the walk has fanned out (see seqEntries); until then one
	// goroutine walks, and only it touches seqLeft.
	par     atomic.Bool
	seqLeft int           // entries read before par is set
	seqFor  time.Duration // how long after start par is set at the latest
	start   time.Time
	// cold: a directory read took longer than slowSyscall; the walk's
	// system calls are no longer raw ones (see rawOpenat).
	cold atomic.Bool

	mu       sync.Mutex
	deferred []deferredDir // put off for want of descriptors
	fatal    error         // why the walk stopped early
	errs     []error       // directories that could not be read, indexes that could not be used
	indexes  map[*repoInfo]*indexSlot
	bg       sync.WaitGroup // prefetchIndex's reads
}

// indexOf is the index of r for this walk (nil with NoIndex, or when r
// has none or one that cannot be used), read once per walk and repository
// and only when an answer depends on it: the first time the rules ignore
// an entry of r, since what they leave in is listed whatever the index
// says. A walk of a tree the rules ignore nothing in reads no index at
// all. The goroutines that need it meanwhile wait for that one read
// rather than read it again. An index that cannot be used is reported
// once and the walk goes on without it.
func (w *walker) indexOf(r *repoInfo) *gitIndex {
	if w.opts.NoIndex || r == nil {
		return nil
	}
	w.mu.Lock()
	s := w.indexes[r]
	if s == nil {
		if w.indexes == nil {
			w.indexes = map[*repoInfo]*indexSlot{}
		}
		s = &indexSlot{}
		w.indexes[r] = s
	}
	w.mu.Unlock()
	s.once.Do(func() {
		w.c.mu.Lock()
		ix := w.c.indexFor(w.ctx, r, w.c.now())
		w.c.mu.Unlock()
		if ix != nil && ix.err != nil {
			w.report(ix.err)
			ix = nil
		}
		s.ix = ix
	})
	return s.ix
}

// prefetchIndex starts reading ctx's repository index in the background
// when rules are in force there (the starting directory's, or a
// repository root's once its .gitignore is read): then some entry is
// likely to be ignored and to need the index, and the walk goes on
// meanwhile instead of every goroutine waiting for it at the first
// ignored entry (a 100,000-entry index is 10 MB to read, check and
// decode). Where no rule is in force the index is left to indexOf, and a
// tree the rules ignore nothing in reads none. Not for a sequential walk
// (MaxEntries), which may stop after a few entries.
func (w *walker) prefetchIndex(ctx *dirCtx) {
	r := ctx.repo
	if w.seq || w.opts.NoIndex || r == nil || ctx.trackedOnly || w.stopped.Load() {
		return
	}
	if ctx.chain == nil && r.exclude.empty() && r.global.empty() {
		return
	}
	w.mu.Lock()
	_, started := w.indexes[r]
	if !started {
		if w.indexes == nil {
			w.indexes = map[*repoInfo]*indexSlot{}
		}
		w.indexes[r] = &indexSlot{}
	}
	w.mu.Unlock()
	if !started {
		w.bg.Add(1)
		go func() {
			defer w.bg.Done()
			w.indexOf(r)
		}()
	}
}

// indexSlot is one repository's index for one walk, read by the first
// goroutine that needs it.
type indexSlot struct {
	once sync.Once
	ix   *gitIndex
}

// halt stops the walk for err (the first reason wins).
func (w *walker) halt(err error) {
	w.mu.Lock()
	if w.fatal == nil {
		w.fatal = err
	}
	w.mu.Unlock()
	w.stopped.Store(true)
}

// problem records that path could not be read: a directory that went
// away is skipped (told to OnSkip), anything else is reported.
func (w *walker) problem(path string, err error) {
	if vanished(err) {
		if w.opts.OnSkip != nil {
			w.opts.OnSkip(path, err)
		}
		return
	}
	w.report(err)
}

// deferredDir is a subdirectory put off for want of descriptors.
type deferredDir struct {
	sd    pendingDir
	depth int
	ctx   *dirCtx
	chain *idChain
	up    upIndex
}

// upIndex is a directory's part of its repository's index (see indexDir),
// handed to its subdirectories, which find theirs in it rather than in the
// whole index. The zero value is none (the directory needed no look-up).
type upIndex struct {
	repo *repoInfo
	part indexDir
}

// openSub opens the subdirectory sd of h, waiting briefly for a
// descriptor when there is none (see fdRetries).
func (w *walker) openSub(h dirHandle, sd pendingDir, last time.Duration) (dirHandle, error) {
	for attempt := 0; ; attempt++ {
		var err error
		if w.c.openHook != nil {
			err = w.c.openHook(sd.path)
		}
		var ch dirHandle
		if err == nil {
			ch, err = openSubdir(h, sd.name, sd.path, !w.cold.Load())
		}
		if err == nil || !outOfFDs(err) || attempt == fdRetries || w.stopped.Load() {
			return ch, err
		}
		w.fdPressure.Store(true)
		time.Sleep(min(fdBackoff<<attempt, last))
	}
}

// finishDeferred walks the directories put off for want of descriptors,
// one at a time, now that the walk's goroutines have ended: each is opened
// from the root's descriptor, one component at a time, as the walk opened
// it (never by a path string).
func (w *walker) finishDeferred() {
	for {
		w.mu.Lock()
		if len(w.deferred) == 0 || w.stopped.Load() {
			w.mu.Unlock()
			return
		}
		d := w.deferred[len(w.deferred)-1]
		w.deferred = w.deferred[:len(w.deferred)-1]
		w.mu.Unlock()
		ch, err := w.reopen(d.sd)
		if err != nil {
			w.problem(d.sd.path, err)
			continue
		}
		w.dir(ch, d.sd.path, d.sd.name, d.depth, d.ctx, d.chain, d.up)
		_ = w.g.Wait()
	}
}

// reopen opens the directory at path (below the walk's root) from the
// root's descriptor, one component at a time without following links.
func (w *walker) reopen(sd pendingDir) (dirHandle, error) {
	rel := strings.TrimLeft(sd.path[len(w.root):], string(os.PathSeparator))
	parts := strings.Split(rel, string(os.PathSeparator))
	h, err := w.rootH.dup()
	if err != nil {
		return h, err
	}
	p := w.root
	for _, name := range parts {
		p = joinPath(p, name)
		ch, err := w.openSub(h, pendingDir{name: name, path: p}, fdLastBackoff)
		h.close()
		if err != nil {
			return ch, err
		}
		h = ch
	}
	return h, nil
}

// configFault reports the configuration of r (the repository whose rules
// the walk takes up) when git would refuse it: the walk goes on by what
// was read before the fault, as for an index that cannot be used. A
// reading cut short by the walk's context ends the walk with the
// context's error.
func (w *walker) configFault(r *repoInfo) {
	switch {
	case r == nil || r.cfgErr == nil:
	case r.interrupted:
		w.halt(w.ctx.Err())
	default:
		w.report(r.cfgErr)
	}
}

// report records a directory that could not be read.
func (w *walker) report(err error) {
	w.mu.Lock()
	w.errs = append(w.errs, err)
	w.mu.Unlock()
}

// pendingDir is a subdirectory to enter once its parent's entries are out.
type pendingDir struct {
	name        string // its own string, not a view into the parent's buffer
	path        string
	trackedOnly bool      // ignored, entered for the tracked files below it
	linked      dirHandle // for a followed link: its directory, already open
	isLink      bool
}

var dirBufPool = sync.Pool{New: func() any { return newDirBuf() }}

// batchBuf is one directory's entries for Options.Batch: the entries and
// the bytes of the paths that are not kept past the call (a subdirectory's
// path is its own string: the walk enters it later).
type batchBuf struct {
	ents  []Entry
	paths []byte
}

var batchBufPool = sync.Pool{New: func() any { return &batchBuf{paths: make([]byte, 0, 16<<10)} }}

// dir reads the open directory h (path abs, last component name, at
// depth), whose parent's rules are pctx and part of the index up,
// delivers its entries and enters its subdirectories. It closes h. A
// directory is read and delivered a part at a time (readChunk: some 800
// entries), so a directory of a million files is held a part at a time
// and its first entries go out at once; only its subdirectories are kept
// until its last entry is out.
func (w *walker) dir(h dirHandle, abs, name string, depth int, pctx *dirCtx, chain *idChain, up upIndex) {
	if w.stopped.Load() {
		h.close()
		return
	}
	chain, ok := w.enterChain(h, abs, chain)
	if !ok {
		return
	}
	buf := dirBufPool.Get().(*dirBuf)
	ents, eof, err := w.read(h, abs, buf)
	if err != nil {
		w.problem(abs, err)
	}
	d := w.newDirRun(h, abs, name, depth, pctx, up, ents, eof)
	var subdirs []pendingDir
	var bb *batchBuf // the entries for opts.Batch
	if w.opts.Batch != nil {
		bb = batchBufPool.Get().(*batchBuf)
	}
	for {
		more := d.deliver(ents, bb, &subdirs)
		if bb != nil {
			w.flushBatch(bb)
		}
		if !more || eof || w.stopped.Load() {
			break
		}
		if len(subdirs) >= maxPendingSubdirs {
			// A directory of many subdirectories: enter those found so
			// far before reading on, so that what is kept of it stays
			// bounded (an unlimited walk keeps no order).
			w.enterSubdirs(h, d, subdirs, depth, chain)
			clear(subdirs)
			subdirs = subdirs[:0]
		}
		if ents, eof, err = w.read(h, abs, buf); err != nil {
			w.problem(abs, err)
		}
	}
	if bb != nil && cap(bb.paths) <= 1<<20 { // one huge part's paths are not kept
		batchBufPool.Put(bb)
	}
	buf.release()
	dirBufPool.Put(buf)
	w.enterSubdirs(h, d, subdirs, depth, chain)
	h.closeQuick(!w.cold.Load())
}

// pendingHook, when set (by a test that runs alone), is told how many
// subdirectories a directory's walk holds each time it enters them.
var pendingHook func(n int)

// maxPendingSubdirs is the most subdirectories of one directory that an
// unlimited walk keeps to enter (some 100 bytes each), and one part of
// the directory more, before it enters them, the directory still open,
// and reads on: a directory of a million
// subdirectories was held whole, about 100 MiB.
const maxPendingSubdirs = 4096

// enterSubdirs walks subdirs, subdirectories of d (h, at depth), each on
// a goroutine of its own when one is free, the last on this one.
func (w *walker) enterSubdirs(h dirHandle, d *dirRun, subdirs []pendingDir, depth int, chain *idChain) {
	if pendingHook != nil {
		pendingHook(len(subdirs))
	}
	up := d.upIndex()
	childDepth := depth + 1
	for k, sd := range subdirs {
		if w.stopped.Load() {
			for _, rest := range subdirs[k:] {
				if rest.isLink {
					rest.linked.close() // opened for Follow, never entered
				}
			}
			break
		}
		sctx := d.subCtx(sd)
		ch, err := sd.linked, error(nil)
		if !sd.isLink {
			ch, err = w.openSub(h, sd, fdBackoff<<fdRetries)
		}
		if err != nil {
			if outOfFDs(err) && w.rootH != invalidHandle {
				w.mu.Lock()
				w.deferred = append(w.deferred, deferredDir{sd: sd, depth: childDepth, ctx: sctx, chain: chain, up: up})
				w.mu.Unlock()
				continue
			}
			w.problem(sd.path, err)
			continue
		}
		// The last subdirectory is this goroutine's own: handing it to a new
		// one would only trade this goroutine's end for another's start.
		if k < len(subdirs)-1 && w.par.Load() && !w.fdPressure.Load() && w.g.TryGo(func() error { w.dir(ch, sd.path, sd.name, childDepth, sctx, chain, up); return nil }) {
			continue
		}
		w.dir(ch, sd.path, sd.name, childDepth, sctx, chain, up)
	}
}

// enterChain is chain with h's identity added (Follow only). ok false:
// h is a directory already being walked above (a loop), told to OnSkip;
// h is closed.
func (w *walker) enterChain(h dirHandle, abs string, chain *idChain) (_ *idChain, ok bool) {
	if !w.opts.Follow {
		return chain, true
	}
	if id, ok := dirIdentity(h); ok {
		if chain.has(id) {
			h.close()
			if w.opts.OnSkip != nil {
				w.opts.OnSkip(abs, &os.PathError{Op: "walk", Path: abs, Err: ErrLoop})
			}
			return chain, false
		}
		chain = &idChain{parent: chain, id: id}
	}
	return chain, true
}

// read is readChunk for the walk: it notes a slow read (the walk's calls
// are no longer raw ones after it) and, until the walk fans out, counts
// the entries and the time towards fanning out (see seqEntries).
func (w *walker) read(h dirHandle, abs string, buf *dirBuf) ([]rawEntry, bool, error) {
	quick := !w.cold.Load()
	ents, eof, at, slow, err := readChunk(h, abs, buf, quick, w.start)
	if slow {
		w.cold.Store(true)
	}
	if !w.seq && !w.par.Load() {
		w.seqLeft -= len(ents)
		if !quick {
			at = time.Since(w.start)
		}
		if w.seqLeft <= 0 || slow || at > w.seqFor {
			w.par.Store(true)
		}
	}
	return ents, eof, err
}

// flushBatch hands bb's entries to opts.Batch (unless the walk stopped)
// and empties bb.
func (w *walker) flushBatch(bb *batchBuf) {
	if len(bb.ents) > 0 && !w.stopped.Load() {
		if err := w.opts.Batch(bb.ents); err != nil {
			w.halt(err)
		}
	}
	clear(bb.ents) // drop the strings: the pool must not keep them alive
	bb.ents, bb.paths = bb.ents[:0], bb.paths[:0]
}

// dirRun is one directory being read: what judging its entries needs.
type dirRun struct {
	w          *walker
	h          dirHandle
	abs, name  string
	prefix     string // abs and a separator
	ctx        *dirCtx
	up         upIndex
	fold       bool
	childDepth int
	descend    bool       // entries that are directories are entered
	rf         ruleFilter // what the rules in force here can match at all
	ix         indexDir   // the part of ctx.repo's index below this directory, once an entry needs it
	ixRead     bool
	ixOK       bool
	scratch    []byte
}

// newDirRun sets up the reading of directory h: its rules are pctx's plus
// its own .gitignore, or a nested repository's afresh. first is the first
// part of its entries and whole tells that it is all of them: then whether
// it holds .git and .gitignore is read from them; otherwise (a large
// directory, read a part at a time) the two names are looked up.
func (w *walker) newDirRun(h dirHandle, abs, name string, depth int, pctx *dirCtx, up upIndex, first []rawEntry, whole bool) *dirRun {
	ctx := noRepo
	if !w.opts.NoIgnore {
		hasGit, hasIgnore := false, false
		if whole {
			for i := range first {
				switch first[i].name {
				case ".git":
					hasGit = true
				case ".gitignore":
					hasIgnore = true
				}
			}
		} else {
			hasGit, hasIgnore = existsAt(h, ".git"), existsAt(h, ".gitignore")
		}
		ctx = pctx.child(name)
		if hasGit && !ctx.trackedOnly {
			w.c.mu.Lock()
			now := w.c.now()
			r := w.c.repoFor(w.ctx, abs, now)
			if r.valid {
				ctx = repoRootCtx(r)
			}
			w.c.mu.Unlock()
			w.configFault(ctx.repo)
		}
		if hasIgnore && ctx.repo != nil && !ctx.trackedOnly {
			ipath := joinPath(abs, ".gitignore")
			if data, err := w.readIgnore(h, ipath); err == nil {
				if rs, err := parseRulesCtx(w.ctx, data, ipath, ctx.rel, ctx.repo.fold); err != nil {
					w.halt(err)
				} else if !rs.empty() {
					ctx = ctx.withRules(rs)
				}
			}
		}
		if depth == 0 || hasGit {
			w.prefetchIndex(ctx)
		}
	}
	d := &dirRun{w: w, h: h, abs: abs, name: name, ctx: ctx, up: up, childDepth: depth + 1}
	d.fold = ctx.repo != nil && ctx.repo.fold
	d.prefix = abs + string(os.PathSeparator)
	if strings.HasSuffix(abs, string(os.PathSeparator)) {
		d.prefix = abs
	}
	d.descend = w.opts.MaxDepth <= 0 || d.childDepth < w.opts.MaxDepth
	if ctx.repo != nil && !ctx.trackedOnly {
		d.rf = filterFor(ctx)
	}
	return d
}

// pick is what judge decided about an entry it leaves in.
type pick struct {
	isDir        bool
	enterTracked bool      // an ignored directory holding tracked files
	linked       dirHandle // for a followed link to a directory: that directory, open
}

// judge decides whether the entry n (of type t) of d is listed: the
// hidden rule, Override, the ignore rules and the index, and Filter, in
// that order. A followed link to a directory is opened (pick.linked, the
// caller's to close).
func (d *dirRun) judge(n string, t entryType) (pick, bool) {
	w := d.w
	p := pick{linked: invalidHandle}
	if n == ".git" || (d.fold && strings.EqualFold(n, ".git")) {
		return p, false
	}
	if n[0] == '.' && !w.opts.Hidden && w.opts.Override == nil {
		return p, false
	}
	if t == typeUnknown {
		t = typeAt(d.h, n)
	}
	if t == typeOther {
		return p, false
	}
	p.isDir = t == typeDir
	if t == typeSymlink && w.opts.Follow {
		if lh, ok := openLinkedDir(w.c.Jail, d.h, n, d.prefix+n); ok {
			p.linked, p.isDir = lh, true
		}
	}
	drop := func() (pick, bool) {
		if p.linked != invalidHandle {
			p.linked.close()
		}
		return pick{linked: invalidHandle}, false
	}
	verdict, rel := Undecided, "" // rel: the entry's path for Override and Filter, made once
	if w.opts.Override != nil {
		rel = w.relOf(d.prefix + n)
		verdict = w.opts.Override(rel, p.isDir)
		if verdict == Exclude || verdict == Undecided && n[0] == '.' && !w.opts.Hidden {
			return drop()
		}
	}
	// An Included entry is listed whatever the rules say; below it the
	// rules apply again, entry by entry.
	ctx := d.ctx
	if verdict != Include && ctx.repo != nil && (ctx.trackedOnly || d.rf.mayMatch(n) && ctx.ignored(n, p.isDir, &d.scratch)) {
		// Ignored (or below an ignored directory): only what the index
		// tracks is listed.
		if !d.ixRead {
			full := w.indexOf(ctx.repo)
			d.ixRead, d.ixOK = true, full != nil
			if d.ixOK && d.up.repo == ctx.repo {
				// The same repository as the parent's (ctx.rel is the
				// parent's and name): the one index of the walk.
				d.ix = d.up.part.sub(d.name)
			} else {
				d.ix = full.dir(ctx.rel)
			}
		}
		if !d.ixOK {
			return drop()
		}
		if p.isDir && !d.ix.holds(n) || !p.isDir && !d.ix.tracked(n) {
			return drop()
		}
		p.enterTracked = p.isDir
	}
	if verdict == Undecided && w.opts.Filter != nil {
		if rel == "" {
			rel = w.relOf(d.prefix + n)
		}
		if !w.opts.Filter(rel, p.isDir) {
			return drop()
		}
	}
	return p, true
}

// deliver judges the entries ents of d and delivers those it leaves in
// (to fn, or into bb for Batch), adding the directories to enter to
// subdirs. false: the walk stopped.
func (d *dirRun) deliver(ents []rawEntry, bb *batchBuf, subdirs *[]pendingDir) bool {
	w := d.w
	done := w.ctx.Done() // asked once: the same channel every time
	for i := range ents {
		if i&127 == 127 {
			// Also between entries the rules leave out: a directory of
			// a million ignored names must not outlast a cancel.
			if w.stopped.Load() {
				return false
			}
			if err := w.ctx.Err(); err != nil {
				w.halt(err)
				return false
			}
		}
		n := ents[i].name
		p, ok := d.judge(n, ents[i].typ)
		if !ok {
			continue
		}
		stop := w.stopped.Load()
		if !stop {
			select {
			case <-done:
				// Seen at once, not when the AfterFunc's goroutine runs.
				w.halt(w.ctx.Err())
				stop = true
			default:
			}
		}
		if stop {
			if p.linked != invalidHandle {
				p.linked.close()
			}
			return false
		}
		enter := p.isDir && d.descend
		var path string
		if bb != nil && !enter {
			// Lent to Batch: the walk's memory again once it returns.
			off := len(bb.paths)
			bb.paths = append(append(bb.paths, d.prefix...), n...)
			path = unsafe.String(&bb.paths[off], len(bb.paths)-off)
			bb.ents = append(bb.ents, Entry{Path: path, Depth: d.childDepth, IsDir: p.isDir})
		} else {
			path = d.prefix + n
			if bb != nil {
				bb.ents = append(bb.ents, Entry{Path: path, Depth: d.childDepth, IsDir: p.isDir})
			} else if err := w.fn(Entry{Path: path, Depth: d.childDepth, IsDir: p.isDir}); err != nil {
				w.halt(err)
				if p.linked != invalidHandle {
					p.linked.close()
				}
				return false
			}
		}
		if enter {
			*subdirs = append(*subdirs, pendingDir{name: path[len(d.prefix):], path: path, trackedOnly: p.enterTracked, linked: p.linked, isLink: p.linked != invalidHandle})
		} else if p.linked != invalidHandle {
			p.linked.close()
		}
	}
	return true
}

// upIndex is d's part of the index for its subdirectories.
func (d *dirRun) upIndex() upIndex {
	if d.ixOK {
		return upIndex{repo: d.ctx.repo, part: d.ix}
	}
	return upIndex{}
}

// subCtx is the rules for the subdirectory sd of d.
func (d *dirRun) subCtx(sd pendingDir) *dirCtx {
	if sd.trackedOnly && !d.ctx.trackedOnly {
		y := *d.ctx
		y.trackedOnly = true
		return &y
	}
	return d.ctx
}

// relOf is p (an entry's path) relative to the walk's start, '/'-separated.
func (w *walker) relOf(p string) string {
	rel := strings.TrimLeft(p[len(w.root):], string(os.PathSeparator))
	return filepath.ToSlash(rel)
}

// joinPath appends name to dir with one separator.
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, string(os.PathSeparator)) {
		return dir + name
	}
	return dir + string(os.PathSeparator) + name
}

// entryType is what a directory listing says an entry is.
type entryType uint8

const (
	typeUnknown entryType = iota // the file system did not say: stat it
	typeFile
	typeDir
	typeSymlink
	typeOther // FIFO, socket, device: never listed, as git lists none
)

// rawEntry is one name from a directory listing.
type rawEntry struct {
	name string
	typ  entryType
}
