package walk

import (
	"context"
	"encoding/binary"
	"math/bits"
	"os"
	"unsafe"
)

// This file is the warm path of IsIgnoredIfReal for a caller that holds
// the path as a root and a path relative to it (the Host, from
// jail.PlainRel): the directory's memo is found by a key built in a
// buffer on the stack, the path relative to the repository likewise, and
// nothing is allocated. Whatever it cannot answer that way it hands to
// judge with the path joined, which answers as IsIgnoredIfReal does.

// keyBufSize is the stack buffer for the keys of one question; a longer
// path still works (append moves it to the heap for that call).
const keyBufSize = 256

// IsIgnoredIfRealRel is IsIgnoredIfReal for the path top+"/"+rel, given
// apart: top absolute and clean, rel relative to it, clean and not empty
// (no leading or trailing '/', no "." or ".." component), and dir true
// for a path written with a trailing '/'. Its answers are exactly
// IsIgnoredIfReal's; it only spares building the path.
func (c *Cache) IsIgnoredIfRealRel(ctx context.Context, top, rel string, dir bool) (ignored, ok bool, err error) {
	var real bool
	m, err := c.judgeRel(ctx, top, rel, dir, CheckOptions{}, &batch{real: &real, noRule: true, verdict: true})
	return m.Ignored, real, err
}

// CheckIfRealRel is CheckIfReal for the path top+"/"+rel given apart, as
// Cache.IsIgnoredIfRealRel takes it.
func (b *Batch) CheckIfRealRel(ctx context.Context, top, rel string, dir bool) (Match, bool, error) {
	if b.asked++; b.asked == 2 {
		// A Batch of many questions builds its keys in a buffer of its
		// own (one of one question, on the stack).
		b.b.scratch = make([]byte, 0, 2*keyBufSize)
	}
	b.vouch = false
	if b.b.real != &b.vouch {
		// Left set after the question (Check and CheckInDirFd clear it,
		// CheckIfReal sets it): a run of these questions stores no
		// pointer into the Batch (no write barrier while the GC runs).
		b.b.real = &b.vouch
	}
	m, err := b.c.judgeRel(ctx, top, rel, dir, b.opts, &b.b)
	return m, b.vouch, err
}

// lastSlash is strings.LastIndexByte(s, '/'), eight bytes at a time from
// the end (a path's last component is mostly shorter than a byte loop
// pays for).
func lastSlash(s string) int {
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	i := len(b)
	for ; i >= 8; i -= 8 {
		x := binary.LittleEndian.Uint64(b[i-8:])
		const low7 = 0x7f7f7f7f7f7f7f7f
		y := x ^ 0x2f2f2f2f2f2f2f2f // zero where x's byte is '/'
		if m := ^((y&low7 + low7) | y | low7); m != 0 {
			// The high bit of each '/' byte, exactly (no sum carries
			// into the next byte): the highest is the last.
			return i - 8 + (63-bits.LeadingZeros64(m))/8
		}
	}
	for i--; i >= 0; i-- {
		if b[i] == '/' {
			return i
		}
	}
	return -1
}

// joinTop is top+"/"+rel ("/"+rel for the root).
func joinTop(top, rel string) string {
	if top == "/" {
		return "/" + rel
	}
	return top + "/" + rel
}

// joinTopRel is top+"/"+rel, or top for rel "".
func joinTopRel(top, rel string) string {
	if rel == "" {
		return top
	}
	return joinTop(top, rel)
}

// relBelow is abs relative to root when abs lies strictly below root.
func relBelow(abs, root string) (string, bool) {
	if root == "/" {
		return abs[1:], len(abs) > 1
	}
	if len(abs) > len(root)+1 && abs[len(root)] == '/' && abs[:len(root)] == root {
		return abs[len(root)+1:], true
	}
	return "", false
}

// judgeRel answers for top+"/"+rel with requireReal, as judge does; b.real
// is set when the watches vouch.
func (c *Cache) judgeRel(ctx context.Context, top, rel string, dir bool, opts CheckOptions, b *batch) (Match, error) {
	if err := ctx.Err(); err != nil {
		return Match{}, err
	}
	if top == "" || rel == "" {
		return Match{}, nil
	}
	slow := func() (Match, error) {
		path := joinTop(top, rel)
		if dir {
			path += "/"
		}
		m, _, err := c.judge(ctx, top, path, opts, true, b)
		return m, err
	}
	if !b.verdict || os.PathSeparator != '/' {
		return slow() // the rules named: judge's way
	}
	dirRel, name := "", rel
	if dir {
		// As judge does for "dir/": the directory's own state, and "dir/"
		// (an empty name) matched against the rules in force inside it.
		dirRel, name = rel, ""
	} else if i := lastSlash(rel); i >= 0 {
		dirRel, name = rel[:i], rel[i+1:]
	}
	c.mu.Lock()
	if !b.synced {
		// The clock is read only when something not vouched for by the
		// watches needs it (clock below): a warm question reads none.
		c.sync(true)
		b.synced = true
	}
	if !c.watching() {
		c.mu.Unlock()
		return Match{}, nil
	}
	clock := func() int64 {
		if b.now == 0 {
			b.now = c.now()
		}
		return b.now
	}
	// usable: vouched for at this gen, and trusted.
	usable := func(ps *dirState) bool {
		return ps != nil && ps.realGen == c.gen+1 && (ps.checked != 0 && ps.watched && ps.wgen == c.gen || c.trusted(ps.checked, ps.wgen, ps.watched, clock()))
	}
	// The memo of the parent directory, vouched for at this gen by a
	// judge that walked the watches from top down to it (see judge),
	// found by its path relative to top (no key to build), or the one
	// found last when it is the same (siblings in a row).
	ps := c.lastReal
	if ps == nil || ps.realKey != dirRel || ps.realTop != top || !usable(ps) {
		ps = c.realDirs(top)[dirRel]
		c.lastReal = ps
		if !usable(ps) {
			c.mu.Unlock()
			return slow()
		}
	}
	repo, xrel := ps.inRepo, ps.rel // ps.ctx's, kept on ps
	if dir && (repo == nil || xrel == "") {
		// A repository's root, or no repository: judge, which asks the
		// parent's repository.
		c.mu.Unlock()
		return slow()
	}
	// For "dir/", the repository holding dir (it is not that
	// repository's root) is the one holding its parent: repo judges.
	*b.real = true
	var ix *gitIndex
	if repo != nil && !opts.NoIndex {
		if f := repo.indexFile; f != nil && f.checked != 0 && f.watched && f.wgen == c.gen && f.index != nil && f.indexGen == f.gen {
			ix = f.index // what indexFor returns for a file the watches vouch for
		} else {
			ix = c.indexFor(ctx, repo, clock())
		}
	}
	untracked := ix != nil && ps.untracked == ix
	c.mu.Unlock()
	if repo == nil {
		return Match{}, nil // outside every repository
	}
	if repo.cfgErr != nil {
		return Match{}, repo.cfgErr // as judge
	}
	var ixErr error
	if ix != nil && ix.err != nil {
		ixErr, ix = ix.err, nil
	}
	// The path relative to the repository: rel itself when top is the
	// repository's root (xrel is then rel's directory part and a '/'),
	// else built in the Batch's scratch buffer, or on the stack (zeroed
	// only then).
	relRepo := rel
	if dir {
		relRepo = xrel // "dir/"
	} else if repo.root != top || len(xrel) != len(rel)-len(name) {
		var rb []byte
		if b.scratch != nil {
			rb = append(append(b.scratch[:0], xrel...), name...)
		} else {
			var kb [keyBufSize]byte
			rb = append(append(kb[:0], xrel...), name...)
		}
		relRepo = unsafe.String(unsafe.SliceData(rb), len(rb))
	}
	if ps.deepest > len(top) {
		// A directory between top and the path is ignored. The index
		// is asked once per directory whether it tracks anything in
		// that ignored directory; when it does not, nothing below it is
		// tracked either.
		if !untracked && ix != nil {
			if d, ok := relBelow(joinTopRel(top, dirRel)[:ps.deepest], repo.root); ok && !ix.covers(d) {
				untracked = true
				c.mu.Lock()
				ps.untracked = ix
				c.mu.Unlock()
			}
		}
		if !untracked && ix.covers(relRepo) {
			return Match{Tracked: true}, ixErr
		}
		return Match{Ignored: true}, ixErr
	}
	var rf, rd *ruleSet
	var i, j int
	if f := ps.flatOf(c); f != nil {
		rf, i, rd, j = f.decideBoth(relRepo, name)
	} else {
		rf, i, rd, j = ps.ctx.decideLevels(relRepo, name)
	}
	if rf == nil && rd == nil {
		return Match{}, ixErr
	}
	if ix.covers(relRepo) {
		return Match{Tracked: true}, ixErr
	}
	asFile := rf != nil && rf.rules[i].flags&ruleNegative == 0
	asDir := rd != nil && rd.rules[j].flags&ruleNegative == 0
	if asFile != asDir || (rf == nil) != (rd == nil) {
		// Only a rule ending in '/' tells the two apart: look at the path
		// (a copy: what the look may keep must not be the stack buffer).
		path := joinTop(top, rel)
		c.mu.Lock()
		isDir := c.isDir(path)
		c.mu.Unlock()
		if isDir {
			return Match{Ignored: asDir}, ixErr
		}
	}
	return Match{Ignored: asFile}, ixErr
}
