package walk

import (
	"math"
	"strings"
	"sync/atomic"
)

// This file merges the rules in force in a directory into one matcher for
// the questions IsIgnored answers many times over: decide tries each
// .gitignore from the deepest up, then info/exclude, then the global
// excludes file, each with its own maps; the merged matcher ranks every
// rule in that order and answers with one look-up per map (by name, by
// path, by extension) and the globs in rank order, for a file and a
// directory at once.

// flatAfter is how many questions a chain answers through decideBoth
// before it is merged: merging costs about as much as a few dozen
// questions, which a one-shot process asking once per directory would
// not win back.
const flatAfter = 16

// flatSlack and flatMergeMax say when a directory's level is merged with
// the first segment above it (see newSegment): when that segment holds at
// most flatSlack rules more than the level itself, and both together at
// most flatMergeMax; else the level stands alone, answered by its own
// maps. So a segment copies at most twice its level's rules and
// flatSlack, and never more than flatMergeMax, whatever the depth: the
// segments of a tree hold at most that per .gitignore, linear in the
// rules, where merging every chain whole was quadratic in its depth (100
// levels of 2,000 rules: 10 million copies, 787 MiB). A big level gains
// nothing from a copy (its own maps answer in as many look-ups); small
// levels in a row, and a root .gitignore with info/exclude and the global
// file, are merged as before.
const (
	flatSlack    = 64
	flatMergeMax = 1024
)

// flatEntCost and flatSegCost are what a merged matcher is charged in the
// Cache's bound (maxCacheBytes) per rule it copies and per segment:
// over-estimates of a flatEnt with its share of the maps and lists, and of
// a segment's own fields (TestFlatChargeCovers holds them to what the heap
// grows by).
const (
	flatEntCost = 192
	flatSegCost = 512
)

// noRank is the rank of no rule.
const noRank = math.MaxInt32

// flatRules is one segment of a chain's rules merged: the rules of one or
// more consecutive levels (a directory's .gitignore and those above it,
// then info/exclude and the global excludes file), deepest first, then
// the segment above it (next), shared by every directory below. Rank 0
// decides first. It is immutable once built.
type flatRules struct {
	repo *repoInfo // what it was built for (exclude, global and fold)
	fold bool
	// sets are the levels this segment holds, in decide's order, and
	// size the number of their rules.
	sets []*ruleSet
	size int
	// level, when the segment holds one level, is that level: it is
	// answered by the rule set's own maps, not copied (ents and the maps
	// below are empty).
	level *ruleSet
	// next is the segment that follows, nil at the end of the chain;
	// tail, on the last segment, says that info/exclude and the global
	// file follow it unmerged (tried one after the other, as levels).
	next *flatRules
	tail bool

	ents  []flatEnt          // by rank
	byNm  map[string]flatTop // literal names: the first rank for a file and for a directory
	byPth map[string]flatTop // literal paths, relative to the repository root
	// pthLens has bit min(n, 63) set for each length n of a byPth key: a
	// path of another length is not looked up.
	pthLens uint64
	byExt   map[string][]int32 // basename globs by extension, ranks ascending
	globs   []int32            // every other rule, ranks ascending
	// nmBits and extBits have keyBit(k) set for each key k of byNm and
	// byExt: a name whose bit is clear is not looked up (most names are
	// in neither map, and the bit costs no memory access).
	nmBits, extBits uint64
}

// keyBit is a 64-bit mask with one bit for k, from its length and last
// byte: two keys with different bits differ.
func keyBit(k string) uint64 {
	if k == "" {
		return 1
	}
	return 1 << ((uint(len(k))*7 + uint(k[len(k)-1])) & 63)
}

// flatEnt is one rule of a flatRules: rule i of rs, matched against the
// path relative to the repository root from byte base on (rs's
// directory). r and flags are that rule and its flags, kept here so that
// trying it costs one pointer less; lead, for a path glob with a literal
// prefix (unfolded), is its first leadLen bytes (at most eight) packed
// little-endian: a path whose part below base does not start with them
// is refused without looking at the rule (matchPathname would refuse it
// at its prefix).
type flatEnt struct {
	rs      *ruleSet
	r       *rule
	lead    uint64
	i, base int32 // a rule's index (files are at most maxIgnoreFileSize) and a length within a path
	flags   uint8
	leadLen uint8
}

// packLead is the first n (at most eight) bytes of s, little-endian.
func packLead(s string, n int) uint64 {
	var w uint64
	for i := range n {
		w |= uint64(s[i]) << (8 * i)
	}
	return w
}

// flatTop is the first rank among some rules that applies to a file, and
// to a directory (a rule ending in '/' applies to directories only).
type flatTop struct{ file, dir int32 }

// flatChain is where a chain's merged matcher is kept: on its deepest
// node. A directory with no .gitignore anywhere above has only
// info/exclude and the global file to try, and is not merged.
type flatChain struct {
	asked atomic.Int32
	flat  atomic.Pointer[flatRules]
}

// noFlat is what a chain node keeps when its segment would have taken the
// Cache past its bound: it is answered level by level (decideLevels), and
// not merged again until the Cache drops everything (and with it the node).
var noFlat = &flatRules{}

// flatFor returns x's merged matcher, or nil while x's chain has been
// asked fewer than flatAfter times, when x has no chain, or when building
// it would take c past its bound (maxCacheBytes; c nil: no bound).
// Safe without c.mu (it takes it to charge what it builds): what it reads
// is immutable, and two callers that merge at once build the same thing.
func (x *dirCtx) flatFor(c *Cache) *flatRules {
	if x.repo == nil || x.chain == nil {
		return nil
	}
	slot := &x.chain.flat
	if f := slot.flat.Load(); f != nil && (f.repo == x.repo || f == noFlat) {
		if f == noFlat {
			return nil
		}
		return f
	}
	if slot.asked.Add(1) < flatAfter {
		return nil
	}
	return segmentsFor(c, x.repo, x.chain)
}

// segmentsFor returns the segments of the chain from n up in repository r,
// building (and charging to c) those not built yet, from the top down: a
// segment is built once per chain node and shared by every node below.
// nil if some segment would take c past its bound.
func segmentsFor(c *Cache, r *repoInfo, n *ignoreNode) *flatRules {
	var todo []*ignoreNode // from n up to the first node with its segment built
	var above *flatRules   // that node's segment; nil: none up to the top
	for m := n; m != nil; m = m.parent {
		if f := m.flat.flat.Load(); f != nil && (f.repo == r || f == noFlat) {
			if f == noFlat {
				n.flat.flat.Store(noFlat)
				return nil
			}
			above = f
			break
		}
		todo = append(todo, m)
	}
	for k := len(todo) - 1; k >= 0; k-- {
		m := todo[k]
		f := newSegment(r, m.rules, above)
		if !c.chargeFlat(f) {
			m.flat.flat.Store(noFlat)
			if m != n {
				n.flat.flat.Store(noFlat)
			}
			return nil
		}
		f.build()
		if !m.flat.flat.CompareAndSwap(nil, f) {
			// Another caller stored one meanwhile (or one built for
			// another repository is there): keep what is there when it
			// serves, else ours (charged twice at most: an over-estimate).
			if g := m.flat.flat.Load(); g == noFlat {
				if m != n {
					n.flat.flat.Store(noFlat)
				}
				return nil
			} else if g != nil && g.repo == r {
				f = g
			} else {
				m.flat.flat.Store(f)
			}
		}
		above = f
	}
	return above
}

// newSegment lays out (without building) the segment of the level rs in
// repository r, whose segment above is above (nil at the top of the
// chain): rs alone, or rs merged with above's first segment when that is
// small next to rs (see flatSlack). At the top, info/exclude and the
// global file stand for the segment above.
func newSegment(r *repoInfo, rs *ruleSet, above *flatRules) *flatRules {
	f := &flatRules{repo: r, fold: r.fold}
	own := len(rs.rules)
	if above == nil {
		var tail []*ruleSet
		n := 0
		for _, t := range []*ruleSet{r.exclude, r.global} {
			if !t.empty() {
				tail = append(tail, t)
				n += len(t.rules)
			}
		}
		if len(tail) > 0 && n <= own+flatSlack && own+n <= flatMergeMax {
			f.sets = append([]*ruleSet{rs}, tail...)
			f.size = own + n
			return f
		}
		f.tail = len(tail) > 0
	} else if above.size <= own+flatSlack && own+above.size <= flatMergeMax {
		f.sets = append([]*ruleSet{rs}, above.sets...)
		f.size = own + above.size
		f.next, f.tail = above.next, above.tail
		return f
	} else {
		f.next = above
	}
	f.sets, f.size, f.level = []*ruleSet{rs}, own, rs
	return f
}

// chargeFlat counts f (laid out by newSegment) into c's bound, and
// reports whether it fits: a merged matcher never makes the Cache drop
// everything (it would be built again at once), and the merged matchers
// together take at most half the bound (the directories it is for keep
// the rest); past that it is not built, and its chain is answered level
// by level until the Cache drops everything for another reason. c nil: it
// fits.
func (c *Cache) chargeFlat(f *flatRules) bool {
	if c == nil {
		return true
	}
	n := flatSegCost
	if f.level == nil {
		n += f.size * flatEntCost
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.limit()
	if c.bytes+n > limit || c.flatBytes+n > limit/2 {
		return false
	}
	c.bytes += n
	c.flatBytes += n
	return true
}

// mergeRules builds x's merged matcher whole, uncharged (for tests: its
// segments are those flatFor would build).
func mergeRules(x *dirCtx) *flatRules {
	return segmentsFor(nil, x.repo, x.chain)
}

// build merges f's levels (a segment of more than one), in decide's order.
func (f *flatRules) build() {
	if f.level != nil {
		return
	}
	f.ents = make([]flatEnt, 0, f.size)
	add := func(rs *ruleSet, base int) {
		for i := len(rs.rules) - 1; i >= 0; i-- {
			r := &rs.rules[i]
			k := int32(len(f.ents))
			e := flatEnt{rs: rs, r: r, i: int32(i), base: int32(base), flags: r.flags}
			if r.kind == kindGlob && r.flags&ruleNoDir == 0 && !f.fold && r.prefix > 0 {
				e.leadLen = uint8(min(r.prefix, 8))
				e.lead = packLead(r.pattern, int(e.leadLen))
			}
			f.ents = append(f.ents, e)
			top := func(m *map[string]flatTop, key string) {
				if *m == nil {
					*m = map[string]flatTop{}
				}
				t, ok := (*m)[key]
				if !ok {
					t = flatTop{noRank, noRank}
				}
				if r.flags&ruleMustBeDir == 0 && t.file == noRank {
					t.file = k
				}
				if t.dir == noRank {
					t.dir = k
				}
				(*m)[key] = t
			}
			key := func(s string) string {
				if f.fold {
					return lowerASCII(s)
				}
				return s
			}
			switch r.kind {
			case kindName:
				k := key(r.pattern)
				top(&f.byNm, k)
				f.nmBits |= keyBit(k)
			case kindPath:
				k := key(rs.base[:base] + r.pattern)
				top(&f.byPth, k)
				f.pthLens |= 1 << min(len(k), 63)
			case kindExt:
				if f.byExt == nil {
					f.byExt = map[string][]int32{}
				}
				e := key(rs.extKey(r)[1:])
				f.byExt[e] = append(f.byExt[e], k)
				f.extBits |= keyBit(e)
			default:
				f.globs = append(f.globs, k)
			}
		}
	}
	for _, rs := range f.sets {
		// A .gitignore's rules are matched against the path below its
		// directory; info/exclude's and the global file's (base "")
		// against the whole path.
		add(rs, len(rs.base))
	}
}

// decideBoth is dirCtx.decideBoth from the merged rules: relPath is the
// path relative to the repository root (it holds every chain file's
// directory as a prefix), name its last component. The segments are
// tried in order until both answers are known.
func (f *flatRules) decideBoth(relPath, name string) (rf *ruleSet, i int, rd *ruleSet, j int) {
	i, j = -1, -1
	s := f
	for {
		if s.level != nil {
			levelBoth(s.level, relPath, name, &rf, &i, &rd, &j)
		} else {
			s.mergedBoth(relPath, name, &rf, &i, &rd, &j)
		}
		if rf != nil && rd != nil {
			return
		}
		if s.next == nil {
			break
		}
		s = s.next
	}
	if s.tail {
		if rs := s.repo.exclude; rs != nil && levelBoth(rs, relPath, name, &rf, &i, &rd, &j) {
			return
		}
		if rs := s.repo.global; rs != nil {
			levelBoth(rs, relPath, name, &rf, &i, &rd, &j)
		}
	}
	return
}

// levelBoth is one level of decideLevels: it sets the answers still
// missing (*rf nil for a file, *rd nil for a directory) from rs, and
// reports whether both are known. relPath is relative to the repository
// root; rs is handed the part below its directory.
func levelBoth(rs *ruleSet, relPath, name string, rf **ruleSet, i *int, rd **ruleSet, j *int) bool {
	path := ""
	if len(relPath) >= len(rs.base) {
		path = relPath[len(rs.base):]
	}
	if !rs.hasDirOnly {
		if *rf == nil || *rd == nil {
			if k := rs.match(path, name, false); k >= 0 {
				if *rf == nil {
					*rf, *i = rs, k
				}
				if *rd == nil {
					*rd, *j = rs, k
				}
			}
		}
	} else {
		if *rf == nil {
			if k := rs.match(path, name, false); k >= 0 {
				*rf, *i = rs, k
			}
		}
		if *rd == nil {
			if k := rs.match(path, name, true); k >= 0 {
				*rd, *j = rs, k
			}
		}
	}
	return *rf != nil && *rd != nil
}

// mergedBoth is levelBoth for a merged segment: it sets the answers
// still missing from the segment's ranks.
func (f *flatRules) mergedBoth(relPath, name string, rf **ruleSet, i *int, rd **ruleSet, j *int) {
	// An answer known already is rank -1 here: no rule improves it.
	bf, bd := int32(noRank), int32(noRank)
	if *rf != nil {
		bf = -1
	}
	if *rd != nil {
		bd = -1
	}
	take := func(t flatTop) {
		bf, bd = min(bf, t.file), min(bd, t.dir)
	}
	if f.byNm != nil {
		k := name
		if f.fold {
			k = lowerASCII(k)
		}
		if f.nmBits&keyBit(k) != 0 {
			if t, ok := f.byNm[k]; ok {
				take(t)
			}
		}
	}
	if f.byPth != nil && f.pthLens&(1<<min(len(relPath), 63)) != 0 {
		k := relPath
		if f.fold {
			k = lowerASCII(k)
		}
		if t, ok := f.byPth[k]; ok {
			take(t)
		}
	}
	// try matches rank k (a basename glob, or a path glob against the
	// path below its file's directory) where it could still improve an
	// answer.
	try := func(k int32) {
		e := &f.ents[k]
		dirOnly := e.flags&ruleMustBeDir != 0
		if k >= bd && (dirOnly || k >= bf) {
			return
		}
		var ok bool
		if e.flags&ruleNoDir != 0 {
			ok = matchBasename(e.r, name, f.fold)
		} else {
			sub := ""
			if base := int(e.base); len(relPath) >= base {
				sub = relPath[base:]
			}
			if n := int(e.leadLen); n == 0 || len(sub) >= n && packLead(sub, n) == e.lead {
				ok = matchPathname(e.r, sub, f.fold)
			}
		}
		if ok {
			if !dirOnly {
				bf = min(bf, k)
			}
			bd = min(bd, k)
		}
	}
	if f.byExt != nil {
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			k := name[dot+1:]
			if f.fold {
				k = lowerASCII(k)
			}
			var ranks []int32
			if f.extBits&keyBit(k) != 0 {
				ranks = f.byExt[k]
			}
			for _, r := range ranks {
				if r >= bf && r >= bd {
					break
				}
				try(r)
			}
		}
	}
	for _, r := range f.globs {
		if r >= bf && r >= bd {
			break
		}
		try(r)
	}
	if bf >= 0 && bf != noRank {
		*rf, *i = f.ents[bf].rs, int(f.ents[bf].i)
	}
	if bd >= 0 && bd != noRank {
		*rd, *j = f.ents[bd].rs, int(f.ents[bd].i)
	}
}
