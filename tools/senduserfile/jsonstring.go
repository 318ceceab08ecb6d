package senduserfile

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonString is json.Unmarshal(raw, &s) for raw, one JSON value of text
// already known to be valid (json.Valid), without encoding/json's
// reflection: the first Unmarshal of a process builds its decoder caches,
// a tenth of a millisecond of every hook call. A string literal gives its
// value as encoding/json decodes it (an invalid surrogate or byte becomes
// U+FFFD); null gives "" and true, as Unmarshal leaves s alone and
// reports no error; anything else (a number, an object, no value at all)
// gives false, Unmarshal's type error. FuzzJSONString holds it to
// encoding/json.
func jsonString(raw []byte) (string, bool) {
	raw = raw[skipSpace(raw, 0):]
	for n := len(raw); n > 0 && (raw[n-1] == ' ' || raw[n-1] == '\t' || raw[n-1] == '\n' || raw[n-1] == '\r'); n-- {
		raw = raw[:n-1]
	}
	if string(raw) == "null" {
		return "", true
	}
	b, ok := unquoteBytes(raw)
	return string(b), ok
}

// unquoteBytes is encoding/json's unquoteBytes (Go 1.26): the value of
// the JSON string literal s, quotes included.
func unquoteBytes(s []byte) (t []byte, ok bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return
	}
	s = s[1 : len(s)-1]

	// No escape, quote, control character or bad UTF-8: the bytes as
	// they are.
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return s, true
	}

	b := make([]byte, len(s)+2*utf8.UTFMax)
	w := copy(b, s[0:r])
	for r < len(s) {
		// Out of room: only when s is full of bad UTF-8, each byte
		// becoming U+FFFD.
		if w >= len(b)-2*utf8.UTFMax {
			nb := make([]byte, (len(b)+utf8.UTFMax)*2)
			copy(nb, b[0:w])
			b = nb
		}
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return
			}
			switch s[r] {
			default:
				return
			case '"', '\\', '/', '\'', 'b', 'f', 'n', 'r', 't':
				b[w] = unescaped(s[r])
				r++
				w++
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						// A valid pair: both halves taken.
						r += 6
						w += utf8.EncodeRune(b[w:], dec)
						break
					}
					rr = unicode.ReplacementChar // a lone half
				}
				w += utf8.EncodeRune(b[w:], rr)
			}

		case c == '"', c < ' ': // invalid in a string
			return

		case c < utf8.RuneSelf:
			b[w] = c
			r++
			w++

		default: // coerced to well-formed UTF-8
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			w += utf8.EncodeRune(b[w:], rr)
		}
	}
	return b[0:w], true
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// unescaped is the byte a one-letter escape (after the backslash) stands
// for: b, f, n, r and t their control characters, the others themselves.
func unescaped(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c
}
