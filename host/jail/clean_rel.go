package jail

import (
	"encoding/binary"
	"strings"
	"unsafe"
)

// cleanRel reports whether rel is a plain relative path: no empty, "." or
// ".." component, no leading or trailing slash.
//
// It runs on every plain path the Host answers warm, so it makes one pass
// over rel, eight bytes at a time: a component can be bad only if it
// starts with '/' (an empty one) or '.', so a path in which no component
// starts with either is clean, and any other goes to cleanRelScan, which
// decides exactly (".a" and "a/.b" are clean, but only it can tell).
func cleanRel(rel string) bool {
	n := len(rel)
	if n == 0 || rel[0] == '/' || rel[n-1] == '/' {
		return false
	}
	b := unsafe.Slice(unsafe.StringData(rel), n) // read only
	if n < 8 {
		start := true
		for _, c := range b {
			if start && (c == '/' || c == '.') {
				return cleanRelScan(rel)
			}
			start = c == '/'
		}
		return true
	}
	// starts: the high bit of each byte that begins a component (the
	// first, and each after a '/'), carried into the next word by prev.
	// The last word is the last eight bytes, overlapping the one before
	// (a byte looked at twice gives the same answer twice).
	prev := uint64(0x80)
	for i := 0; ; i += 8 {
		if i+8 > n {
			i = n - 8
			prev = 0
			if b[i-1] == '/' {
				prev = 0x80
			}
		}
		x := binary.LittleEndian.Uint64(b[i:])
		slash := bytesEqual(x, '/')
		if (slash|bytesEqual(x, '.'))&(slash<<8|prev) != 0 {
			return cleanRelScan(rel)
		}
		if i+8 == n {
			return true
		}
		prev = slash >> 56
	}
}

// bytesEqual returns the high bit set in each byte of x that equals c, and
// nothing else: exact per byte, as no sum carries into the next byte.
func bytesEqual(x uint64, c byte) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	y := x ^ (0x0101010101010101 * uint64(c)) // zero where x's byte is c
	return ^((y&low7 + low7) | y | low7)
}

// cleanRelScan is cleanRel by scanning for each kind of bad component in
// turn; cleanRel hands it the paths its one pass cannot clear.
func cleanRelScan(rel string) bool {
	// It runs on every plain path: a few scans that look at many bytes at
	// once rather than one component at a time. A bad component is empty
	// (a leading, trailing or doubled '/') or starts with a '.' that
	// begins the path or follows a '/'.
	if rel == "" || rel[0] == '/' || rel[len(rel)-1] == '/' || strings.Contains(rel, "//") {
		return false
	}
	for i := strings.IndexByte(rel, '.'); i >= 0; {
		if i == 0 || rel[i-1] == '/' {
			// The component starting here: "." or ".." is refused.
			end := i + 1
			if end < len(rel) && rel[end] == '.' {
				end++
			}
			if end == len(rel) || rel[end] == '/' {
				return false
			}
		}
		j := strings.IndexByte(rel[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return true
}
