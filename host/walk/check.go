package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"
)

// This file answers whether paths are ignored, and why: git check-ignore.

// CheckOptions shape Check. The zero value answers as git check-ignore
// does by default, the index consulted.
type CheckOptions struct {
	// NoIndex judges tracked paths by the rules like any other, as git
	// check-ignore --no-index does.
	NoIndex bool
	// VerdictOnly leaves Match.Rule nil (finding a directory's rule costs
	// a match per level, naming any rule an allocation), for a caller
	// that wants only Ignored and Tracked.
	VerdictOnly bool
	// Pathspec reads each path as git check-ignore reads its arguments, as
	// a pathspec: one holding a glob character ('*', '?', '[' or a backslash) is
	// tracked, and so not ignored, when it matches a path in the index
	// (git's pathspec glob, where '*' matches '/' too), as "*.log" is when
	// a .log file is tracked. Without it a path is only ever itself. It
	// has no effect with NoIndex. With it, host.Host.CheckIgnore also
	// answers a path longer than its jail takes, as git does (the part
	// past the limit is never opened); without, such a path is refused.
	Pathspec bool
}

// Rule is one line of an ignore file, as git check-ignore -v names it.
type Rule struct {
	// Source is the file: relative to the repository's work tree for a
	// file inside it (".gitignore", "sub/.gitignore",
	// ".git/info/exclude"), else absolute (the global excludes file).
	Source string
	// Line is the 1-based line number in Source.
	Line int
	// Pattern is the line as written, trailing spaces trimmed; a negation
	// keeps its "!".
	Pattern string
}

// Negated reports whether the rule re-includes what it matches.
func (r *Rule) Negated() bool { return r != nil && strings.HasPrefix(r.Pattern, "!") }

// Match is Check's answer for one path.
type Match struct {
	// Ignored is true when git would ignore the path.
	Ignored bool
	// Tracked is true when a rule, or an ignored directory above, would
	// have a say but the index holds the path (or, for a directory, a path
	// below it): ignore rules do not apply to a tracked path. It is not
	// set for a path no rule concerns, and never with NoIndex.
	Tracked bool
	// Rule is the rule that decided: the one that ignores the path, or a
	// directory above it (as git names that directory's rule), or a
	// negated one that re-includes it (Ignored false). It is nil when no
	// rule matches, for a tracked path, and outside every repository.
	Rule *Rule
}

// IsIgnored reports whether path (absolute; a trailing separator marks a
// directory) is ignored, as "git check-ignore" would answer in the
// repository that holds it (a tracked path is not ignored), and
// consistently with a Walk from top: the path is ignored when a rule
// matches it or when a directory between top and the path is ignored. top
// is the directory a walk would start from (for the Host, the root holding
// the path); it is never itself ignored. With top "" (or a top that does
// not hold path) the directories considered are those below the root of
// path's own repository. See Check for the index and the errors.
//
// A path that does not exist is judged as a file unless it ends in a
// separator. A path outside every git repository gives false. IsIgnored
// does not panic on any input.
func (c *Cache) IsIgnored(ctx context.Context, top, path string) (bool, error) {
	m, _, err := c.judge(ctx, top, path, CheckOptions{}, false, &batch{noRule: true, verdict: true})
	return m.Ignored, err
}

// Check is IsIgnored for many paths at once, with git check-ignore -v's
// reasons: the Cache's sources are brought up to date once for the whole
// batch (one inotify poll, one Recheck clock), so the answers are those of
// one moment. It returns one Match per path, in order.
//
// Errors: ctx's (the answers so far are returned with it); a path that is
// not absolute (nothing is judged); wrapping ErrIndexUnsupported or
// ErrIndexCorrupt, a repository index that cannot be used, returned with
// every answer judged without the index (as git would refuse to run);
// and, wrapping ErrIncludeDepth or ErrConfigTooLarge, a repository
// configuration git would refuse (or that is past the bounds), for which
// the paths in that repository get the zero Match.
func (c *Cache) Check(ctx context.Context, top string, paths []string, opts CheckOptions) ([]Match, error) {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("walk: %q is not an absolute path", p)
		}
	}
	b := &batch{noRule: opts.VerdictOnly, verdict: opts.VerdictOnly}
	out := make([]Match, len(paths))
	var firstErr error
	for i, p := range paths {
		m, _, err := c.judge(ctx, top, p, opts, false, b)
		out[i] = m
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return out[:i], cerr
			}
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	return out, firstErr
}

// IsIgnoredIfReal is IsIgnored for a path whose directories were not
// resolved by the caller. It answers (ok true) only when inotify vouches
// that every directory from top down to path's parent (path itself for a
// trailing "/") is a real directory at that path, watched since it was
// last seen there, so that path names what it spells, with no symbolic
// link on the way. Otherwise it returns ok false having judged nothing, and
// the caller must resolve path and call IsIgnored (which adds the watches
// that let the next call answer here). top and path must be absolute and
// clean but for a trailing "/", with path below top. Off Linux, and
// whenever inotify is not in use, ok is always false.
//
// The vouching has inotify's window: a directory replaced by a symbolic
// link by a call that has not returned when this one polls may be taken
// for the directory. What is at stake is one ignore decision, never a
// file operation.
func (c *Cache) IsIgnoredIfReal(ctx context.Context, top, path string) (ignored, ok bool, err error) {
	if top == "" {
		return false, false, nil
	}
	var real bool
	m, _, err := c.judge(ctx, top, path, CheckOptions{}, true, &batch{real: &real, noRule: true, verdict: true})
	return m.Ignored, real, err
}

// CheckIfReal is IsIgnoredIfReal with Check's options and answer.
func (c *Cache) CheckIfReal(ctx context.Context, top, path string, opts CheckOptions) (Match, bool, error) {
	if top == "" {
		return Match{}, false, nil
	}
	var real bool
	m, _, err := c.judge(ctx, top, path, opts, true, &batch{real: &real, noRule: opts.VerdictOnly, verdict: opts.VerdictOnly})
	return m, real, err
}

// batch is what the calls of one Check share: the moment the sources were
// brought up to date.
type batch struct {
	now    int64 // 0 until first needed (judgeRel reads no clock when the watches vouch)
	synced bool
	real   *bool // for CheckIfReal: set when the watches vouch
	noRule bool  // the caller wants no ancestor's Rule (VerdictOnly): skip finding it
	// verdict: the caller wants no Rule at all (IsIgnored), not even the
	// one that matched the path itself.
	verdict bool
	// knownDir, for Batch.CheckInDirFd: a directory the caller has just
	// opened, taken as existing without a look; knownFd, unless -1, a
	// descriptor on it opened through the Jail (CheckInDirFd).
	knownDir string
	knownFd  int
	// scratch, when not nil, is where judgeRel builds its keys (a Batch's,
	// kept for its questions).
	scratch []byte
}

// fdFor is the caller's descriptor on dir (CheckInDirFd), or -1.
func (b *batch) fdFor(dir string) int {
	if b.knownDir == "" || dir != b.knownDir {
		return -1
	}
	return b.knownFd
}

// judge answers for one path. It never holds c.mu while matching.
func (c *Cache) judge(ctx context.Context, top, path string, opts CheckOptions, requireReal bool, b *batch) (Match, bool, error) {
	if err := ctx.Err(); err != nil {
		return Match{}, false, err
	}
	if !filepath.IsAbs(path) {
		return Match{}, false, fmt.Errorf("walk: %q is not an absolute path", path)
	}
	sep := string(os.PathSeparator)
	dirHint := strings.HasSuffix(path, sep) || strings.HasSuffix(path, "/")
	if requireReal {
		// IfReal's callers pass clean paths but for one trailing
		// separator (its contract): no scan.
		if dirHint && len(path) > 1 {
			path = path[:len(path)-1]
		}
	} else {
		path = cleanAbs(path)
		top = cleanAbs(top)
	}
	if top != "" {
		if !(path == top || strings.HasPrefix(path, top) && (strings.HasSuffix(top, sep) || path[len(top)] == os.PathSeparator)) {
			top = ""
		}
	}
	if path == top {
		return Match{}, false, nil
	}
	parent, name := splitClean(path)
	if parent == path {
		return Match{}, false, nil // a file system root
	}
	if dirHint {
		// As git does for "dir/": judge dir as a leading directory, then
		// match "dir/" (with an empty last component) against the rules in
		// force inside it.
		parent, name = path, ""
	}
	if b == nil {
		b = &batch{}
	}

	// The lock is held to find the rules in force (the reads on the way
	// release it, see cachedFile.load) and never while matching: what is
	// found is immutable, and one slow question holds up no other.
	c.mu.Lock()
	if !b.synced {
		b.now = c.now()
		c.sync(true)
		b.synced = true
	}
	if b.now == 0 { // a Batch whose first question took judgeRel's way
		b.now = c.now()
	}
	now := b.now
	var known *dirState // parent's state, when requireReal looked it up
	if requireReal {
		if top == "" || !c.watching() {
			c.mu.Unlock()
			return Match{}, false, nil
		}
		// Every watch that is dropped bumps c.gen, so a chain found whole
		// at this gen is still whole.
		if known = c.dirs[parent]; known == nil || known.realGen != c.gen+1 {
			for p := parent; ; p, _ = splitClean(p) {
				if !c.watch.watchesDir(p) {
					c.mu.Unlock()
					return Match{}, false, nil
				}
				if len(p) <= len(top) {
					break
				}
			}
		}
		*b.real = true
	}
	ps := known
	if ps == nil || !c.trusted(ps.checked, ps.wgen, ps.watched, now) {
		ps = c.dirStateForPathIn(ctx, parent, now, parent == b.knownDir, b.fdFor(parent)) // as its first lookup would
	}
	if requireReal && !ps.cut && !ps.ctx.partial && (ps.inRepo == nil || !ps.inRepo.interrupted) {
		ps.realGen = c.gen + 1
		c.rememberReal(top, parent, ps) // for judgeRel
	}
	x := ps.ctx
	// The repository that judges the path is the one holding its parent
	// directory (for "dir/", dir is judged by its parent's repository).
	judge := x.repo
	if dirHint {
		if pp, _ := splitClean(path); pp != path {
			judge = c.dirStateForPathIn(ctx, pp, now, pp == b.knownDir, b.fdFor(pp)).ctx.repo
		}
	}
	var ix *gitIndex
	if judge != nil && !opts.NoIndex {
		ix = c.indexFor(ctx, judge, now)
	}
	c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return Match{}, true, err // what was built may lack rules ctx cut short
	}
	if judge == nil {
		return Match{}, true, nil
	}
	if judge.cfgErr != nil {
		// git dies on this configuration (or ctx ended while it was
		// read): no answer.
		return Match{}, true, judge.cfgErr
	}
	var ixErr error
	if ix != nil && ix.err != nil {
		ixErr, ix = ix.err, nil
	}
	// A tracked path is not subject to the rules. The index is looked up
	// only when a rule (or an ignored directory above) has a say: for the
	// common untracked-and-unmatched path it costs nothing.
	tracked := func() bool {
		return ix != nil && x.repo == judge && (ix.covers(x.rel+name) || opts.Pathspec && ix.matchesPathspec(x.rel+name))
	}
	limit := len(top)
	if top == "" {
		limit = len(judge.root)
	}
	if ps.deepest > limit {
		if tracked() {
			return Match{Tracked: true}, true, ixErr
		}
		m := Match{Ignored: true}
		if !b.noRule {
			m.Rule = c.ancestorRule(ctx, parent, limit, now)
		}
		return m, true, ixErr
	}
	if x.repo == nil {
		return Match{}, true, ixErr
	}
	if dirHint && x.rel == "" {
		return Match{}, true, ixErr // the root of a repository is never ignored
	}
	if err := ctx.Err(); err != nil {
		return Match{}, true, err
	}
	// For "dir/", name is "" and dir is judged as x.rel. rel is built on
	// the stack when it fits (nothing keeps it past the match): a batch
	// of paths allocates no string per path for it.
	rel := x.rel
	var kb [keyBufSize]byte
	if name != "" {
		if len(x.rel)+len(name) <= len(kb) {
			rb := append(append(kb[:0], x.rel...), name...)
			rel = unsafe.String(unsafe.SliceData(rb), len(rb))
		} else {
			rel = x.rel + name
		}
	}
	rf, i, rd, j := x.decideBoth(c, rel, name)
	if rf == nil && rd == nil {
		return Match{}, true, ixErr
	}
	if tracked() {
		return Match{Tracked: true}, true, ixErr
	}
	asFile := rf != nil && rf.rules[i].flags&ruleNegative == 0
	asDir := rd != nil && rd.rules[j].flags&ruleNegative == 0
	useDir := false
	if asFile != asDir || (rf == nil) != (rd == nil) || !b.verdict && (rf != rd || i != j) {
		// Only a rule ending in '/' tells the two apart (the verdict,
		// or, for the reason asked, which rule decides: git names the
		// directory-only rule that ignores a directory after a rule for
		// both): look at the path.
		c.mu.Lock()
		useDir = c.isDir(path)
		c.mu.Unlock()
	}
	if b.verdict {
		if useDir {
			return Match{Ignored: asDir}, true, ixErr
		}
		return Match{Ignored: asFile}, true, ixErr
	}
	if useDir {
		return Match{Ignored: asDir, Rule: rd.ruleAt(j, x.repo)}, true, ixErr
	}
	return Match{Ignored: asFile, Rule: rf.ruleAt(i, x.repo)}, true, ixErr
}

// ancestorRule is the rule that ignores the top-most directory between
// limit (a length of path) and dir (inclusive) that its parent's rules
// ignore, as git check-ignore -v names it for a path below: git stops at
// the first excluded leading directory. The states of the directories that
// exist are found under c.mu; the matching, and the contexts of the
// directories that do not exist (built on the way down, as in
// dirStateForPathIn), are done without it.
func (c *Cache) ancestorRule(ctx context.Context, dir string, limit int, now int64) *Rule {
	var chain []string // dir and its ancestors below limit, top-most first
	for p := dir; len(p) > limit; {
		chain = append(chain, p)
		q := filepath.Dir(p)
		if q == p {
			break
		}
		p = q
	}
	slices.Reverse(chain)
	c.mu.Lock()
	base := c.deepestDir(dir)
	var ctxs []*dirCtx // the parents' contexts of chain's existing directories
	for _, p := range chain {
		if len(p) > len(base) {
			break
		}
		ctxs = append(ctxs, c.dirStateFor(ctx, filepath.Dir(p), now).ctx)
	}
	var x *dirCtx // base's own context, to go on below it
	if len(ctxs) < len(chain) {
		x = c.dirStateFor(ctx, base, now).ctx
	}
	c.mu.Unlock()
	ignores := func(x *dirCtx, rel, name string) *Rule {
		if x.repo == nil {
			return nil
		}
		if rs, i := x.decide(rel, name, true); rs != nil && rs.rules[i].flags&ruleNegative == 0 {
			return rs.ruleAt(i, x.repo)
		}
		return nil
	}
	for k, px := range ctxs {
		name := filepath.Base(chain[k])
		if r := ignores(px, px.rel+name, name); r != nil {
			return r
		}
	}
	for k := len(ctxs); k < len(chain) && x != nil && x.repo != nil; k++ {
		name := filepath.Base(chain[k])
		if r := ignores(x, x.rel+name, name); r != nil {
			return r
		}
		x = x.child(name)
	}
	return nil
}

// ruleAt is rule i of rs as a Rule, named as git names its file (nil for
// no rule).
func (rs *ruleSet) ruleAt(i int, r *repoInfo) *Rule {
	if rs == nil || i < 0 {
		return nil
	}
	src := rs.source
	if r != nil {
		if rel, err := filepath.Rel(r.root, src); err == nil && !strings.HasPrefix(rel, "..") {
			src = filepath.ToSlash(rel)
		}
	}
	return &Rule{Source: src, Line: int(rs.rules[i].line), Pattern: rs.rules[i].text}
}

// cleanAbs is filepath.Clean for an absolute path, without its cost when
// the path is clean already (the common case on the hot path): one scan
// for a doubled separator, a "." or ".." component or a trailing
// separator.
func cleanAbs(p string) string {
	if p == "" || isCleanAbs(p) {
		return p
	}
	return filepath.Clean(p)
}

// isCleanAbs reports whether filepath.Clean(p) == p for an absolute p on
// a system whose only separator is '/'.
func isCleanAbs(p string) bool {
	if os.PathSeparator != '/' || len(p) == 0 || p[0] != '/' {
		return false
	}
	if len(p) == 1 {
		return true
	}
	for i := 0; ; { // p[i] is a separator; look at the component after it
		j := strings.IndexByte(p[i+1:], '/')
		end := len(p)
		if j >= 0 {
			end = i + 1 + j
		}
		if c := p[i+1 : end]; c == "" || c == "." || c == ".." {
			return false // "//", a trailing '/', "." or ".."
		}
		if j < 0 {
			return true
		}
		i = end
	}
}

// splitClean is filepath.Dir and filepath.Base of a clean absolute path,
// without a copy: the parent is a prefix of path ("/" for a top-level
// name, path itself for the root).
func splitClean(path string) (parent, name string) {
	if os.PathSeparator != '/' {
		return filepath.Dir(path), filepath.Base(path)
	}
	i := strings.LastIndexByte(path, '/')
	switch {
	case i < 0:
		return filepath.Dir(path), filepath.Base(path)
	case path == "/":
		return "/", "/"
	case i == 0:
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}
