package exec

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// renderAll writes data to a fresh buffer in chunks of the given size and
// renders it.
func renderAll(data []byte, limit, chunk int) (string, bool) {
	h := newHeadTail(limit)
	for len(data) > 0 {
		n := min(chunk, len(data))
		h.Write(data[:n])
		data = data[n:]
	}
	return h.render(limit)
}

// omittedIn returns the count in the marker line of s, or -1.
func omittedIn(s string) int64 {
	i := strings.Index(s, "[... ")
	if i < 0 {
		return -1
	}
	j := strings.Index(s[i:], " bytes omitted ...]\n")
	if j < 0 {
		return -1
	}
	n, err := strconv.ParseInt(s[i+len("[... "):i+j], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func TestRender(t *testing.T) {
	const limit = 256
	euro := "€" // three bytes
	cases := []struct {
		name      string
		data      string
		want      string // exact, when not truncated
		truncated bool
	}{
		{name: "empty", data: "", want: ""},
		{name: "short", data: "hello\n", want: "hello\n"},
		{name: "exact fit", data: strings.Repeat("a", limit), want: strings.Repeat("a", limit)},
		{name: "one over", data: strings.Repeat("a", limit+1), truncated: true},
		{name: "invalid bytes", data: "a\xffb\xfe\xfdc", want: "a\uFFFDb\uFFFD\uFFFDc"},
		{name: "truncated rune at end", data: "ok" + euro[:2], want: "ok\uFFFD\uFFFD"},
		{name: "invalid grows past limit", data: strings.Repeat("\xff", limit/2), truncated: true},
		{name: "multibyte runes only", data: strings.Repeat(euro, 1000), truncated: true},
		{name: "4-byte runes", data: strings.Repeat("😀", 1000), truncated: true},
		{name: "mixed lines", data: strings.Repeat("line "+euro+" \xff\n", 500), truncated: true},
		{name: "huge", data: strings.Repeat("x", 10*limit) + "END", truncated: true},
	}
	for _, c := range cases {
		for _, chunk := range []int{1, 3, 7, limit - 1, limit + utf8.UTFMax, 1 << 20} {
			got, trunc := renderAll([]byte(c.data), limit, chunk)
			if trunc != c.truncated {
				t.Fatalf("%s/chunk %d: truncated = %v, want %v", c.name, chunk, trunc, c.truncated)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("%s/chunk %d: invalid UTF-8 %q", c.name, chunk, got)
			}
			if len(got) > limit {
				t.Fatalf("%s/chunk %d: %d bytes, limit %d", c.name, chunk, len(got), limit)
			}
			if !c.truncated {
				if got != c.want {
					t.Fatalf("%s/chunk %d: got %q, want %q", c.name, chunk, got, c.want)
				}
				continue
			}
			checkTruncated(t, c.name, []byte(c.data), got)
		}
	}
}

// checkTruncated checks that got is a lossy head of data, the marker with
// the right count and a lossy tail of data.
func checkTruncated(t *testing.T, name string, data []byte, got string) {
	t.Helper()
	i := strings.Index(got, "[... ")
	j := strings.Index(got, " bytes omitted ...]\n")
	if i < 0 || j < 0 || strings.Count(got, " bytes omitted ...]") != 1 {
		t.Fatalf("%s: no single marker in %q", name, got)
	}
	head, tail := got[:i], got[j+len(" bytes omitted ...]\n"):]
	head = strings.TrimSuffix(head, "\n")
	if head == "" || tail == "" {
		t.Fatalf("%s: empty head or tail in %q", name, got)
	}
	// Map the head and tail back to raw bytes: the head is a lossy
	// rendering of a prefix of data, the tail of a suffix.
	rawHead := rawPrefixFor(data, head)
	rawTail := rawSuffixFor(data, tail)
	if rawHead < 0 || rawTail < 0 {
		t.Fatalf("%s: head %q or tail %q is not a lossy cut of the data", name, head, tail)
	}
	want := int64(len(data) - rawHead - rawTail)
	if n := omittedIn(got); n != want {
		t.Fatalf("%s: marker says %d omitted, want %d", name, n, want)
	}
	// The cut keeps a fair share of each end.
	if len(head) < 64 || len(tail) < 64 {
		t.Fatalf("%s: head %d, tail %d bytes: too little kept", name, len(head), len(tail))
	}
}

// rawPrefixFor returns n such that the lossy rendering of data[:n] is s,
// or -1.
func rawPrefixFor(data []byte, s string) int {
	for n := 0; n <= min(len(data), len(s)); n++ { // the rendering is never shorter
		if string(appendLossy(nil, data[:n])) == s {
			return n
		}
	}
	return -1
}

// rawSuffixFor returns n such that the lossy rendering of the last n bytes
// of data, decoded from some rune start, is s, or -1.
func rawSuffixFor(data []byte, s string) int {
	for n := 0; n <= min(len(data), len(s)); n++ {
		if string(appendLossy(nil, data[len(data)-n:])) == s {
			return n
		}
	}
	return -1
}

// TestRenderRuneAtCut puts a multi-byte rune across every byte position
// around both cut points and checks that no rune is split and no byte is
// miscounted.
func TestRenderRuneAtCut(t *testing.T) {
	const limit = 256
	for _, r := range []string{"é", "€", "😀"} {
		for size := limit + 1; size < 3*limit; size += 1 {
			for _, at := range []int{0, 1, 2, limit/2 - 20, size / 2, size - limit/2 + 10} {
				data := bytes.Repeat([]byte("a"), size)
				for k := at; k+len(r) <= size; k += 97 {
					copy(data[k:], r)
				}
				got, trunc := renderAll(data, limit, 4096)
				if !utf8.ValidString(got) || len(got) > limit || strings.ContainsRune(got, utf8.RuneError) {
					t.Fatalf("%q size %d at %d: bad render %q", r, size, at, got)
				}
				if trunc {
					checkTruncated(t, r, data, got)
				}
			}
		}
	}
}

func TestHeadTailMemoryBounded(t *testing.T) {
	h := newHeadTail(1000)
	chunk := bytes.Repeat([]byte("z"), 64<<10)
	for range 1000 {
		h.Write(chunk)
	}
	if len(h.head) > h.capBytes || len(h.tail) > h.capBytes {
		t.Fatalf("kept %d + %d bytes, cap %d", len(h.head), len(h.tail), h.capBytes)
	}
	got, trunc := h.render(1000)
	if !trunc || omittedIn(got) != int64(len(chunk))*1000-int64(strings.Count(got, "z")) {
		t.Fatalf("render: trunc %v, %q", trunc, got)
	}
}

func TestLimitsDefaults(t *testing.T) {
	got := NewRunner(Limits{}).Limits()
	want := Limits{DefaultTimeout, DefaultMaxTimeout, DefaultMaxOutputBytes, DefaultKillGrace, DefaultDrainGrace}
	if got != want {
		t.Fatalf("defaults: %+v, want %+v", got, want)
	}
	l := NewRunner(Limits{DefaultTimeout: 20 * DefaultMaxTimeout, MaxOutputBytes: 1}).Limits()
	if l.DefaultTimeout != DefaultMaxTimeout || l.MaxOutputBytes != minOutputBytes {
		t.Fatalf("clamping: %+v", l)
	}
	if l.timeout(0) != DefaultMaxTimeout || l.timeout(-1) != DefaultMaxTimeout || l.timeout(3) != 3 || l.timeout(1<<62) != DefaultMaxTimeout {
		t.Fatalf("timeout: %v %v %v", l.timeout(0), l.timeout(3), l.timeout(1<<62))
	}
}
