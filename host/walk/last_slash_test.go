package walk

import (
	"strings"
	"testing"
)

// lastSlash is strings.LastIndexByte(s, '/') for every length up to 40
// and a '/' (or none) at every place, among bytes one bit away from '/'
// (0xaf, '.', '?', 0x2e, 0x0f) that a sloppy word compare would take for
// it, and with a second '/' before the last.
func TestLastSlash(t *testing.T) {
	fill := []byte{'a', 0xaf, '.', '?', 0x0f, 0x6f, 0xff, 0x00}
	for n := 0; n <= 40; n++ {
		for f := range fill {
			b := make([]byte, n)
			for i := range b {
				b[i] = fill[(f+i)%len(fill)]
			}
			check := func(s string) {
				t.Helper()
				if got, want := lastSlash(s), strings.LastIndexByte(s, '/'); got != want {
					t.Fatalf("lastSlash(%q) = %d, want %d", s, got, want)
				}
			}
			check(string(b))
			for at := range n {
				c := append([]byte(nil), b...)
				c[at] = '/'
				check(string(c))
				for first := range at {
					d := append([]byte(nil), c...)
					d[first] = '/'
					check(string(d))
				}
			}
		}
	}
}

func FuzzLastSlash(f *testing.F) {
	for _, s := range []string{"", "/", "a/b", "abcdefgh/ijklmnop", "abcdefg/", "/abcdefgh", "a/b/c/d/e/f/g/h/i", "\xaf\xaf\xaf\xaf\xaf\xaf\xaf\xaf\xaf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lastSlash(s), strings.LastIndexByte(s, '/'); got != want {
			t.Fatalf("lastSlash(%q) = %d, want %d", s, got, want)
		}
	})
}
