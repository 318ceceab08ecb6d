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
// are what make the backtracking linear in practice: wmAbortAll says no
// alignment of any enclosing star can succeed (the text ran out, or the
// pattern is malformed); wmAbortToStarStar says a single star hit a '/', so
// only an enclosing "**" may try again further on.
type wmResult uint8

const (
	wmMatch wmResult = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches pattern. Matching is byte-wise;
// only ASCII letters fold under wmCasefold.
func wildmatch(pattern, text string, flags uint8) bool {
	return dowild(pattern, text, flags) == wmMatch
}

// byteAt returns s[i], or 0 past the end (the C string terminator the
// semantics were defined with; neither patterns nor names contain NUL).
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func dowild(p, t string, flags uint8) wmResult {
	fold := flags&wmCasefold != 0
	pathname := flags&wmPathname != 0
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
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
					if byteAt(p, pi) == '/' && dowild(p[pi+1:], t[ti:], flags) == wmMatch {
						return wmMatch
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
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// "*/": the star takes the rest of this component.
				slash := strings.IndexByte(t[ti:], '/')
				if slash < 0 {
					return wmNoMatch
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
						return wmNoMatch
					}
				}
				if r := dowild(p[pi:], t[ti:], flags); r != wmNoMatch {
					if !matchSlash || r != wmAbortToStarStar {
						return r
					}
				} else if !matchSlash && tc == '/' {
					return wmAbortToStarStar
				}
				ti++
				tc = byteAt(t, ti)
			}
			return wmAbortAll
		case '[':
			r, next := matchBracket(p, pi, tc, fold)
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
// index of the closing ']' when tc is in the set, wmNoMatch when it is not,
// and wmAbortAll for an unterminated set or an unknown [:class:].
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
		return wmNoMatch, 0
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
