package walk

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// wmCase is one case of git's own wildmatch suite (t/t3070-wildmatch.sh):
// the text, the pattern, and git's answers for, in order, WM_PATHNAME
// ("wildmatch"), WM_PATHNAME|WM_CASEFOLD ("iwildmatch"), no flags
// ("pathmatch") and WM_CASEFOLD ("ipathmatch").
type wmCase struct {
	text, pattern string
	want          string // four '0'/'1'
}

// wmModes are the flags of wmCase.want's four columns.
var wmModes = [4]uint8{wmPathname, wmPathname | wmCasefold, 0, wmCasefold}

var t3070 = []wmCase{
	{`foo`, `foo`, "1111"},
	{`foo`, `bar`, "0000"},
	{``, ``, "1111"},
	{`foo`, `???`, "1111"},
	{`foo`, `??`, "0000"},
	{`foo`, `*`, "1111"},
	{`foo`, `f*`, "1111"},
	{`foo`, `*f`, "0000"},
	{`foo`, `*foo*`, "1111"},
	{`foobar`, `*ob*a*r*`, "1111"},
	{`aaaaaaabababab`, `*ab`, "1111"},
	{`foo*`, `foo\*`, "1111"},
	{`foobar`, `foo\*bar`, "0000"},
	{`f\oo`, `f\\oo`, "1111"},
	{`ball`, `*[al]?`, "1111"},
	{`ten`, `[ten]`, "0000"},
	{`ten`, `**[!te]`, "1111"},
	{`ten`, `**[!ten]`, "0000"},
	{`ten`, `t[a-g]n`, "1111"},
	{`ten`, `t[!a-g]n`, "0000"},
	{`ton`, `t[!a-g]n`, "1111"},
	{`ton`, `t[^a-g]n`, "1111"},
	{`a]b`, `a[]]b`, "1111"},
	{`a-b`, `a[]-]b`, "1111"},
	{`a]b`, `a[]-]b`, "1111"},
	{`aab`, `a[]-]b`, "0000"},
	{`aab`, `a[]a-]b`, "1111"},
	{`]`, `]`, "1111"},
	{`foo/baz/bar`, `foo*bar`, "0011"},
	{`foo/baz/bar`, `foo**bar`, "0011"},
	{`foobazbar`, `foo**bar`, "1111"},
	{`foo/baz/bar`, `foo/**/bar`, "1111"},
	{`foo/baz/bar`, `foo/**/**/bar`, "1100"},
	{`foo/b/a/z/bar`, `foo/**/bar`, "1111"},
	{`foo/b/a/z/bar`, `foo/**/**/bar`, "1111"},
	{`foo/bar`, `foo/**/bar`, "1100"},
	{`foo/bar`, `foo/**/**/bar`, "1100"},
	{`foo/bar`, `foo?bar`, "0011"},
	{`foo/bar`, `foo[/]bar`, "0011"},
	{`foo/bar`, `foo[^a-z]bar`, "0011"},
	{`foo/bar`, `f[^eiu][^eiu][^eiu][^eiu][^eiu]r`, "0011"},
	{`foo-bar`, `f[^eiu][^eiu][^eiu][^eiu][^eiu]r`, "1111"},
	{`foo`, `**/foo`, "1100"},
	{`XXX/foo`, `**/foo`, "1111"},
	{`bar/baz/foo`, `**/foo`, "1111"},
	{`bar/baz/foo`, `*/foo`, "0011"},
	{`foo/bar/baz`, `**/bar*`, "0011"},
	{`deep/foo/bar/baz`, `**/bar/*`, "1111"},
	{`deep/foo/bar/baz/`, `**/bar/*`, "0011"},
	{`deep/foo/bar/baz/`, `**/bar/**`, "1111"},
	{`deep/foo/bar`, `**/bar/*`, "0000"},
	{`deep/foo/bar/`, `**/bar/**`, "1111"},
	{`foo/bar/baz`, `**/bar**`, "0011"},
	{`foo/bar/baz/x`, `*/bar/**`, "1111"},
	{`deep/foo/bar/baz/x`, `*/bar/**`, "0011"},
	{`deep/foo/bar/baz/x`, `**/bar/*/*`, "1111"},
	{`acrt`, `a[c-c]st`, "0000"},
	{`acrt`, `a[c-c]rt`, "1111"},
	{`]`, `[!]-]`, "0000"},
	{`a`, `[!]-]`, "1111"},
	{``, `\`, "0000"},
	{`\`, `\`, "0000"},
	{`XXX/\`, `*/\`, "0000"},
	{`XXX/\`, `*/\\`, "1111"},
	{`foo`, `foo`, "1111"},
	{`@foo`, `@foo`, "1111"},
	{`foo`, `@foo`, "0000"},
	{`[ab]`, `\[ab]`, "1111"},
	{`[ab]`, `[[]ab]`, "1111"},
	{`[ab]`, `[[:]ab]`, "1111"},
	{`[ab]`, `[[::]ab]`, "0000"},
	{`[ab]`, `[[:digit]ab]`, "1111"},
	{`[ab]`, `[\[:]ab]`, "1111"},
	{`?a?b`, `\??\?b`, "1111"},
	{`abc`, `\a\b\c`, "1111"},
	{`foo`, ``, "0000"},
	{`foo/bar/baz/to`, `**/t[o]`, "1111"},
	{`a1B`, `[[:alpha:]][[:digit:]][[:upper:]]`, "1111"},
	{`a`, `[[:digit:][:upper:][:space:]]`, "0101"},
	{`A`, `[[:digit:][:upper:][:space:]]`, "1111"},
	{`1`, `[[:digit:][:upper:][:space:]]`, "1111"},
	{`1`, `[[:digit:][:upper:][:spaci:]]`, "0000"},
	{` `, `[[:digit:][:upper:][:space:]]`, "1111"},
	{`.`, `[[:digit:][:upper:][:space:]]`, "0000"},
	{`.`, `[[:digit:][:punct:][:space:]]`, "1111"},
	{`5`, `[[:xdigit:]]`, "1111"},
	{`f`, `[[:xdigit:]]`, "1111"},
	{`D`, `[[:xdigit:]]`, "1111"},
	{`_`, `[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]`, "1111"},
	{`.`, `[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]`, "1111"},
	{`5`, `[a-c[:digit:]x-z]`, "1111"},
	{`b`, `[a-c[:digit:]x-z]`, "1111"},
	{`y`, `[a-c[:digit:]x-z]`, "1111"},
	{`q`, `[a-c[:digit:]x-z]`, "0000"},
	{`]`, `[\\-^]`, "1111"},
	{`[`, `[\\-^]`, "0000"},
	{`-`, `[\-_]`, "1111"},
	{`]`, `[\]]`, "1111"},
	{`\]`, `[\]]`, "0000"},
	{`\`, `[\]]`, "0000"},
	{`ab`, `a[]b`, "0000"},
	{`a[]b`, `a[]b`, "0000"},
	{`ab[`, `ab[`, "0000"},
	{`ab`, `[!`, "0000"},
	{`ab`, `[-`, "0000"},
	{`-`, `[-]`, "1111"},
	{`-`, `[a-`, "0000"},
	{`-`, `[!a-`, "0000"},
	{`-`, `[--A]`, "1111"},
	{`5`, `[--A]`, "1111"},
	{` `, `[ --]`, "1111"},
	{`$`, `[ --]`, "1111"},
	{`-`, `[ --]`, "1111"},
	{`0`, `[ --]`, "0000"},
	{`-`, `[---]`, "1111"},
	{`-`, `[------]`, "1111"},
	{`j`, `[a-e-n]`, "0000"},
	{`-`, `[a-e-n]`, "1111"},
	{`a`, `[!------]`, "1111"},
	{`[`, `[]-a]`, "0000"},
	{`^`, `[]-a]`, "1111"},
	{`^`, `[!]-a]`, "0000"},
	{`[`, `[!]-a]`, "1111"},
	{`^`, `[a^bc]`, "1111"},
	{`-b]`, `[a-]b]`, "1111"},
	{`\`, `[\]`, "0000"},
	{`\`, `[\\]`, "1111"},
	{`\`, `[!\\]`, "0000"},
	{`G`, `[A-\\]`, "1111"},
	{`aaabbb`, `b*a`, "0000"},
	{`aabcaa`, `*ba*`, "0000"},
	{`,`, `[,]`, "1111"},
	{`,`, `[\\,]`, "1111"},
	{`\`, `[\\,]`, "1111"},
	{`-`, `[,-.]`, "1111"},
	{`+`, `[,-.]`, "0000"},
	{`-.]`, `[,-.]`, "0000"},
	{`2`, `[\1-\3]`, "1111"},
	{`3`, `[\1-\3]`, "1111"},
	{`4`, `[\1-\3]`, "0000"},
	{`\`, `[[-\]]`, "1111"},
	{`[`, `[[-\]]`, "1111"},
	{`]`, `[[-\]]`, "1111"},
	{`-`, `[[-\]]`, "0000"},
	{`-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`, "1111"},
	{`-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`, "0000"},
	{`-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`, "0000"},
	{`XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1`, `XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*`, "1111"},
	{`XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1`, `XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*`, "0000"},
	{`abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt`, `**/*a*b*g*n*t`, "1111"},
	{`abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz`, `**/*a*b*g*n*t`, "0000"},
	{`foo`, `*/*/*`, "0000"},
	{`foo/bar`, `*/*/*`, "0000"},
	{`foo/bba/arr`, `*/*/*`, "1111"},
	{`foo/bb/aa/rr`, `*/*/*`, "0011"},
	{`foo/bb/aa/rr`, `**/**/**`, "1111"},
	{`abcXdefXghi`, `*X*i`, "1111"},
	{`ab/cXd/efXg/hi`, `*X*i`, "0011"},
	{`ab/cXd/efXg/hi`, `*/*X*/*/*i`, "1111"},
	{`ab/cXd/efXg/hi`, `**/*X*/**/*i`, "1111"},
	{`foo`, `fo`, "0000"},
	{`foo/bar`, `foo/bar`, "1111"},
	{`foo/bar`, `foo/*`, "1111"},
	{`foo/bba/arr`, `foo/*`, "0011"},
	{`foo/bba/arr`, `foo/**`, "1111"},
	{`foo/bba/arr`, `foo*`, "0011"},
	{`foo/bba/arr`, `foo**`, "0011"},
	{`foo/bba/arr`, `foo/*arr`, "0011"},
	{`foo/bba/arr`, `foo/**arr`, "0011"},
	{`foo/bba/arr`, `foo/*z`, "0000"},
	{`foo/bba/arr`, `foo/**z`, "0000"},
	{`foo/bar`, `foo?bar`, "0011"},
	{`foo/bar`, `foo[/]bar`, "0011"},
	{`foo/bar`, `foo[^a-z]bar`, "0011"},
	{`ab/cXd/efXg/hi`, `*Xg*i`, "0011"},
	{`a`, `[A-Z]`, "0101"},
	{`A`, `[A-Z]`, "1111"},
	{`A`, `[a-z]`, "0101"},
	{`a`, `[a-z]`, "1111"},
	{`a`, `[[:upper:]]`, "0101"},
	{`A`, `[[:upper:]]`, "1111"},
	{`A`, `[[:lower:]]`, "0101"},
	{`a`, `[[:lower:]]`, "1111"},
	{`A`, `[B-Za]`, "0101"},
	{`a`, `[B-Za]`, "1111"},
	{`A`, `[B-a]`, "0101"},
	{`a`, `[B-a]`, "1111"},
	{`z`, `[Z-y]`, "0101"},
	{`Z`, `[Z-y]`, "1111"},
}

// TestWildmatchGitSuite holds every matcher to git's answers: wildmatch
// (the backtracking with its budget, falling back to the automaton), the
// automaton alone, the backtracking alone with no budget, git 2.39's
// backtracking (legacyWildmatch) and the memoized reference.
func TestWildmatchGitSuite(t *testing.T) {
	for _, c := range t3070 {
		for i, flags := range wmModes {
			want := c.want[i] == '1'
			unbounded := 1 << 62
			got := map[string]bool{
				"wildmatch": wildmatch(c.pattern, c.text, flags),
				"automaton": compileWildmatch(c.pattern, flags).match(c.text),
				"backtrack": dowild(c.pattern, c.text, flags, &unbounded) == wmMatch,
				"reference": refWildmatch(c.pattern, c.text, flags),
				"git 2.39":  legacyWildmatch(c.pattern, c.text, flags),
			}
			for name, g := range got {
				if g != want {
					t.Errorf("%s(%q, %q, mode %d) = %v, git says %v", name, c.pattern, c.text, i, g, want)
				}
			}
		}
	}
}

// refWildmatch is the reference matcher: the meaning of a pattern written
// down directly (see wildmatch_nfa.go), memoized on (pattern offset, text
// offset), with no pruning at all. It is O(m·n²), for tests only.
func refWildmatch(p, t string, flags uint8) bool {
	fold := flags&wmCasefold != 0
	pathname := flags&wmPathname != 0
	fb := func(b byte) byte {
		if fold {
			return toLowerASCII(b)
		}
		return b
	}
	memo := map[[2]int]bool{}
	var ref func(pi, ti int) bool
	ref = func(pi, ti int) bool {
		key := [2]int{pi, ti}
		if v, ok := memo[key]; ok {
			return v
		}
		v := false
		defer func() { memo[key] = v }()
		if pi == len(p) {
			v = ti == len(t)
			return v
		}
		more := ti < len(t)
		switch c := p[pi]; c {
		case '\\':
			v = pi+1 < len(p) && more && fb(t[ti]) == p[pi+1] && ref(pi+2, ti+1)
		case '?':
			v = more && !(pathname && t[ti] == '/') && ref(pi+1, ti+1)
		case '[':
			if !more {
				return v
			}
			r, next := matchBracket(p, pi, fb(t[ti]), fold)
			v = r == wmMatch && !(pathname && t[ti] == '/') && ref(next+1, ti+1)
		case '*':
			q := pi
			for q < len(p) && p[q] == '*' {
				q++
			}
			all := !pathname
			if pathname && q-pi >= 2 && (pi == 0 || p[pi-1] == '/') &&
				(q == len(p) || p[q] == '/' || (p[q] == '\\' && q+1 < len(p) && p[q+1] == '/')) {
				all = true
				if q < len(p) && p[q] == '/' && ref(q+1, ti) {
					v = true
					return v
				}
			}
			for k := ti; k <= len(t); k++ {
				if ref(q, k) {
					v = true
					return v
				}
				if k < len(t) && !all && t[k] == '/' {
					break
				}
			}
		default:
			v = more && fb(t[ti]) == fb(c) && ref(pi+1, ti+1)
		}
		return v
	}
	return ref(0, 0)
}

// legacyWildmatch is git 2.39's algorithm (the one this package had before
// the budget and git 2.41's abort rule): exponential on some inputs, so
// only for short ones. It is a third opinion on git's meaning.
func legacyWildmatch(p, t string, flags uint8) bool {
	steps := 1 << 22
	r, ok := legacyDowild(p, t, flags, &steps)
	if !ok || steps < 0 {
		panic(fmt.Sprintf("legacyWildmatch(%q, %q): too slow", p, t))
	}
	return r == wmMatch
}

// legacyFinishes is legacyWildmatch's answer within steps, and whether it
// got one.
func legacyFinishes(p, t string, flags uint8, steps int) (bool, bool) {
	r, ok := legacyDowild(p, t, flags, &steps)
	return r == wmMatch, ok && steps >= 0
}

func legacyDowild(p, t string, flags uint8, steps *int) (wmResult, bool) {
	if *steps--; *steps < 0 {
		return wmAbortAll, false
	}
	fold := flags&wmCasefold != 0
	pathname := flags&wmPathname != 0
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		tc := byteAt(t, ti)
		if tc == 0 && pc != '*' {
			return wmAbortAll, true
		}
		if fold {
			tc = toLowerASCII(tc)
			pc = toLowerASCII(pc)
		}
		switch pc {
		case '\\':
			// The next pattern byte is literal (and, as in git, not folded).
			// A trailing backslash compares against NUL and never matches.
			pi++
			if tc != byteAt(p, pi) {
				return wmNoMatch, true
			}
		default:
			if tc != pc {
				return wmNoMatch, true
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch, true
			}
		case '*':
			matchSlash := !pathname
			pi++
			if byteAt(p, pi) == '*' {
				prev := pi - 2 // the byte before the first star
				for pi++; byteAt(p, pi) == '*'; pi++ {
				}
				if !pathname {
					matchSlash = true
				} else if (prev < 0 || p[prev] == '/') &&
					(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && byteAt(p, pi+1) == '/')) {
					// A "**" that is a whole component. "a/**/b" also
					// matches "a/b": try the rest with no directory at all.
					if byteAt(p, pi) == '/' && func() bool { r, ok := legacyDowild(p[pi+1:], t[ti:], flags, steps); return ok && r == wmMatch }() {
						return wmMatch, true
					}
					matchSlash = true
				} else {
					// Any other "**" is a plain "*".
					matchSlash = false
				}
			}
			if pi == len(p) {
				// A trailing "**" matches everything; a trailing "*" only
				// what has no further '/'.
				if !matchSlash && strings.IndexByte(t[ti:], '/') >= 0 {
					return wmNoMatch, true
				}
				return wmMatch, true
			}
			if !matchSlash && p[pi] == '/' {
				// "*/": the star takes the rest of this component.
				slash := strings.IndexByte(t[ti:], '/')
				if slash < 0 {
					return wmNoMatch, true
				}
				ti += slash
				continue // both slashes are consumed by the loop step
			}
			for {
				if tc == 0 {
					break
				}
				if !isGlobSpecial(p[pi]) {
					// Skip ahead to the next place the literal that follows
					// the star can start (never past a '/' for a single star).
					lit := p[pi]
					if fold {
						lit = toLowerASCII(lit)
					}
					for ; ti < len(t); ti++ {
						tc = t[ti]
						if !matchSlash && tc == '/' {
							break
						}
						if fold {
							tc = toLowerASCII(tc)
						}
						if tc == lit {
							break
						}
					}
					if ti == len(t) {
						tc = 0
					}
					if tc != lit {
						return wmNoMatch, true
					}
				}
				r, ok := legacyDowild(p[pi:], t[ti:], flags, steps)
				if !ok {
					return r, false
				}
				if r != wmNoMatch {
					if !matchSlash || r != wmAbortToStarStar {
						return r, true
					}
				} else if !matchSlash && tc == '/' {
					return wmAbortToStarStar, true
				}
				ti++
				tc = byteAt(t, ti)
			}
			return wmAbortAll, true
		case '[':
			r, next := matchBracket(p, pi, tc, fold)
			if r != wmMatch {
				return r, true
			}
			if pathname && tc == '/' {
				return wmNoMatch, true
			}
			pi = next
		}
	}
	if ti < len(t) {
		return wmNoMatch, true
	}
	return wmMatch, true
}

// randomPattern builds a pattern from pieces that exercise every token
// kind, over a small alphabet so that matches are common.
func randomPattern(r *rand.Rand, n int) string {
	pieces := []string{"a", "b", "/", "*", "**", "**/", "/**", "?", "[ab]", "[!a]", "[a-c]", "\\*", "A", "[[:upper:]]", "\\"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randomText builds a text over the same alphabet.
func randomText(r *rand.Rand, n int) string {
	const alpha = "aabbcA/*"
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return string(b)
}

// TestWildmatchAgrees runs many random short patterns and texts through
// every matcher, in all four modes: they must all agree with git 2.39's
// backtracking (where it finishes) and the reference.
func TestWildmatchAgrees(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 3000
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		p, txt := randomPattern(r, 1+r.IntN(8)), randomText(r, r.IntN(14))
		for _, flags := range wmModes {
			checkWildmatch(t, p, txt, flags)
		}
	}
}

// checkWildmatch compares the matchers on one input.
func checkWildmatch(t testing.TB, p, txt string, flags uint8) {
	t.Helper()
	want := refWildmatch(p, txt, flags)
	if legacy, ok := legacyFinishes(p, txt, flags, 1<<16); ok && legacy != want {
		t.Fatalf("reference(%q, %q, %d) = %v, git 2.39's algorithm %v", p, txt, flags, want, legacy)
	}
	if got := wildmatch(p, txt, flags); got != want {
		t.Fatalf("wildmatch(%q, %q, %d) = %v, reference %v", p, txt, flags, got, want)
	}
	if got := compileWildmatch(p, flags).match(txt); got != want {
		t.Fatalf("automaton(%q, %q, %d) = %v, reference %v", p, txt, flags, got, want)
	}
	unbounded := 1 << 62
	if got := dowild(p, txt, flags, &unbounded) == wmMatch; got != want {
		t.Fatalf("backtracking(%q, %q, %d) = %v, reference %v", p, txt, flags, got, want)
	}
}

// pathological returns inputs that make backtracking exponential, with
// pattern and text each at most maxLen bytes.
func pathological(maxLen int) []struct{ name, p, t string } {
	rep := func(s string, n int) string { return strings.Repeat(s, n) }
	fit := func(unit string, tail string) string {
		return rep(unit, (maxLen-len(tail))/len(unit)) + tail
	}
	return []struct{ name, p, t string }{
		{"issue: *a*a*…*b vs 199 a's and c", "*a*a*a*a*a*a*a*a*a*a*a*a*b", rep("a", 199) + "c"},
		{"*a*a*…*b vs a's, 4 KiB", fit("*a", "*b"), rep("a", maxLen)},
		{"*a*a*…*b vs a's and c, 4 KiB", fit("*a", "*b"), rep("a", maxLen-1) + "c"},
		{"*a*a*…*b vs a's and /, 4 KiB", fit("*a", "*b"), rep("a", maxLen-1) + "/"},
		{"*ab*ab*…*c vs ab's and a, 4 KiB", fit("*ab", "*c"), rep("ab", maxLen/2-1) + "a"},
		{"*a*a*…*a vs a's then b, 4 KiB", fit("*a", ""), rep("a", maxLen-1) + "b"},
		{"*?*?*…*b vs a's, 4 KiB", fit("*?", "*b"), rep("a", maxLen)},
		{"a*a*…[b] vs a's, 4 KiB", fit("a*", "[b]"), rep("a", maxLen)},
		{"**/ chain vs deep path, 4 KiB", fit("**/", "b"), rep("a/", maxLen/2)},
		{"**/a/ chain vs deep path, 4 KiB", fit("**/a/", "b"), rep("a/", maxLen/2)},
		{"*/ chain vs deep path, 4 KiB", fit("*a/", "b"), rep("a/", maxLen/2)},
		{"a**a**…b vs a's, 4 KiB", fit("a**", "b"), rep("a", maxLen)},
		{"[a]*[a]*…b vs a's, 4 KiB", fit("[a]*", "b"), rep("a", maxLen)},
		{"*a*a*…*b vs a/a/…, 4 KiB", fit("*a", "*b"), rep("a/", maxLen/2)},
		{"**/*a*a…b vs a/a/…, 4 KiB", "**/" + fit("*a", "*b")[3:], rep("a/", maxLen/2)},
	}
}

// wildmatchLimit is the bound: any pattern of up to 4 KiB against
// any name of up to 4 KiB in at most 50 ms.
const wildmatchLimit = 50 * time.Millisecond

// TestWildmatchPathological times the inputs that defeat backtracking, in
// every mode: each must answer within wildmatchLimit (the best of three
// tries, so a busy machine's pause does not count) and agree with the
// automaton alone.
func TestWildmatchPathological(t *testing.T) {
	limit := wildmatchLimit
	if raceEnabled {
		limit *= 20 // the race detector slows every memory access; the bound is for a normal build
	}
	for _, c := range pathological(4096) {
		for _, flags := range wmModes {
			best := time.Hour
			var got bool
			for try := 0; try < 3; try++ {
				start := time.Now()
				got = wildmatch(c.p, c.t, flags)
				best = min(best, time.Since(start))
			}
			if best > limit {
				t.Errorf("%s (flags %d): %v, want ≤ %v", c.name, flags, best, limit)
			}
			if want := compileWildmatch(c.p, flags).match(c.t); got != want {
				t.Errorf("%s (flags %d): wildmatch %v, automaton %v", c.name, flags, got, want)
			}
		}
	}
}

// FuzzWildmatch compares wildmatch with the memoized reference (and, where
// it finishes quickly, git 2.39's backtracking) and fails on a slow
// answer: any input of up to 4 KiB each must answer well within
// wildmatchLimit (the fuzzer's instrumentation makes everything slower, so
// the bound here is 4× it). Long inputs are only timed: the reference is
// O(m·n²).
func FuzzWildmatch(f *testing.F) {
	for _, c := range t3070 {
		f.Add(c.pattern, c.text, uint8(0))
	}
	for _, c := range pathological(512) {
		f.Add(c.p, c.t, uint8(wmPathname))
	}
	f.Fuzz(func(t *testing.T, p, txt string, flags uint8) {
		if len(p) > 4096 || len(txt) > 4096 {
			return
		}
		flags &= wmPathname | wmCasefold
		p, txt = cutNUL(p), cutNUL(txt) // as wildmatch does, for the others
		start := time.Now()
		got := wildmatch(p, txt, flags)
		if d := time.Since(start); d > 4*wildmatchLimit && !raceEnabled {
			t.Fatalf("wildmatch(%d-byte pattern, %d-byte text, %d) took %v", len(p), len(txt), flags, d)
		}
		if len(p) <= 64 && len(txt) <= 64 {
			checkWildmatch(t, p, txt, flags)
		} else if want := compileWildmatch(p, flags).match(txt); got != want {
			t.Fatalf("wildmatch(%q, %q, %d) = %v, automaton %v", p, txt, flags, got, want)
		}
	})
}

// BenchmarkWildmatchPathological is the figure for the pathological
// inputs: the time of one answer, now and (sub-benchmark "git2.39", only
// where it finishes within a step cap, else reported as skipped) with the
// backtracking this package had before.
func BenchmarkWildmatchPathological(b *testing.B) {
	for _, c := range pathological(4096) {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				wildmatch(c.p, c.t, wmPathname)
			}
		})
	}
}

// BenchmarkWildmatchTypical is wildmatch on patterns real ignore files
// hold, so the budget's cost shows.
func BenchmarkWildmatchTypical(b *testing.B) {
	cases := []struct{ p, t string }{
		{"*.tar.g?", "release-1.2.3.tar.gz"},
		{"foo*bar", "foo-something-bar"},
		{"**/node_modules/**", "web/app/node_modules/react/index.js"},
		{"src/**/*.gen.go", "src/a/b/c/types.gen.go"},
		{"[Bb]uild", "build"},
	}
	for b.Loop() {
		for _, c := range cases {
			wildmatch(c.p, c.t, wmPathname)
		}
	}
}

// BenchmarkWildmatchBeforeAfter is the before/after figure on the issue's
// shape, "*a" k times then "*b" against 199 a's and a c, for k = 1..4:
// git 2.39's backtracking (the matcher before) grows about 50× per star
// (k = 4 takes seconds; the k = 12 would take longer than the
// universe has existed), wildmatch stays near a microsecond.
func BenchmarkWildmatchBeforeAfter(b *testing.B) {
	txt := strings.Repeat("a", 199) + "c"
	for k := 1; k <= 4; k++ {
		p := strings.Repeat("*a", k) + "*b"
		b.Run(fmt.Sprintf("before/k=%d", k), func(b *testing.B) {
			for b.Loop() {
				steps := 1 << 62
				legacyDowild(p, txt, 0, &steps)
			}
		})
		b.Run(fmt.Sprintf("after/k=%d", k), func(b *testing.B) {
			for b.Loop() {
				wildmatch(p, txt, 0)
			}
		})
	}
}
