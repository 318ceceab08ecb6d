package jail

import (
	"strings"
	"testing"
)

// cleanRelSpec is cleanRel by its definition: every component between
// the slashes is neither empty, "." nor "..".
func cleanRelSpec(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return true
}

func FuzzCleanRel(f *testing.F) {
	for _, s := range []string{"", "/", "a", "a/b", "a//b", "/a", "a/", ".", "..", "...", ".a", "a/./b", "a/../b", "a/.b/..c", "./a", "a/.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if got, want := cleanRel(rel), cleanRelSpec(rel); got != want {
			t.Errorf("cleanRel(%q) = %v, want %v", rel, got, want)
		}
	})
}
