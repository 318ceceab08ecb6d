package exec

import (
	"strconv"
	"unicode/utf8"
)

// headTail is the capture buffer of one stream. It accepts every byte
// written to it (the reader never stops, so the command never blocks on a
// full pipe) but keeps only the first and the last capBytes and counts the
// rest, so its memory is bounded by twice capBytes whatever the command
// prints. It is not safe for concurrent use; each stream has its own,
// written by one reader goroutine and rendered after that goroutine ended.
type headTail struct {
	capBytes  int    // how much of each end is kept
	head      []byte // the first bytes, up to capBytes
	tail      []byte // ring of the last bytes after head, allocated when head is full
	tailStart int    // index in tail of the oldest byte
	tailLen   int    // bytes held in tail
	total     int64  // bytes written
}

// newHeadTail returns a buffer that can render within limit bytes. It
// keeps utf8.UTFMax bytes more than limit at each end so that a cut on a
// rune boundary can always be found inside what it kept.
func newHeadTail(limit int) *headTail {
	return &headTail{capBytes: limit + utf8.UTFMax}
}

// Write keeps p's bytes that belong to the head or the tail. It never
// fails.
func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if room := h.capBytes - len(h.head); room > 0 {
		take := min(room, len(p))
		h.head = append(h.head, p[:take]...)
		p = p[take:]
	}
	if len(p) == 0 {
		return n, nil
	}
	c := h.capBytes
	if h.tail == nil {
		h.tail = make([]byte, c)
	}
	if len(p) >= c {
		copy(h.tail, p[len(p)-c:])
		h.tailStart, h.tailLen = 0, c
		return n, nil
	}
	end := (h.tailStart + h.tailLen) % c
	k := copy(h.tail[end:], p)
	copy(h.tail, p[k:])
	h.tailLen += len(p)
	if over := h.tailLen - c; over > 0 {
		h.tailStart = (h.tailStart + over) % c
		h.tailLen = c
	}
	return n, nil
}

// tailBytes returns the ring's contents in order.
func (h *headTail) tailBytes() []byte {
	c := h.capBytes
	if h.tailStart+h.tailLen <= c {
		return h.tail[h.tailStart : h.tailStart+h.tailLen]
	}
	out := make([]byte, 0, h.tailLen)
	out = append(out, h.tail[h.tailStart:]...)
	return append(out, h.tail[:h.tailStart+h.tailLen-c]...)
}

// render returns what the caller gets: the whole output as lossy UTF-8 if
// that fits in limit bytes; otherwise the head, one marker line saying how
// many bytes of the output were omitted, and the tail, within limit bytes
// in all, both cuts on rune boundaries. truncated reports the second case.
func (h *headTail) render(limit int) (s string, truncated bool) {
	if h.total == 0 {
		return "", false
	}
	dropped := h.total > int64(len(h.head)+h.tailLen)
	var front, back []byte
	if !dropped {
		front = h.head
		if h.tailLen > 0 {
			front = append(front[:len(front):len(front)], h.tailBytes()...)
		}
		if n := lossyLen(front); n <= limit {
			return string(appendLossy(make([]byte, 0, n), front)), false
		}
		back = front
	} else {
		front, back = h.head, h.tailBytes()
		// The ring starts wherever the last write left it, maybe inside
		// a rune: skip the continuation bytes of that rune.
		for i := 0; i < utf8.UTFMax-1 && len(back) > 0 && !utf8.RuneStart(back[0]); i++ {
			back = back[1:]
		}
	}
	// Reserve room for the longest marker this output can need; the real
	// one is never longer, as fewer bytes than total are omitted.
	avail := limit - len(marker(h.total, true))
	headBudget := avail / 2
	tailBudget := avail - headBudget

	headOut, headUsed := lossyPrefix(front, headBudget)
	tailOut, tailStart := lossySuffix(back, tailBudget)
	omitted := h.total - int64(headUsed) - int64(len(back)-tailStart)

	out := make([]byte, 0, limit)
	out = append(out, headOut...)
	out = append(out, marker(omitted, len(headOut) > 0 && headOut[len(headOut)-1] != '\n')...)
	out = append(out, tailOut...)
	return string(out), true
}

// marker is the line that stands for the omitted bytes, with a newline
// before it when the head does not end in one.
func marker(omitted int64, newlineBefore bool) string {
	s := "[... " + strconv.FormatInt(omitted, 10) + " bytes omitted ...]\n"
	if newlineBefore {
		s = "\n" + s
	}
	return s
}

// runeLen decodes the first rune of b and returns its length in b and the
// length of its lossy UTF-8 rendering: an invalid byte is one byte of b
// and becomes U+FFFD (three bytes).
func runeLen(b []byte) (in, out int) {
	if b[0] < utf8.RuneSelf {
		return 1, 1
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return 1, len(string(utf8.RuneError))
	}
	return n, n
}

// lossyLen is the length of b rendered as lossy UTF-8.
func lossyLen(b []byte) int {
	if utf8.Valid(b) {
		return len(b)
	}
	n := 0
	for i := 0; i < len(b); {
		in, out := runeLen(b[i:])
		i += in
		n += out
	}
	return n
}

// appendLossy appends b to dst with each invalid byte replaced by U+FFFD.
func appendLossy(dst, b []byte) []byte {
	if utf8.Valid(b) {
		return append(dst, b...)
	}
	for i := 0; i < len(b); {
		in, _ := runeLen(b[i:])
		if in == 1 && b[i] >= utf8.RuneSelf {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[i:i+in]...)
		}
		i += in
	}
	return dst
}

// lossyPrefix returns the longest prefix of b whose lossy rendering fits
// in budget bytes, rendered, and how many bytes of b it used. The cut
// falls between runes.
func lossyPrefix(b []byte, budget int) (out []byte, used int) {
	n := 0
	for used < len(b) {
		in, o := runeLen(b[used:])
		if n+o > budget {
			break
		}
		n += o
		used += in
	}
	return appendLossy(make([]byte, 0, n), b[:used]), used
}

// lossySuffix returns the longest suffix of b whose lossy rendering fits
// in budget bytes, rendered, and the index in b where it starts. The cut
// falls between runes as decoded from the start of b.
func lossySuffix(b []byte, budget int) (out []byte, start int) {
	excess := lossyLen(b) - budget
	n := 0
	for start < len(b) && n < excess {
		in, o := runeLen(b[start:])
		n += o
		start += in
	}
	return appendLossy(make([]byte, 0, budget), b[start:]), start
}
