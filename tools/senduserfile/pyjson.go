package senduserfile

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyReencode returns the JSON value raw (valid JSON) as Python's
// json.dumps(json.loads(raw)) writes it, which is how the script printed
// every part of tool_input it did not change: separators ", " and ": ";
// strings with ensure_ascii (\uXXXX, lowercase, for all but printable
// ASCII; a lone surrogate stays one); an object's repeated key kept once,
// where it first appeared, with its last value; an integer as its digits
// (-0 is 0); a number with a fraction or an exponent as Python's repr of
// the float (1e5 is 100000.0, 1.50 is 1.5, 1e16 is 1e+16, 1e400 is
// Infinity).
func pyReencode(raw []byte) []byte {
	return pyValue(nil, raw)
}

func pyValue(buf, raw []byte) []byte {
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return buf
	}
	switch raw[i] {
	case '"':
		return pyStringRunes(buf, decodeJSONString(raw[i:skipString(raw, i)]))
	case '{':
		ms, _ := objectMembers(raw[i:])
		if len(ms) == 0 {
			return append(buf, "{}"...)
		}
		buf = append(buf, '{')
		for j, m := range ms {
			if j > 0 {
				buf = append(buf, ", "...)
			}
			buf = pyValue(buf, m.keyRaw)
			buf = append(buf, ": "...)
			buf = pyValue(buf, m.val)
		}
		return append(buf, '}')
	case '[':
		es, _ := arrayElements(raw[i:])
		if len(es) == 0 {
			return append(buf, "[]"...)
		}
		buf = append(buf, '[')
		for j, e := range es {
			if j > 0 {
				buf = append(buf, ", "...)
			}
			buf = pyValue(buf, e)
		}
		return append(buf, ']')
	case 't', 'f', 'n':
		return append(buf, raw[i:skipValue(raw, i)]...)
	}
	return pyNumber(buf, string(raw[i:skipValue(raw, i)]))
}

// pyNumber writes the JSON number n as Python writes what json.loads made
// of it: an int, or a float in repr's shortest form.
func pyNumber(buf []byte, n string) []byte {
	if !strings.ContainsAny(n, ".eE") {
		if n == "-0" {
			return append(buf, '0')
		}
		return append(buf, n...)
	}
	f, _ := strconv.ParseFloat(n, 64) // ±Inf past the range, as float() gives
	switch {
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	}
	// Shortest digits d1d2...dn and the exponent, then repr's layout:
	// fixed when -4 < decpt <= 16 (with ".0" when there is no fraction),
	// else d1.d2...dne±XX.
	e := strconv.FormatFloat(f, 'e', -1, 64) // "-d.ddde+XX"
	if e[0] == '-' {
		buf = append(buf, '-')
		e = e[1:]
	}
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	decpt := x + 1
	switch {
	case decpt <= -4 || decpt > 16:
		buf = append(buf, digits[0])
		if len(digits) > 1 {
			buf = append(buf, '.')
			buf = append(buf, digits[1:]...)
		}
		buf = append(buf, 'e')
		if x < 0 {
			buf = append(buf, '-')
			x = -x
		} else {
			buf = append(buf, '+')
		}
		if x < 10 {
			buf = append(buf, '0')
		}
		return strconv.AppendInt(buf, int64(x), 10)
	case decpt <= 0:
		buf = append(buf, "0."...)
		buf = append(buf, strings.Repeat("0", -decpt)...)
		return append(buf, digits...)
	case decpt < len(digits):
		buf = append(buf, digits[:decpt]...)
		buf = append(buf, '.')
		return append(buf, digits[decpt:]...)
	}
	buf = append(buf, digits...)
	buf = append(buf, strings.Repeat("0", decpt-len(digits))...)
	return append(buf, ".0"...)
}

// decodeJSONString decodes the JSON string literal s (quotes included)
// into code points as Python's json does: a \uXXXX pair of surrogates is
// one character, a lone surrogate stays a lone surrogate.
func decodeJSONString(s []byte) []rune {
	s = s[1 : len(s)-1]
	var out []rune
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(s[i:])
			out = append(out, r)
			i += n
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case 'u':
			if i+6 > len(s) {
				return out
			}
			v, _ := strconv.ParseUint(string(s[i+2:i+6]), 16, 32)
			r := rune(v)
			i += 6
			if 0xd800 <= r && r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if w, err := strconv.ParseUint(string(s[i+2:i+6]), 16, 32); err == nil && 0xdc00 <= w && w < 0xe000 {
					r = 0x10000 + (r-0xd800)<<10 + (rune(w) - 0xdc00)
					i += 6
				}
			}
			out = append(out, r)
			continue
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default: // " \ /
			out = append(out, rune(s[i+1]))
		}
		i += 2
	}
	return out
}

// pyStringRunes is pyString for code points that may include lone
// surrogates.
func pyStringRunes(buf []byte, rs []rune) []byte {
	const hexDigits = "0123456789abcdef"
	u4 := func(buf []byte, r rune) []byte {
		return append(buf, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
	}
	buf = append(buf, '"')
	for _, r := range rs {
		switch {
		case r == '"':
			buf = append(buf, '\\', '"')
		case r == '\\':
			buf = append(buf, '\\', '\\')
		case r == '\n':
			buf = append(buf, '\\', 'n')
		case r == '\r':
			buf = append(buf, '\\', 'r')
		case r == '\t':
			buf = append(buf, '\\', 't')
		case r == '\b':
			buf = append(buf, '\\', 'b')
		case r == '\f':
			buf = append(buf, '\\', 'f')
		case r >= 0x20 && r < 0x7f:
			buf = append(buf, byte(r))
		case r > 0xffff:
			r -= 0x10000
			buf = u4(buf, 0xd800+(r>>10))
			buf = u4(buf, 0xdc00+(r&0x3ff))
		default:
			buf = u4(buf, r)
		}
	}
	return append(buf, '"')
}
