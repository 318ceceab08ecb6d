package senduserfile

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// This file reads JSON text and writes JSON the way Python's json.dumps
// does by default (separators ", " and ": ", non-ASCII escaped), which is
// what the script printed and logged: every key and entry of tool_input
// the hook leaves alone reaches updatedInput as the script re-encoded it
// (pyjson.go), not as it was written.

// member is one member of a JSON object, as raw text.
type member struct {
	keyRaw []byte // the key with its quotes, as written
	key    string // the key decoded
	val    []byte // the value, as written
}

// memberValue is the value of key in ms, as written, or nil when ms has
// no such key.
func memberValue(ms []member, key string) []byte {
	for _, m := range ms {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// objectMembers splits the JSON object raw (valid JSON) into its members.
// A key given twice is kept once, where it first appeared, with its last
// value (what Python's json.loads makes of it). ok is false when raw is
// not an object.
func objectMembers(raw []byte) (ms []member, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return nil, true
	}
	seen := map[string]int{}
	for i < len(raw) {
		k0 := i
		k1 := skipValue(raw, k0)
		key, kok := jsonString(raw[k0:k1])
		if !kok || raw[k0] != '"' {
			return nil, false
		}
		i = skipSpace(raw, k1)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		v0 := skipSpace(raw, i+1)
		v1 := skipValue(raw, v0)
		if at, dup := seen[key]; dup {
			ms[at].val = raw[v0:v1]
		} else {
			seen[key] = len(ms)
			ms = append(ms, member{keyRaw: raw[k0:k1], key: key, val: raw[v0:v1]})
		}
		i = skipSpace(raw, v1)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			continue
		}
		return ms, i < len(raw) && raw[i] == '}'
	}
	return nil, false
}

// arrayElements splits the JSON array raw (valid JSON) into its elements.
// ok is false when raw is not an array.
func arrayElements(raw []byte) (es [][]byte, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return nil, true
	}
	for i < len(raw) {
		e := skipValue(raw, i)
		es = append(es, raw[i:e])
		i = skipSpace(raw, e)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			continue
		}
		return es, i < len(raw) && raw[i] == ']'
	}
	return nil, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value that starts at i in valid
// JSON text b.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the end of the JSON string whose quote is at i.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// pyString appends s as Python's json.dumps writes a str with its default
// ensure_ascii: ASCII printable characters as they are, the usual short
// escapes, everything else as \uXXXX (surrogate pairs past the BMP). A
// byte that is not UTF-8 (a file name can hold one) is the lone surrogate
// U+DC00+byte that Python's surrogateescape makes of it.
func pyString(buf []byte, s string) []byte {
	rs := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			r = 0xdc00 + rune(s[i])
		}
		rs = append(rs, r)
		i += n
	}
	return pyStringRunes(buf, rs)
}

// pyObject writes a JSON object Python's way from keys and already
// encoded values, in the order given.
type pyObject struct{ buf []byte }

func (o *pyObject) field(key string, val []byte) {
	if len(o.buf) == 0 {
		o.buf = append(o.buf, '{')
	} else {
		o.buf = append(o.buf, ", "...)
	}
	o.buf = pyString(o.buf, key)
	o.buf = append(o.buf, ": "...)
	o.buf = append(o.buf, val...)
}

func (o *pyObject) str(key, val string) { o.field(key, pyString(nil, val)) }
func (o *pyObject) int(key string, n int64) {
	o.field(key, strconv.AppendInt(nil, n, 10))
}

func (o *pyObject) bytes() []byte {
	if len(o.buf) == 0 {
		return []byte("{}")
	}
	return append(o.buf, '}')
}

// capRunes cuts s to at most n characters (Python's s[:n]).
func capRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// rewrite returns tool_input with its files member replaced by files:
// every other member and every element not in repl as the script printed
// them (re-encoded as Python's json.dumps(json.loads(...)) does: see
// pyReencode), Python's separators between them. repl maps an element's
// index to its new path.
func rewrite(ms []member, filesKey string, elems [][]byte, repl map[int]string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(pyReencode(m.keyRaw))
		b.WriteString(": ")
		if m.key != filesKey {
			b.Write(pyReencode(m.val))
			continue
		}
		b.Write(rewriteArray(elems, repl))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// rewriteArray returns the array of elems with the elements in repl
// replaced by their new paths.
func rewriteArray(elems [][]byte, repl map[int]string) []byte {
	b := []byte{'['}
	for j, e := range elems {
		if j > 0 {
			b = append(b, ", "...)
		}
		if p, ok := repl[j]; ok {
			b = pyString(b, p)
		} else {
			b = pyValue(b, e)
		}
	}
	return append(b, ']')
}
