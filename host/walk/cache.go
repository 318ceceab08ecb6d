package walk

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// RecheckInterval is how long IsIgnored and the start of a Walk trust what
// they last learnt about an ignore file, a config file or a ".git" entry
// before they stat it again, where nothing else tells them of a change: off
// Linux, and on Linux for a file whose directories could not be watched
// (see Cache). A stat costs about 2µs on the VMs this was measured on,
// against about 0.5µs for a whole warm IsIgnored answer, so re-checking on
// every call would make IsIgnored several times slower; re-checking once a
// millisecond costs under 1% of a busy loop, and an edit is seen by every
// call that starts a millisecond after it, well before an agent's next
// turn. Cache.Recheck overrides it.
const RecheckInterval = time.Millisecond

// racyWindow: a file whose modification time is this close to the moment
// it was stat'ed may be rewritten later with the same size and the same
// (coarse) time stamp, so its identity cannot be trusted: its contents are
// re-read and compared at every re-check until it is older (under inotify a
// re-check follows every event about it, so the rewrite is still caught). Two seconds
// covers the coarsest time stamps in use (FAT); ext4, XFS and tmpfs tick in
// jiffies (a few milliseconds).
const racyWindow = 2 * time.Second

// maxCachedDirs bounds the per-directory memo of IsIgnored; past it the memo
// is dropped and rebuilt on demand (a long session touching many directories
// stays bounded in memory).
const maxCachedDirs = 1 << 16

// maxCacheBytes bounds what the Cache keeps of the paths it was asked
// about: the path strings of every remembered file and directory and a
// fixed cost per entry for the structures around them (the contents of
// the files are not counted: there is one set per real ignore, config and
// index file, which the paths asked about cannot multiply). Past
// it everything is dropped (the files, repositories and directory memos,
// and on Linux the inotify watches with their names) and rebuilt on demand,
// at the cost of a few stats per directory met again. 32 MiB holds the
// state of a 120,000-file checkout several times over (about 4,300
// directories), while paths an attacker makes up cannot grow the heap past
// it: a directory that does not exist is never remembered (IsIgnored
// judges the missing part of a path from the deepest directory that does
// exist, without a cache entry), and real directories count their path
// bytes as they are added.
const maxCacheBytes = 32 << 20

// entryOverhead is what cacheCost adds per remembered file or directory
// for the map slot, the struct and the strings' headers: an over-estimate
// (the structs are under 200 bytes), so the bound holds.
const entryOverhead = 384

// Cache remembers compiled ignore rules, repositories and directory
// contexts between calls to Walk and IsIgnored, and notices when a file it
// depends on changes (an edited .gitignore, info/exclude, global excludes
// file or git config), so an edit takes effect without a new Cache.
//
// How it notices: on Linux, the first IsIgnored opens an inotify
// descriptor (non-blocking, close-on-exec) and watches every directory on
// the way to each file the Cache depends on, present or not, so that an
// edit, a creation, a deletion or a rename queues an event; each IsIgnored
// then starts with one system call that does not wait, asking whether
// anything is queued on that descriptor (an epoll_pwait with a zero
// timeout on an epoll set holding it alone; a non-blocking read where no
// epoll set could be had), and, when nothing was, trusts everything it
// knows without a single stat.
// After an event, or a queue overflow, what it knows is re-checked by
// stat (identity, size, modification and change time) once. A change is
// seen by every call that starts after the system call making it has
// returned: the kernel queues the event before that. A call running
// concurrently with the change may or may not see it (no worse than the
// Recheck interval that holds elsewhere).
//
// Where inotify cannot vouch for a file it is re-checked by stat at most
// once per Recheck interval instead: off Linux; when inotify_init1 fails
// (max_user_instances) or a watch cannot be added (max_user_watches,
// maxWatches, no permission); when a symbolic link lies on the way to the
// file or is the file (for the config and excludes files git follows); and
// after Close. Changes inotify does not report are not seen by a Cache
// that trusts it: a file system mounted over a watched directory, and
// changes made on another machine to a network file system.
//
// Walk never opens the descriptor (a walk reads the .gitignore files it
// meets afresh); it uses it when IsIgnored has.
//
// The zero value is ready to use. A Cache is safe for concurrent use and
// must not be copied after first use. Close releases the descriptor; a
// Cache dropped without Close has it closed when the Cache is collected.
type Cache struct {
	// Getenv, if set, replaces os.Getenv for the variables git consults
	// (HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM,
	// GIT_CONFIG_NOSYSTEM, GIT_CONFIG_COUNT and its KEY_n/VALUE_n).
	Getenv func(string) string
	// Recheck is how long a file's last check is trusted when inotify does
	// not vouch for it: 0 means RecheckInterval, a negative value means
	// re-check every file on every call (and use no inotify at all).
	Recheck time.Duration
	// NoWatch, when true, keeps the Cache from opening an inotify
	// descriptor: files are re-checked by stat once per Recheck interval
	// (once per Check batch at most). A process that answers one question
	// and exits (a CLI call) spends more setting watches up than they save;
	// a long-lived Cache wants them. Set it before first use.
	NoWatch bool
	// Jail, when set, confines what the Cache reads: a file inside the
	// roots is opened through Jail.Open (links followed only inside the
	// roots), and a path named by a configuration file inside the roots
	// (core.excludesFile, include.path, includeIf's path) must itself lie
	// inside them, or it is taken as a file that does not exist. Files
	// outside the roots that the user's own configuration names are
	// trusted and read by path. See Jail for the details. Set it before
	// first use.
	Jail Jail

	mu    sync.Mutex
	epoch time.Time
	files map[fileID]*cachedFile
	repos map[string]*repoInfo
	dirs  map[string]*dirState
	// listings are the sorted listings of large directories that sorted
	// walks page through (listing.go), at most maxListingBytes, locked by
	// their own mutex, and counted in the Cache's bound: the rest may
	// hold what they leave (limit).
	listings listingCache
	// real is the warm path's memo (judgeRel): for each top, the states
	// of c.dirs that judge found vouched for from that top (realGen),
	// keyed by the directory relative to top, so that a question given as
	// top and relative path finds its parent with no key to build.
	real []realTop
	// spareFiles is a dirFiles no state holds, for dirFilesOf to use
	// next (nil: none).
	spareFiles *dirFiles
	// lastReal is the state judgeRel found last, so that a run of
	// questions about one directory (sorted paths: siblings come
	// together) looks it up once; it is checked like any state found, and
	// its realTop/realKey say which question it answers.
	lastReal *dirState
	// bytes is what the maps above hold, by cacheCost, and the merged
	// matchers of the chains they hold (flatBytes of it); see
	// maxCacheBytes.
	bytes     int
	flatBytes int
	// bigRules is the cost of the largest compiled rule set charged since
	// the last flush (see chargeRules).
	bigRules int
	// flushes counts the times the bound dropped everything, for tests.
	flushes int
	// maxBytes, when set (by tests), replaces maxCacheBytes.
	maxBytes int

	// watch reports changes (inotify on Linux). gen is bumped whenever it
	// reports one: what was validated under inotify at an older gen is
	// re-checked by stat.
	watch watcher
	gen   uint64

	// watchHook, when set (by tests), is consulted before inotify_init1
	// (with "") and before each inotify_add_watch (with the directory); a
	// non-nil error is taken as that call failing.
	watchHook func(dir string) error
	// statCalls counts the files re-checked by stat, for tests.
	statCalls int

	// openHook, when set (by tests), is consulted before a directory is
	// opened during a walk; a non-nil error is reported as that
	// directory's error.
	openHook func(path string) error
}

func (c *Cache) getenv(k string) string {
	if c.Getenv != nil {
		return c.Getenv(k)
	}
	return os.Getenv(k)
}

// now returns monotonic nanoseconds since the cache's epoch (never 0).
// Callers hold c.mu.
func (c *Cache) now() int64 {
	if c.epoch.IsZero() {
		c.epoch = time.Now()
		c.files = map[fileID]*cachedFile{}
		c.repos = map[string]*repoInfo{}
		c.dirs = map[string]*dirState{}
	}
	return int64(time.Since(c.epoch)) + 1
}

// Close releases the inotify descriptor and its watches, if IsIgnored
// opened one. The Cache stays usable and goes back to re-checking by stat
// once per Recheck interval; it never opens a descriptor again. Close is
// idempotent and returns close(2)'s error.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watch.close()
}

// sync takes in the changes reported since the last call, opening the
// inotify descriptor first when open is set. Callers hold c.mu.
func (c *Cache) sync(open bool) {
	if c.Recheck < 0 {
		return
	}
	if open && !c.NoWatch {
		c.watch.open(c)
	}
	if c.watch.poll(c) {
		c.gen++
	}
}

// watching reports whether inotify vouches for what is validated now.
func (c *Cache) watching() bool { return c.Recheck >= 0 && c.watch.active() }

// isDir reports whether path is a directory (not following a final
// symbolic link), from the watches when one is on path (a watch is only
// ever put on a real directory, and is dropped when that directory leaves
// the path), else by lstat. Callers hold c.mu, after sync.
func (c *Cache) isDir(path string) bool {
	if c.watching() && c.watch.watchesDir(path) {
		return true
	}
	return isDirPath(path)
}

// trusted reports whether something last validated at checked (monotonic
// time) and gen, under inotify if watched, can be used without a
// re-check.
func (c *Cache) trusted(checked int64, gen uint64, watched bool, now int64) bool {
	if checked == 0 {
		return false
	}
	if watched && c.watching() {
		return gen == c.gen
	}
	return c.fresh(checked, now)
}

// fresh reports whether something checked at checked is still trusted by
// the Recheck interval.
func (c *Cache) fresh(checked, now int64) bool {
	if checked == 0 {
		return false
	}
	iv := c.Recheck
	if iv == 0 {
		iv = RecheckInterval
	}
	return iv > 0 && now-checked < int64(iv)
}

// cachedFile is one file's last known identity and contents.
type cachedFile struct {
	path     string
	follow   bool // stat and read through a final symbolic link
	statOnly bool // only existence and type matter
	checked  int64
	watched  bool   // inotify reports changes to it (as of wgen)
	wgen     uint64 // the Cache's gen when its last check began
	loads    uint64 // loads begun, so that only the latest of overlapping ones stores
	key      fileKey
	racy     bool
	data     []byte
	jailed   bool   // read through Cache.Jail: the file lies inside the roots
	gen      uint64 // bumped whenever data, existence or type changes

	// The rules compiled from data, for compiledGen/base/fold.
	compiled     *ruleSet
	compiledGen  uint64
	compiledBase string
	compiledFold bool

	// For an index file (isIndex: read up to maxIndexFileSize, not
	// maxIgnoreFileSize): data decoded, for indexGen.
	isIndex  bool
	index    *gitIndex
	indexGen uint64
}

// fileID is what tells two cache entries apart: the path and how it is
// looked at.
type fileID struct {
	path             string
	follow, statOnly bool
}

// file returns the cache entry for path, creating it. Callers hold c.mu.
func (c *Cache) file(path string, follow, statOnly bool) *cachedFile {
	k := fileID{path, follow, statOnly}
	f := c.files[k]
	if f == nil {
		c.charge(entryOverhead + 2*len(path)) // as when the key was a copy of the path
		f = &cachedFile{path: path, follow: follow, statOnly: statOnly}
		c.files[k] = f
	}
	return f
}

// charge counts n more bytes into the cache, first dropping everything if
// they would take it past maxCacheBytes (plus bigRules). What callers hold
// (a repoInfo, a dirState, a cachedFile) stays valid: only the maps forget
// them. Callers hold c.mu.
func (c *Cache) charge(n int) {
	if c.bytes+n > c.limit()+c.bigRules {
		c.flush()
	}
	c.bytes += n
}

// limit is what the rules, states and files may hold: maxCacheBytes (or
// the tests' maxBytes) less what the sorted listings hold, so that the
// Cache's bound counts everything it keeps (issue 23). A listing kept
// while the rest is near the bound makes the next charge flush the rest.
func (c *Cache) limit() int {
	limit := maxCacheBytes
	if c.maxBytes > 0 {
		limit = c.maxBytes
	}
	return max(limit-int(c.listings.inUse.Load()), 0)
}

// chargeRules is charge for n bytes of compiled rules (one file's).
// One file's rules may alone be past the bound (git's own limit is a
// 100 MiB file, millions of rules), and a question in that file's
// directory cannot be answered without them: the bound is then raised by
// the largest such set charged since the last flush, so that the set is
// kept rather than dropped and compiled again at every question, while
// everything else stays within maxCacheBytes.
func (c *Cache) chargeRules(n int) {
	if c.bytes+n > c.limit()+max(c.bigRules, n) {
		c.flush()
	}
	c.bytes += n
	c.bigRules = max(c.bigRules, n)
}

// flush forgets everything the Cache holds, and on Linux drops the inotify
// watches (their per-directory names grow with the paths asked about): the
// next calls re-check by stat and watch afresh. Callers hold c.mu.
func (c *Cache) flush() {
	clear(c.files)
	clear(c.repos)
	clear(c.dirs)
	c.real = nil
	c.lastReal = nil
	c.spareFiles = nil
	c.bytes, c.flatBytes, c.bigRules = 0, 0, 0
	c.flushes++
	if c.watch.active() {
		c.watch.reset(c)
		c.gen++
	}
}

// load brings f up to date if its last check is stale and returns it.
// A file that cannot be read (missing, a directory, a symbolic link when
// follow is false, no permission) counts as absent, as it does for git;
// one that is not a regular file (a FIFO, a device) has no contents. The
// stat by path only tells whether anything changed; what is read, and the
// key kept, come from the descriptor the contents were read from (through
// the Jail for a file inside the roots), so a path that now leads outside
// the roots differs from the key kept and is looked at again each time.
// Nothing here can block on a FIFO: opens are O_NONBLOCK and only regular
// files are read. The caller holds c.mu; load releases it for the stat and
// the read (a slow file system delays this call, not every other one) and
// holds it again when it returns. What the caller holds stays valid; the
// maps may have changed meanwhile.
func (f *cachedFile) load(c *Cache, now int64) *cachedFile { return f.loadAt(c, now, -1) }

// loadAt is load with at, unless it is -1, a descriptor on the directory
// holding f (a file whose final link is not followed: a ".git", a
// ".gitignore") that the caller opened through the Jail and holds open
// for the call: f is then stat'ed and read relative to it (fstatat,
// openat with O_NOFOLLOW on its last name), never by its path, so what is
// learnt is about that directory whatever its path now leads to.
func (f *cachedFile) loadAt(c *Cache, now int64, at int) *cachedFile {
	f, _ = f.loadCtx(nil, c, now, at)
	return f
}

// loadCtx is loadAt that gives up when ctx (nil: never) ends while a
// file of readAsideBytes or more is being read (see readAside): it
// returns f as it was and false, and the caller, whose ctx ended, must
// keep nothing it builds on f.
func (f *cachedFile) loadCtx(ctx context.Context, c *Cache, now int64, at int) (*cachedFile, bool) {
	if c.trusted(f.checked, f.wgen, f.watched, now) {
		return f, true
	}
	// Watch before the stat: a change after it is queued, not lost. The
	// gen is taken now and stored with what is read, so a change reported
	// while the lock is let go leaves f untrusted; and of two loads that
	// overlap only the one started last stores (the other may have read
	// older contents, and looks again rather than hand back what f held).
	f.watched = c.watching() && c.watch.watchFile(c, f.path, f.follow)
	gen := c.gen
	f.loads++
	seq := f.loads
	c.statCalls++
	path, follow, statOnly := f.path, f.follow, f.statOnly
	limit := int64(maxIgnoreFileSize)
	if f.isIndex {
		limit = maxIndexFileSize
	}
	unchanged := func(k fileKey) bool { return f.checked != 0 && k == f.key && !f.racy }
	c.mu.Unlock()
	var key fileKey
	if at >= 0 {
		key = statKeyAt(at, path[strings.LastIndexByte(path, os.PathSeparator)+1:])
	} else {
		key = statKey(path, follow)
	}
	if !follow && key.isLink {
		key = fileKey{} // git does not follow an in-tree .gitignore link
	}
	c.mu.Lock()
	if f.loads != seq {
		// A later load stores; what f holds may be older than what the
		// caller must see, so look again (f is trusted once it stored).
		return f.loadCtx(ctx, c, now, at)
	}
	if unchanged(key) {
		f.checked, f.wgen = now, gen
		return f, true
	}
	c.mu.Unlock()
	statKey := key // the read may go on aside while key is set below
	read := func(at int) (fileKey, []byte, bool) {
		if at >= 0 {
			key, data := readAt(at, path[strings.LastIndexByte(path, os.PathSeparator)+1:], statOnly, statKey, limit)
			return key, data, c.Jail != nil && c.Jail.Contains(path)
		}
		return c.readFile(path, follow, statOnly, statKey, limit)
	}
	key, data, jailed, ok := readAside(ctx, key, at, read)
	if !ok {
		c.mu.Lock()
		return f, false
	}
	if !follow && key.isLink {
		key = fileKey{}
	}
	c.mu.Lock()
	if f.loads != seq {
		// A later load stores; what f holds may be older than what the
		// caller must see, so look again (f is trusted once it stored).
		return f.loadCtx(ctx, c, now, at)
	}
	if f.checked == 0 || key.exists != f.key.exists || key.isDir != f.key.isDir || jailed != f.jailed || !bytes.Equal(data, f.data) {
		f.gen++
	}
	f.data = data
	f.key = key
	f.jailed = jailed
	f.racy = key.exists && time.Now().UnixNano()-key.mtime < int64(racyWindow)
	f.checked, f.wgen = now, gen
	return f, true
}

// lockedParseMax is the size up to which an ignore file is compiled with
// c.mu held (a few hundred microseconds at most); a larger one is
// compiled with the lock let go, so that other questions go on meanwhile.
const lockedParseMax = 64 << 10

// rules returns f's contents compiled for base and fold, reusing the last
// compilation while the contents are unchanged; nil when there are no
// rules. A compilation is kept in f and charged to c's bound (see
// chargeRules). When ctx ends during the compilation it returns nil and
// ctx.Err(), and keeps nothing: the next call compiles again. Callers
// hold c.mu; for a file over lockedParseMax it is let go while the rules
// are compiled (what the caller holds stays valid; two calls may compile
// the same file at once, and the one whose contents are still f's is
// kept).
func (f *cachedFile) rules(c *Cache, ctx context.Context, base string, fold bool) (*ruleSet, error) {
	if len(f.data) == 0 {
		return nil, nil
	}
	rs := f.compiled
	if rs == nil || f.compiledGen != f.gen || f.compiledBase != base || f.compiledFold != fold {
		data, gen, path := f.data, f.gen, f.path
		var err error
		if len(data) > lockedParseMax {
			c.mu.Unlock()
			rs, err = parseRulesCtx(ctx, data, path, base, fold)
			c.mu.Lock()
		} else {
			rs, err = parseRulesCtx(ctx, data, path, base, fold)
		}
		if err != nil {
			return nil, err
		}
		if f.gen == gen {
			c.chargeRules(rs.cost())
			f.compiled, f.compiledGen, f.compiledBase, f.compiledFold = rs, gen, base, fold
		}
	}
	if rs.empty() {
		return nil, nil
	}
	return rs, nil
}

// dirCtx is what decides the fate of the entries of one directory: the
// repository it lies in and the .gitignore files from that repository's
// root down to it. Values are immutable once built and shared by every
// directory below that adds no .gitignore of its own.
type dirCtx struct {
	repo  *repoInfo   // nil: not inside a git repository, nothing is ignored
	chain *ignoreNode // the deepest .gitignore in force, nil if none
	rel   string      // the directory relative to the repository root: "" or "a/b/"

	needsPath bool // some rule in force is matched against a path
	// partial: some .gitignore in force here, or above, could not be
	// compiled because the context of the call ended (see
	// cachedFile.rules): a state built on it is for that call only.
	partial bool

	// Set by the walker only (the memo IsIgnored keeps has neither):
	// index is the repository's index (nil: none, or NoIndex), and
	// trackedOnly marks a directory the rules ignore, entered only for the
	// tracked files below it.
	index       *gitIndex
	trackedOnly bool
}

// ignoreNode links a directory's compiled .gitignore to the one above it.
type ignoreNode struct {
	parent *ignoreNode
	rules  *ruleSet
	flat   flatChain // the chain from here up merged, for IsIgnored (flat.go)
}

// noRepo is the context outside every repository.
var noRepo = &dirCtx{}

// repoRootCtx is the context at the root of repository r.
func repoRootCtx(r *repoInfo) *dirCtx {
	return &dirCtx{repo: r, needsPath: r.exclude.needsPathOrFalse() || r.global.needsPathOrFalse()}
}

func (rs *ruleSet) needsPathOrFalse() bool { return rs != nil && rs.needsPath }

// child is the context of the subdirectory name before its own .gitignore.
func (x *dirCtx) child(name string) *dirCtx {
	if x.repo == nil {
		return noRepo
	}
	return &dirCtx{repo: x.repo, chain: x.chain, rel: x.rel + name + "/", needsPath: x.needsPath, partial: x.partial, index: x.index, trackedOnly: x.trackedOnly}
}

// withRules adds a directory's own compiled .gitignore.
func (x *dirCtx) withRules(rs *ruleSet) *dirCtx {
	if rs == nil || x.repo == nil {
		return x
	}
	return &dirCtx{repo: x.repo, chain: &ignoreNode{parent: x.chain, rules: rs}, rel: x.rel, needsPath: x.needsPath || rs.needsPath, partial: x.partial, index: x.index, trackedOnly: x.trackedOnly}
}

// decide returns the rule that decides relPath (relative to the repository
// root; its last component is name), or nil: deeper .gitignore files first,
// then info/exclude, then the global excludes file; within a file the last
// matching line wins.
func (x *dirCtx) decide(relPath, name string, isDir bool) (*ruleSet, int) {
	if x.repo == nil {
		return nil, -1
	}
	for n := x.chain; n != nil; n = n.parent {
		// Without path rules relPath may be "" (the walker skips building
		// it); the basename rules do not look at it.
		sub := ""
		if len(relPath) >= len(n.rules.base) {
			sub = relPath[len(n.rules.base):]
		}
		if i := n.rules.match(sub, name, isDir); i >= 0 {
			return n.rules, i
		}
	}
	if rs := x.repo.exclude; rs != nil {
		if i := rs.match(relPath, name, isDir); i >= 0 {
			return rs, i
		}
	}
	if rs := x.repo.global; rs != nil {
		if i := rs.match(relPath, name, isDir); i >= 0 {
			return rs, i
		}
	}
	return nil, -1
}

// decideBoth is decide for isDir false and true at once, for a caller that
// wants both answers: a rule set with no rule ending in '/' gives the same
// answer either way and is matched once. The merged matcher it may build
// is charged to c (nil: no bound).
func (x *dirCtx) decideBoth(c *Cache, relPath, name string) (rf *ruleSet, i int, rd *ruleSet, j int) {
	i, j = -1, -1
	if x.repo == nil {
		return
	}
	if f := x.flatFor(c); f != nil {
		return f.decideBoth(relPath, name)
	}
	return x.decideLevels(relPath, name)
}

// decideLevels is decideBoth one rule set at a time.
func (x *dirCtx) decideLevels(relPath, name string) (rf *ruleSet, i int, rd *ruleSet, j int) {
	i, j = -1, -1
	for n := x.chain; n != nil; n = n.parent {
		if levelBoth(n.rules, relPath, name, &rf, &i, &rd, &j) {
			return
		}
	}
	if rs := x.repo.exclude; rs != nil && levelBoth(rs, relPath, name, &rf, &i, &rd, &j) {
		return
	}
	if rs := x.repo.global; rs != nil {
		levelBoth(rs, relPath, name, &rf, &i, &rd, &j)
	}
	return
}

// ignored reports whether the entry name of this directory is ignored.
// scratch, if not nil, is reused to build the entry's path.
func (x *dirCtx) ignored(name string, isDir bool, scratch *[]byte) bool {
	if x.repo == nil {
		return false
	}
	rel := ""
	if x.needsPath {
		if scratch == nil {
			rel = x.rel + name
		} else {
			b := append(append((*scratch)[:0], x.rel...), name...)
			*scratch = b
			rel = unsafe.String(unsafe.SliceData(b), len(b))
		}
	}
	rs, i := x.decide(rel, name, isDir)
	return rs != nil && rs.rules[i].flags&ruleNegative == 0
}

// dirState memoizes one directory's context for IsIgnored.
type dirState struct {
	checked int64
	watched bool // every file it was built from is watched, and so is its parent's
	// cut: built on a repository configuration whose reading a context
	// cut short (repoInfo.interrupted), here or in an ancestor: such a
	// state is for the call that made it, never kept. (Next to watched:
	// the two flags share a word.)
	cut  bool
	wgen uint64
	// realGen is c.gen+1 when IsIgnoredIfReal found every directory from
	// its top down to this one watched at that gen (0: not known).
	realGen uint64
	ctx     *dirCtx
	// inRepo and rel are ctx.repo and ctx.rel, and flat ctx's merged
	// matcher once it has one (see flatOf): the warm path (judgeRel)
	// reads them here, on the state it has just found, rather than one
	// or two pointers further.
	inRepo *repoInfo
	rel    string
	flat   atomic.Pointer[flatRules]
	// realTop and realKey are where Cache.real last filed this state
	// (the top and the directory relative to it), for Cache.lastReal.
	realTop, realKey string
	// The inputs ctx was built from, to keep the same ctx (and so every
	// memo below it) when nothing changed.
	parentCtx *dirCtx
	repo      *repoInfo
	files     *dirFiles
	gitGen    uint64
	ignGen    uint64
	// deepest is the length of the path of the deepest directory among
	// this one and its ancestors that its parent's rules ignore, or -1.
	deepest int
	// untracked is the index (of ctx's repository) when it was found to
	// hold nothing in that deepest ignored directory: no path below it
	// is tracked (see judgeRel).
	untracked *gitIndex
}

// dirStateFor returns the up-to-date state of the absolute, clean
// directory dir. A repository's configuration read on the way stops
// when cx ends (see repoFor): a state built on one cut short is not kept.
// Callers hold c.mu.
func (c *Cache) dirStateFor(cx context.Context, dir string, now int64) *dirState {
	return c.dirStateAt(cx, dir, now, -1)
}

// dirStateAt is dirStateFor with at, unless it is -1, a descriptor on dir
// opened through the Jail, for its ".git" and ".gitignore" (see
// cachedFile.loadAt); dir's ancestors are looked at as dirStateFor does.
func (c *Cache) dirStateAt(cx context.Context, dir string, now int64, at int) *dirState {
	return c.dirStateFrom(cx, dir, c.dirs[dir], now, at)
}

// dirStateFrom is dirStateAt for a caller that has looked up c.dirs[dir]
// (st, nil if none) already.
func (c *Cache) dirStateFrom(cx context.Context, dir string, st *dirState, now int64, at int) *dirState {
	if st != nil && c.trusted(st.checked, st.wgen, st.watched, now) {
		return st
	}
	// The gen before the loads below, which let the lock go: a change
	// reported meanwhile leaves st untrusted (stored with this older gen).
	gen := c.gen
	pctx, pdeep := noRepo, -1
	watched, cut := true, false
	parent, name := splitClean(dir) // dir is clean: no filepath.Clean on the way
	if parent != dir {
		ps := c.dirStateFor(cx, parent, now)
		pctx, pdeep, watched, cut = ps.ctx, ps.deepest, ps.watched, ps.cut
	}
	files, fresh := c.dirFilesOf(dir, st)
	flushes := c.flushes // for spareFiles's refund: no flush since the charge
	// The .gitignore is looked at inside a repository only (below, once
	// .git is known; a .git seen last time stands for that here).
	needIgn := pctx.repo != nil || files.git.key.exists
	if at < 0 && (!c.trusted(files.git.checked, files.git.wgen, files.git.watched, now) ||
		needIgn && !c.trusted(files.ign.checked, files.ign.wgen, files.ign.watched, now)) {
		// Something must be looked at: through a descriptor on dir that
		// the Jail opens, when it can, rather than by path.
		if fd := c.openDirFd(dir); fd >= 0 {
			at = fd
			defer closeDirFd(fd)
		}
	}
	gitF := files.git.loadAt(c, now, at)
	watched = watched && gitF.watched
	var repo *repoInfo
	if gitF.key.exists {
		r := c.repoFor(cx, dir, now)
		watched = watched && r.watched
		if r.valid {
			repo = r
		}
	}
	var ignF *cachedFile
	readCut := false // cx ended while the .gitignore was read
	if repo != nil || pctx.repo != nil {
		var ok bool
		ignF, ok = files.ign.loadCtx(cx, c, now, at)
		readCut = !ok
		watched = watched && ignF.watched
	}
	// Neither file is there (the usual directory): the state keeps no
	// files, and fresh ones go back to be used for the next directory
	// (see dirFilesOf).
	none := !gitF.key.exists && (ignF == nil || !ignF.key.exists)
	if st != nil && st.parentCtx == pctx && st.repo == repo {
		same := st.gitGen == gitF.gen && (ignF == nil || st.ignGen == ignF.gen)
		if st.files == nil {
			same = none // st was built with neither file: gens of fresh files say nothing
		}
		if same {
			st.checked, st.watched, st.wgen = now, watched, gen
			if fresh && none {
				c.spareFilesBack(files, flushes)
			}
			return st
		}
	}
	var ctx *dirCtx
	if repo != nil {
		ctx = repoRootCtx(repo)
	} else {
		ctx = pctx.child(name)
	}
	var ignGen uint64
	partial := pctx.partial || readCut
	if ignF != nil && ctx.repo != nil {
		ignGen = ignF.gen // what rules compiles, even should it let the lock go
		rs, err := ignF.rules(c, cx, ctx.rel, ctx.repo.fold)
		partial = partial || err != nil
		ctx = ctx.withRules(rs)
	}
	if partial && !ctx.partial {
		cp := *ctx
		cp.partial = true
		ctx = &cp
	}
	deepest := pdeep
	if parent != dir && pctx.ignored(name, true, nil) {
		deepest = len(dir)
	}
	if cut || ctx.repo != nil && ctx.repo.interrupted || ctx.partial {
		// Built on a configuration whose reading cx cut short (this
		// directory's repository's, or one above, whose rules gave
		// deepest), or on rules whose compiling it cut short: for this
		// call only, never kept.
		return &dirState{checked: now, wgen: gen, ctx: ctx, inRepo: ctx.repo, rel: ctx.rel, parentCtx: pctx, repo: repo, files: files, deepest: deepest, cut: true}
	}
	if len(c.dirs) >= maxCachedDirs {
		clear(c.dirs)
		c.real = nil
		c.lastReal = nil
	}
	if st == nil {
		// A new entry (or, should another call have stored one while
		// the lock was let go, counted twice: an over-estimate).
		c.charge(entryOverhead + len(dir))
	}
	st = &dirState{checked: now, watched: watched, wgen: gen, ctx: ctx, inRepo: ctx.repo, rel: ctx.rel, parentCtx: pctx, repo: repo, files: files, gitGen: gitF.gen, ignGen: ignGen, deepest: deepest}
	if fresh && none {
		st.files = nil
		c.spareFilesBack(files, flushes)
	}
	c.dirs[dir] = st
	return st
}

// openDirFd opens dir through the Jail as a bare descriptor, when the
// Jail can (a DirFdOpener) and dir lies inside its roots; -1 otherwise,
// and on any error (the caller then looks by path, through the Jail for
// what it reads, as without a descriptor). Callers hold c.mu, which is
// let go for the open.
func (c *Cache) openDirFd(dir string) int {
	d, ok := c.Jail.(DirFdOpener)
	if !ok || !c.Jail.Contains(dir) {
		return -1
	}
	c.mu.Unlock()
	fd, err := d.OpenDirFd(dir)
	c.mu.Lock()
	if err != nil {
		return -1
	}
	return fd
}

// realTop is one top's part of Cache.real.
type realTop struct {
	top  string
	dirs map[string]*dirState // by the directory relative to top ("" for top)
}

// realDirs returns top's part of c.real (nil if none). Callers hold c.mu.
func (c *Cache) realDirs(top string) map[string]*dirState {
	for i := range c.real {
		if c.real[i].top == top {
			return c.real[i].dirs
		}
	}
	return nil
}

// rememberReal records in c.real that st, the state of dir (absolute,
// clean, top or below it), was vouched for from top. Callers hold c.mu.
func (c *Cache) rememberReal(top, dir string, st *dirState) {
	rel := ""
	if len(dir) > len(top) {
		if rel = dir[len(top):]; rel[0] == os.PathSeparator {
			rel = rel[1:]
		}
	}
	k := -1
	for i := range c.real {
		if c.real[i].top == top {
			k = i
			break
		}
	}
	if k < 0 {
		if len(c.real) >= maxRealTops {
			c.real = c.real[:0] // many tops (roots added and removed): start over
		}
		c.real = append(c.real, realTop{top: strings.Clone(top), dirs: map[string]*dirState{}})
		k = len(c.real) - 1
	}
	rt := c.real[k]
	old, seen := rt.dirs[rel]
	if old == st {
		return
	}
	// The key kept is a copy, never the caller's path; the one an older
	// state of dir was filed under serves again.
	if seen && old != nil && old.realTop == rt.top && old.realKey == rel {
		rel = old.realKey
	} else {
		rel = strings.Clone(rel)
	}
	if !seen {
		c.charge(entryOverhead + len(rel))
		if c.real == nil {
			return // the charge dropped everything, rt.dirs with it
		}
	}
	rt.dirs[rel] = st
	st.realTop, st.realKey = rt.top, rel
}

// maxRealTops bounds the tops c.real keeps (a Host has one per root).
const maxRealTops = 64

// dirFiles are the two files a directory's state is built from, its
// ".git" (only its existence and type matter) and its ".gitignore" (not
// followed if a link). They are kept with the directory's state, and
// handed on when it is rebuilt, rather than in c.files: one allocation
// and one path string per directory, no map entry.
type dirFiles struct {
	git, ign cachedFile
}

// dirFilesOf returns dir's files: those of old (dir's state when the
// caller looked; fresh false), else new ones (fresh true): c.spareFiles
// when there is one, else a new allocation, charged as two c.file
// entries. A directory with neither file (most of them) keeps no files
// in its state, and the caller hands fresh ones back as c.spareFiles for
// the next directory, so that meeting a new directory allocates its
// state and the .gitignore's path, not two cachedFiles (a sparse batch of
// check-ignore meets thousands: every byte is a page fault there). A
// spare is taken out of c while in use, so no other call, with the lock
// let go for a load, can use it. Callers hold c.mu.
func (c *Cache) dirFilesOf(dir string, old *dirState) (fs *dirFiles, fresh bool) {
	if old != nil && old.files != nil {
		return old.files, false
	}
	ign := joinClean(dir, ".gitignore")
	git := ign[:len(ign)-len("ignore")] // dir's ".git"
	c.charge(filesCost(ign))
	if fs = c.spareFiles; fs != nil {
		c.spareFiles = nil
		*fs = dirFiles{}
	} else {
		fs = &dirFiles{}
	}
	fs.git.path, fs.git.statOnly = git, true
	fs.ign.path = ign
	return fs, true
}

// filesCost is what dirFilesOf charges for a directory's files, ign the
// path of its .gitignore (the .git's is a prefix of it).
func filesCost(ign string) int {
	return 2*entryOverhead + 2*len(ign) + 2*(len(ign)-len("ignore"))
}

// spareFilesBack makes fs, fresh from dirFilesOf and kept by no state,
// c.spareFiles, and takes back what dirFilesOf charged for it unless the
// Cache was flushed since (flushes is c.flushes after that charge).
// Callers hold c.mu.
func (c *Cache) spareFilesBack(fs *dirFiles, flushes int) {
	if c.flushes == flushes {
		c.bytes -= filesCost(fs.ign.path)
	}
	c.spareFiles = fs
}

// flatOf is st.ctx.flatFor(c), kept in st once there is one (st.ctx never
// changes).
func (st *dirState) flatOf(c *Cache) *flatRules {
	if f := st.flat.Load(); f != nil {
		return f
	}
	f := st.ctx.flatFor(c)
	if f != nil {
		st.flat.Store(f)
	}
	return f
}

// joinClean is filepath.Join(dir, name) for a clean dir and a plain name,
// without Join's Clean.
func joinClean(dir, name string) string {
	if os.PathSeparator != '/' {
		return filepath.Join(dir, name)
	}
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// dirStateForPathIn is dirStateFor for a directory that may not exist (a
// path IsIgnored is asked about need not). A directory that does not exist
// holds neither a ".git" nor a ".gitignore", and neither does anything
// below it, so the state of the missing part is computed from the deepest
// directory that does exist, by the rules in force there, and is not
// remembered: made-up paths cost no memory. exists tells it that the
// caller has just found dir to be a directory (it then looks for no
// deeper existing one), and at, unless it is -1, is a descriptor on it
// opened through the Jail (see dirStateAt). Callers hold c.mu.
func (c *Cache) dirStateForPathIn(cx context.Context, dir string, now int64, exists bool, at int) *dirState {
	known := c.dirs[dir]
	if known != nil && c.trusted(known.checked, known.wgen, known.watched, now) {
		return known
	}
	if exists {
		return c.dirStateFrom(cx, dir, known, now, at)
	}
	base := c.deepestDir(dir)
	if base == dir {
		return c.dirStateFrom(cx, dir, known, now, -1)
	}
	st := c.dirStateAt(cx, base, now, -1)
	// Every missing directory adds only its name to the context: rel is
	// the one string for the deepest, each level a prefix of it.
	missing := dir[len(base):]
	if missing[0] == os.PathSeparator {
		missing = missing[1:]
	} else if !strings.HasSuffix(base, string(os.PathSeparator)) {
		return st // not below base: cannot happen for a clean dir
	}
	x, deepest := st.ctx, st.deepest
	if x.repo == nil {
		return &dirState{ctx: noRepo, deepest: deepest, cut: st.cut}
	}
	full := x.rel + filepath.ToSlash(missing) + "/"
	off := len(x.rel)
	abs := len(dir) - len(missing)
	for _, name := range strings.Split(missing, string(os.PathSeparator)) {
		// x.ignored(name, true), with the path taken from full.
		if rs, i := x.decide(full[:off+len(name)], name, true); rs != nil && rs.rules[i].flags&ruleNegative == 0 {
			deepest = abs + len(name)
		}
		off += len(name) + 1
		abs += len(name) + 1
		x = &dirCtx{repo: x.repo, chain: x.chain, rel: full[:off], needsPath: x.needsPath, partial: x.partial}
	}
	return &dirState{ctx: x, inRepo: x.repo, rel: x.rel, deepest: deepest, cut: st.cut}
}

// deepestDir returns the longest prefix of dir (absolute and clean) that
// is a directory, by a binary search over its components (a directory's
// ancestors are directories): O(log depth) stats. A directory the
// watches vouch for needs none.
func (c *Cache) deepestDir(dir string) string {
	if c.isDir(dir) {
		return dir
	}
	// Candidate ends: the separators after the volume root.
	vol := filepath.VolumeName(dir)
	var ends []int
	for i := len(vol) + 1; i < len(dir); i++ {
		if dir[i] == os.PathSeparator {
			ends = append(ends, i)
		}
	}
	// dir[:ends[k]] for k in [lo, hi): lo-1 is known to exist (or is the
	// root), hi is known not to.
	lo, hi := 0, len(ends)
	for lo < hi {
		mid := (lo + hi) / 2
		if c.isDir(dir[:ends[mid]]) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return dir[:len(vol)+1]
	}
	return dir[:ends[lo-1]]
}
