package mcpserver

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendJSONString: the hand-written string encoder writes exactly the
// bytes encoding/json writes (and escapedLen foretells their number), on names that need no escaping and on every
// kind that does (quotes, backslashes, control characters, HTML
// characters, U+2028 and U+2029, invalid UTF-8), and on random bytes.
func TestAppendJSONString(t *testing.T) {
	cases := []string{"", "plain.go", "dir/sub/file.txt", "ünïcode/日本.go", "a\"b", `back\slash`, "new\nline", "tab\t",
		"\x00nul", "\x1f", "\b\f\v\x7f", "<script>", "a&b", "x>y", "line\u2028sep", "para\u2029sep", "bad\xffutf8", "\xc3", "\xed\xa0\x80", "\u007f"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			switch r.IntN(4) {
			case 0:
				b[i] = byte(r.IntN(256))
			case 1:
				b[i] = "\"\\<>&\n\x00/"[r.IntN(8)]
			default:
				b[i] = byte('a' + r.IntN(26))
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("appendJSONString(%q) = %s, encoding/json: %s", s, got[1:], want)
		}
		if n := escapedLen(s); n != len(want) {
			t.Errorf("escapedLen(%q) = %d, encoding/json writes %d bytes", s, n, len(want))
		}
	}
}

// TestLenderSplice: the transport writes each lent value in place of its
// placeholder and forgets it; a placeholder of a token never lent (or
// already spliced) is left as it is; a result without one is one part.
func TestLenderSplice(t *testing.T) {
	var l lender
	a, b := l.lend([]byte(`{"big":1}`)), l.lend([]byte(`"text\n"`))
	res := `{"structuredContent":` + string(placeholder(a)) + `,"content":[{"type":"text","text":` + string(placeholder(b)) + `}],"x":"\u0000lent:ffff"}`
	join := func(parts [][]byte) string {
		var s string
		for _, p := range parts {
			s += string(p)
		}
		return s
	}
	want := `{"structuredContent":{"big":1},"content":[{"type":"text","text":"text\n"}],"x":"\u0000lent:ffff"}`
	if got := join(l.splice([]byte(res))); got != want {
		t.Errorf("splice:\n%s\nwant\n%s", got, want)
	}
	if len(l.lent) != 0 {
		t.Errorf("%d values kept after the splice", len(l.lent))
	}
	if got := join(l.splice([]byte(res))); got != res {
		t.Errorf("a second splice of spent tokens changed the result: %s", got)
	}
	if parts := l.splice([]byte(`{"a":1}`)); len(parts) != 1 {
		t.Errorf("no placeholder: %d parts", len(parts))
	}
	var none *lender
	if got := join(none.splice([]byte(res))); got != res {
		t.Errorf("a nil lender changed the result")
	}
}
