package walk

// This file holds the automaton that answers a wildmatch question in
// O(m·n/64) time whatever the pattern (m bytes) and text (n bytes): the
// pattern is read once into a list of tokens, and the text is run through
// the set of tokens reached so far, one bit per token (a bit-parallel NFA,
// as in the Shift-And algorithm). It gives the answer git's backtracking
// gives: the backtracking only prunes alignments that cannot succeed (the
// abort results), so what it computes is the plain meaning of the pattern,
// which is what the automaton computes without any backtracking.
//
// The meaning, token by token (pathname is wmPathname):
//
//   - a literal byte, "\x" (x literal, never folded), "?" (one byte, not
//     '/' under pathname) and a bracket expression (one byte of its set,
//     never '/' under pathname) each take one text byte;
//   - a run of stars takes any bytes, none of them '/' when pathname is
//     set, unless the run is "**" standing as a whole component (at the
//     start of the pattern or after '/', and at its end or before '/' or
//     "\/"), which takes '/' too; "**/" standing so also takes nothing at
//     all together with its '/' ("a/**/b" matches "a/b");
//   - a malformed bracket expression (unterminated, an unknown [:class:])
//     or a trailing backslash makes the whole pattern match nothing.

// wmKind is what one token of a compiled pattern takes.
type wmKind uint8

const (
	wmByte    wmKind = iota // one byte of set
	wmStar                  // any bytes but '/'
	wmStarAll               // any bytes
	wmSplit                 // takes nothing: goes on to the next token, or past the next three
)

// wmToken is one token of a compiled pattern.
type wmToken struct {
	kind wmKind
	set  byteSet // for wmByte: the raw text bytes it takes
}

// wmProgram is a compiled pattern.
type wmProgram struct {
	toks  []wmToken
	bytes int  // tokens that take one byte each: a shorter text cannot match
	dead  bool // matches nothing (malformed)
}

// byteSet is a set of byte values.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

// setOf is the set of bytes fn accepts.
func setOf(fn func(b byte) bool) byteSet {
	var s byteSet
	for i := 0; i < 256; i++ {
		if fn(byte(i)) {
			s.add(byte(i))
		}
	}
	return s
}

// compileWildmatch reads pattern (with the wm flags) into a wmProgram.
func compileWildmatch(p string, flags uint8) *wmProgram {
	fold := flags&wmCasefold != 0
	pathname := flags&wmPathname != 0
	fb := func(b byte) byte {
		if fold {
			return toLowerASCII(b)
		}
		return b
	}
	prog := &wmProgram{}
	lit := func(c byte) wmToken {
		return wmToken{kind: wmByte, set: setOf(func(b byte) bool { return fb(b) == c })}
	}
	for pi := 0; pi < len(p); {
		switch c := p[pi]; c {
		case '\\':
			if pi+1 == len(p) {
				return &wmProgram{dead: true}
			}
			prog.toks = append(prog.toks, lit(p[pi+1])) // not folded, as in git
			pi += 2
		case '?':
			prog.toks = append(prog.toks, wmToken{kind: wmByte, set: setOf(func(b byte) bool { return !pathname || b != '/' })})
			pi++
		case '[':
			end := -1
			set := setOf(func(b byte) bool {
				r, next := matchBracket(p, pi, fb(b), fold)
				if r == wmAbortAll {
					return false
				}
				end = next
				return r == wmMatch && !(pathname && b == '/')
			})
			if end < 0 {
				return &wmProgram{dead: true}
			}
			prog.toks = append(prog.toks, wmToken{kind: wmByte, set: set})
			pi = end + 1
		case '*':
			start := pi
			for pi < len(p) && p[pi] == '*' {
				pi++
			}
			kind := wmStarAll
			skip := false
			if pathname {
				kind = wmStar
				if pi-start >= 2 && (start == 0 || p[start-1] == '/') &&
					(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && byteAt(p, pi+1) == '/')) {
					kind = wmStarAll
					skip = byteAt(p, pi) == '/'
				}
			}
			if !skip {
				prog.toks = append(prog.toks, wmToken{kind: kind})
				break
			}
			// "**/" is a split before the star: into the star and its '/',
			// or past both.
			pi++
			if n := len(prog.toks); n >= 3 && prog.toks[n-3].kind == wmSplit {
				// "**/**/" means what "**/" means: drop the second, so
				// that splits never chain.
				break
			}
			prog.toks = append(prog.toks, wmToken{kind: wmSplit}, wmToken{kind: wmStarAll}, lit('/'))
		default:
			prog.toks = append(prog.toks, lit(fb(c)))
			pi++
		}
	}
	for j, t := range prog.toks {
		if t.kind == wmByte && !(j >= 2 && prog.toks[j-2].kind == wmSplit) {
			prog.bytes++ // a split's '/' may be skipped
		}
	}
	return prog
}

// match runs text through the program.
func (prog *wmProgram) match(text string) bool {
	if prog.dead || prog.bytes > len(text) {
		// A text too short for the pattern is refused before any work, so
		// a pattern far longer than the text costs only its compilation.
		return false
	}
	m := len(prog.toks)
	w := (m + 1 + 63) / 64 // bit m is "the whole pattern consumed"
	// One slab: the live set, the next set, the star and skip masks, the
	// stars that take '/', then one mask per byte value met.
	slab := make([]uint64, 5*w)
	cur, next, stars, splits, slashStars := slab[:w], slab[w:2*w], slab[2*w:3*w], slab[3*w:4*w], slab[4*w:5*w]
	for j, t := range prog.toks {
		switch t.kind {
		case wmStarAll:
			slashStars[j>>6] |= 1 << (j & 63)
			fallthrough
		case wmStar:
			stars[j>>6] |= 1 << (j & 63)
		case wmSplit:
			splits[j>>6] |= 1 << (j & 63)
		}
	}
	var byteMask [256][]uint64
	maskFor := func(b byte) []uint64 {
		if mk := byteMask[b]; mk != nil {
			return mk
		}
		mk := make([]uint64, w)
		for j := range prog.toks {
			if t := &prog.toks[j]; t.kind == wmByte && t.set.has(b) {
				mk[j>>6] |= 1 << (j & 63)
			}
		}
		byteMask[b] = mk
		return mk
	}
	// closure adds what the live set reaches without taking a byte: from a
	// split into its star or past its star and '/' (never onto another
	// split: they were merged), then past any star (never onto another
	// star: a run of stars is one token).
	closure := func(d []uint64) {
		shiftOr(d, d, splits, 1)
		shiftOr(d, d, splits, 3)
		shiftOr(d, d, stars, 1)
	}
	cur[0] = 1
	closure(cur)
	for i := 0; i < len(text); i++ {
		b := text[i]
		mk := maskFor(b)
		st := stars
		if b == '/' {
			st = slashStars
		}
		live := uint64(0)
		for k := range next {
			next[k] = cur[k] & st[k]
		}
		shiftOr(next, cur, mk, 1)
		closure(next)
		for k := range next {
			live |= next[k]
		}
		if live == 0 {
			return false
		}
		cur, next = next, cur
	}
	return cur[m>>6]&(1<<(m&63)) != 0
}

// shiftOr sets dst |= (src & mask) << by (1 ≤ by < 64), over multi-word
// bit sets (bit j of word k is position 64k+j). dst may be src: each word
// is read before it is written, so a bit set by this call is not shifted
// again (one step, not a transitive closure).
func shiftOr(dst, src, mask []uint64, by uint) {
	var carry uint64
	for k := range src {
		v := src[k] & mask[k]
		out := v<<by | carry
		carry = v >> (64 - by)
		dst[k] |= out
	}
}
