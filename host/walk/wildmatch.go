package walk

import "strings"

// This file holds the glob engine: git's wildmatch semantics, byte by byte.
//
// Why not github.com/bmatcuk/doublestar/v4, which the issue suggested:
// doublestar matches runes, not bytes (so "?" eats a whole UTF-8 sequence
// and invalid UTF-8 behaves differently), treats {a,b} as alternation where
// git reads braces literally, has no POSIX classes ([[:alpha:]]), no
// case-folding mode, and no notion of git's "**" rules (special only when it
// is a whole path component, and the "abort to the last **" backtracking).
// Each of these gives a different answer from git on some input, so the
// engine below follows gitignore(5) and git's wildmatch behaviour directly.
// It is a fresh implementation of that behaviour, not a copy of git's code.

// Match flags.
const (
	// wmCasefold folds ASCII letters (core.ignorecase).
	wmCasefold uint8 = 1 << iota
	// wmPathname keeps '*', '?' and bracket expressions from matching '/',
	// and gives "**" its directory-spanning meaning.
	wmPathname
)

// wmResult is the outcome of one matching attempt. The two abort results
// prune the backtracking: wmAbortAll says no alignment of any enclosing
// star can succeed (the text ran out, the literal after a star occurs
// nowhere further on, or the pattern is malformed); wmAbortToStarStar says
// a single star can get no further within its path component, so only an
// enclosing "**" may try again further on. wmOverBudget says the attempt
// took more steps than wildmatch allows it and the answer is left to the
// automaton (see wildmatch).
type wmResult uint8

const (
	wmMatch wmResult = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
	wmOverBudget
)

// wildmatchBudget bounds the steps (pattern bytes compared, text bytes
// skipped, star positions tried) of the backtracking matcher for a pattern
// of length m and a text of length n before wildmatch hands the question
// to the automaton, which is O(m·n/64) whatever the input. Every pattern
// met in real ignore files matches in far fewer steps (the backtracking is
// then the faster of the two, with no set-up); the budget only caps the
// pathological ones ("*a*a*a*a*b" against a long run of a's, "**/" chains)
// at a linear cost before the automaton runs.
func wildmatchBudget(m, n int) int { return 256 + 8*(m+n) }

// wildmatch reports whether text matches pattern. Matching is byte-wise;
// only ASCII letters fold under wmCasefold. The time taken is polynomial
// in the lengths, O(len(pattern)·len(text)/64) at worst: the backtracking
// matcher (git's algorithm, with the abort rule git 2.41 added) answers
// within wildmatchBudget steps, or the automaton (wmProgram) answers.
// Both give git's answer; the conformance and fuzz tests hold them to it
// and to each other. As for git's C strings, a NUL byte ends the pattern
// and the text (neither an ignore line nor a file name holds one).
func wildmatch(pattern, text string, flags uint8) bool {
	pattern, text = cutNUL(pattern), cutNUL(text)
	budget := wildmatchBudget(len(pattern), len(text))
	switch dowild(pattern, text, flags, &budget) {
	case wmMatch:
		return true
	case wmOverBudget:
		return compileWildmatch(pattern, flags).match(text)
	}
	return false
}

// cutNUL returns s up to its first NUL byte.
func cutNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// byteAt returns s[i], or 0 past the end (the C string terminator the
// semantics were defined with; neither patterns nor names contain NUL).
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// dowild is git's wildmatch algorithm on p and t, spending *budget (see
// wildmatchBudget) and giving up with wmOverBudget when it runs out.
func dowild(p, t string, flags uint8, budget *int) wmResult {
	fold := flags&wmCasefold != 0
	pathname := flags&wmPathname != 0
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		if *budget--; *budget < 0 {
			return wmOverBudget
		}
		pc := p[pi]
		tc := byteAt(t, ti)
		if tc == 0 && pc != '*' {
			return wmAbortAll
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
				return wmNoMatch
			}
		default:
			if tc != pc {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
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
					if byteAt(p, pi) == '/' {
						switch dowild(p[pi+1:], t[ti:], flags, budget) {
						case wmMatch:
							return wmMatch
						case wmOverBudget:
							return wmOverBudget
						}
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
				if !matchSlash {
					if *budget -= len(t) - ti; *budget < 0 {
						return wmOverBudget
					}
					if strings.IndexByte(t[ti:], '/') >= 0 {
						// No enclosing single star can move the '/' away.
						return wmAbortToStarStar
					}
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// "*/": the star takes the rest of this component.
				slash := strings.IndexByte(t[ti:], '/')
				if *budget -= max(slash, 0); *budget < 0 {
					return wmOverBudget
				}
				if slash < 0 {
					return wmAbortAll // no later start has a '/' either
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
					from := ti
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
					if *budget -= ti - from; *budget < 0 {
						return wmOverBudget
					}
					if ti == len(t) {
						tc = 0
					}
					if tc != lit {
						// The literal occurs nowhere this star can reach, so
						// no later start of any enclosing star can match
						// either (git 2.41, "wildmatch: fix exponential
						// behavior").
						if matchSlash {
							return wmAbortAll
						}
						return wmAbortToStarStar
					}
				}
				if r := dowild(p[pi:], t[ti:], flags, budget); r != wmNoMatch {
					if !matchSlash || r != wmAbortToStarStar {
						return r
					}
				} else if !matchSlash && tc == '/' {
					return wmAbortToStarStar
				}
				if *budget--; *budget < 0 {
					return wmOverBudget
				}
				ti++
				tc = byteAt(t, ti)
			}
			return wmAbortAll
		case '[':
			r, next := matchBracket(p, pi, tc, fold)
			if *budget -= max(next-pi, 1); *budget < 0 {
				return wmOverBudget
			}
			if r != wmMatch {
				return r
			}
			if pathname && tc == '/' {
				return wmNoMatch
			}
			pi = next
		}
	}
	if ti < len(t) {
		return wmNoMatch
	}
	return wmMatch
}

// matchBracket matches the bracket expression that starts at p[open] ('[')
// against tc (already folded when fold is set). It returns wmMatch and the
// index of the closing ']' when tc is in the set, wmNoMatch and that index
// when it is not, and wmAbortAll for an unterminated set or an unknown
// [:class:] (the index then means nothing).
//
// The reading follows git: '!' or '^' first negates; a ']' right after the
// opening (or after the negation) is a member; "a-z" is a range unless the
// '-' is first or last; a backslash quotes the next byte; "[:name:]" is a
// POSIX class, and a "[:" without a closing ":]" is just the member '['.
// Under case folding the text byte is lower-cased but literal members are
// not (so "[A]" matches nothing), ranges also try the upper-cased byte, and
// [:upper:] accepts lower case.
func matchBracket(p string, open int, tc byte, fold bool) (wmResult, int) {
	pi := open + 1
	pc := byteAt(p, pi)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		pi++
		pc = byteAt(p, pi)
	}
	var prev byte
	matched := false
	for {
		if pc == 0 {
			return wmAbortAll, 0
		}
		switch {
		case pc == '\\':
			pi++
			pc = byteAt(p, pi)
			if pc == 0 {
				return wmAbortAll, 0
			}
			if tc == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && byteAt(p, pi+1) != 0 && byteAt(p, pi+1) != ']':
			pi++
			pc = p[pi]
			if pc == '\\' {
				pi++
				pc = byteAt(p, pi)
				if pc == 0 {
					return wmAbortAll, 0
				}
			}
			if tc <= pc && tc >= prev {
				matched = true
			} else if fold && isLowerASCII(tc) {
				if u := tc - 'a' + 'A'; u <= pc && u >= prev {
					matched = true
				}
			}
			pc = 0 // a range cannot start another range
		case pc == '[' && byteAt(p, pi+1) == ':':
			start := pi + 2
			end := start
			for end < len(p) && p[end] != ']' {
				end++
			}
			if end == len(p) {
				return wmAbortAll, 0
			}
			if end-start-1 < 0 || p[end-1] != ':' {
				// Not a class after all: '[' is an ordinary member and the
				// scan resumes right after it.
				pi = start - 2
				pc = '['
				if tc == pc {
					matched = true
				}
				break
			}
			ok, known := posixClass(p[start:end-1], tc, fold)
			if !known {
				return wmAbortAll, 0
			}
			if ok {
				matched = true
			}
			pi = end
			pc = 0
		default:
			if tc == pc {
				matched = true
			}
		}
		prev = pc
		pi++
		pc = byteAt(p, pi)
		if pc == ']' {
			break
		}
	}
	if matched == negated {
		return wmNoMatch, pi
	}
	return wmMatch, pi
}

// posixClass reports whether c belongs to the named class, and whether the
// name is known at all. The classes are git's ASCII-only ones: [:space:] is
// space, tab, LF and CR; nothing at or above 0x80 belongs to any class.
func posixClass(name string, c byte, fold bool) (in, known bool) {
	switch name {
	case "alnum":
		return isAlphaASCII(c) || isDigitASCII(c), true
	case "alpha":
		return isAlphaASCII(c), true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigitASCII(c), true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return isLowerASCII(c), true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !isAlphaASCII(c) && !isDigitASCII(c), true
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return isUpperASCII(c) || (fold && isLowerASCII(c)), true
	case "xdigit":
		return isDigitASCII(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}

// isGlobSpecial reports the bytes that end a pattern's literal prefix.
func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

// simpleLength is the length of the literal prefix of a pattern: the bytes
// before the first glob-special one.
func simpleLength(p string) int {
	for i := 0; i < len(p); i++ {
		if isGlobSpecial(p[i]) {
			return i
		}
	}
	return len(p)
}

func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }
func isAlphaASCII(c byte) bool { return isLowerASCII(c) || isUpperASCII(c) }
func isDigitASCII(c byte) bool { return c >= '0' && c <= '9' }

func toLowerASCII(c byte) byte {
	if isUpperASCII(c) {
		return c + ('a' - 'A')
	}
	return c
}

// lowerASCII folds the ASCII letters of s; s itself comes back when there
// is nothing to fold, so the common case does not allocate.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if isUpperASCII(s[i]) {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = toLowerASCII(b[j])
			}
			return string(b)
		}
	}
	return s
}

// equalFold compares a and b byte-wise, folding ASCII letters when fold is
// set (git's fspathcmp under core.ignorecase).
func equalFold(a, b string, fold bool) bool {
	if len(a) != len(b) {
		return false
	}
	if !fold {
		return a == b
	}
	for i := 0; i < len(a); i++ {
		if toLowerASCII(a[i]) != toLowerASCII(b[i]) {
			return false
		}
	}
	return true
}
