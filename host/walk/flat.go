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

// noRank is the rank of no rule.
const noRank = math.MaxInt32

// flatRules is one chain of rule sets merged. Rank 0 decides first. It is
// immutable once built.
type flatRules struct {
	repo  *repoInfo // what it was built for (exclude, global and fold)
	fold  bool
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

// flatFor returns x's merged matcher, or nil while x's chain has been
// asked fewer than flatAfter times (or x has no chain).
// Safe without c.mu: what it reads is immutable, and two callers that
// merge at once build the same thing.
func (x *dirCtx) flatFor() *flatRules {
	if x.repo == nil || x.chain == nil {
		return nil
	}
	slot := &x.chain.flat
	if f := slot.flat.Load(); f != nil && f.repo == x.repo {
		return f
	}
	if slot.asked.Add(1) < flatAfter {
		return nil
	}
	f := mergeRules(x)
	slot.flat.Store(f)
	return f
}

// mergeRules builds x's merged matcher, in decide's order.
func mergeRules(x *dirCtx) *flatRules {
	f := &flatRules{repo: x.repo, fold: x.repo.fold}
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
	for n := x.chain; n != nil; n = n.parent {
		add(n.rules, len(n.rules.base))
	}
	if rs := x.repo.exclude; rs != nil {
		add(rs, 0)
	}
	if rs := x.repo.global; rs != nil {
		add(rs, 0)
	}
	return f
}

// decideBoth is dirCtx.decideBoth from the merged rules: relPath is the
// path relative to the repository root (it holds every chain file's
// directory as a prefix), name its last component.
func (f *flatRules) decideBoth(relPath, name string) (rf *ruleSet, i int, rd *ruleSet, j int) {
	bf, bd := int32(noRank), int32(noRank)
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
	i, j = -1, -1
	if bf != noRank {
		rf, i = f.ents[bf].rs, int(f.ents[bf].i)
	}
	if bd != noRank {
		rd, j = f.ents[bd].rs, int(f.ents[bd].i)
	}
	return rf, i, rd, j
}
