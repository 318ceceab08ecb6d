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

// FuzzCleanRel holds cleanRel's one pass and cleanRelScan, which it
// hands the doubtful paths to, each to the definition.
func FuzzCleanRel(f *testing.F) {
	for _, s := range []string{"", "/", "a", "a/b", "a//b", "/a", "a/", ".", "..", "...", ".a", "a/./b", "a/../b", "a/.b/..c", "./a", "a/..",
		"abcdefg/.", "abcdefg//h", "abcdefgh/..", "abcdefg/.hidden/x", "pkg014/lib/cmd/lib/keep2.json", "a\x00b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		want := cleanRelSpec(rel)
		if got := cleanRel(rel); got != want {
			t.Errorf("cleanRel(%q) = %v, want %v", rel, got, want)
		}
		if got := cleanRelScan(rel); got != want {
			t.Errorf("cleanRelScan(%q) = %v, want %v", rel, got, want)
		}
	})
}

// TestCleanRelEveryPlace puts each bad component, and each good one that
// starts with '.', at every offset of paths up to 40 bytes long, so that
// it lands at every place in cleanRel's eight-byte words, across their
// edges and in the bytes after the last whole word; cleanRel must agree
// with the definition each time. It fails if the carry of a '/' from one
// word to the next is lost, or the tail is not looked at.
func TestCleanRelEveryPlace(t *testing.T) {
	pieces := []string{"//", "/./", "/../", "/.", "/..", "/.a", "/..a", "/.../", "/a.", "/a./", "/a/"}
	n := 0
	for size := 1; size <= 40; size++ {
		for at := 0; at <= size; at++ {
			for _, p := range pieces {
				rel := strings.Repeat("x", at) + p + strings.Repeat("y", size-at)
				for _, r := range []string{rel, strings.TrimPrefix(rel, "/"), strings.TrimSuffix(rel, "/") + "/z"} {
					n++
					if got, want := cleanRel(r), cleanRelSpec(r); got != want {
						t.Errorf("cleanRel(%q) = %v, want %v", r, got, want)
					}
				}
			}
		}
	}
	if n < 10000 {
		t.Fatalf("only %d paths tried", n)
	}
}

// BenchmarkCleanRel is cleanRel on paths shaped like those of the walk
// bench tree (bench/walk/gentree), a few components and one extension.
// Scan is cleanRelScan alone, the way cleanRel took before its one pass.
func BenchmarkCleanRel(b *testing.B) {
	paths := []string{"pkg014/lib/cmd/lib/keep2.json", "pkg026/cmd2/cache/vendor2/docs/a2.txt", "pkg016/docs/vendor/vendor/util/main5.py", "src/a.go"}
	for _, f := range []struct {
		name string
		fn   func(string) bool
	}{{"OnePass", cleanRel}, {"Scan", cleanRelScan}} {
		b.Run(f.name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				for _, p := range paths {
					if f.fn(p) {
						n++
					}
				}
			}
			if n == 0 {
				b.Fatal("no path is clean")
			}
		})
	}
}
