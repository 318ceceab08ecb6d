package mcpserver

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendJSONString: the hand-written string encoder writes exactly the
// bytes encoding/json writes, on names that need no escaping and on every
// kind that does (quotes, backslashes, control characters, HTML
// characters, U+2028 and U+2029, invalid UTF-8), and on random bytes.
func TestAppendJSONString(t *testing.T) {
	cases := []string{"", "plain.go", "dir/sub/file.txt", "ünïcode/日本.go", "a\"b", `back\slash`, "new\nline", "tab\t",
		"\x00nul", "\x1f", "<script>", "a&b", "x>y", "line\u2028sep", "para\u2029sep", "bad\xffutf8", "\xc3", "\xed\xa0\x80", "\u007f"}
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
	}
}
