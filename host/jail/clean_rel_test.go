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

// BenchmarkCleanRel is cleanRel on paths shaped like those of the walk
// bench tree (bench/walk/gentree), a few components and one extension.
func BenchmarkCleanRel(b *testing.B) {
	paths := []string{"pkg014/lib/cmd/lib/keep2.json", "pkg026/cmd2/cache/vendor2/docs/a2.txt", "pkg016/docs/vendor/vendor/util/main5.py", "src/a.go"}
	n := 0
	for b.Loop() {
		for _, p := range paths {
			if cleanRel(p) {
				n++
			}
		}
	}
	if n == 0 {
		b.Fatal("no path is clean")
	}
}
