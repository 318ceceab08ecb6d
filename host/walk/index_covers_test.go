package walk

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCoversAgreesWithPrefixScan checks the allocation-free covers against
// the plain definition (an entry, or an entry below rel+"/"), on names
// chosen to sit around '/' in byte order ("a!", "a-b", "a.go", "a/x",
// "a0", "ab").
func TestCoversAgreesWithPrefixScan(t *testing.T) {
	names := []string{"a!", "a-b", "a.go", "a/x", "a/y/z", "a0", "ab", "b", "b.c/d", "c/d/e", "d-/x", "d/"}
	slices.Sort(names)
	ix := &gitIndex{names: names}
	want := func(rel string) bool {
		rel = strings.TrimSuffix(rel, "/")
		if rel == "" {
			return false
		}
		for _, n := range names {
			if n == rel || strings.HasPrefix(n, rel+"/") {
				return true
			}
		}
		return false
	}
	for _, rel := range []string{"", "a", "a/", "a!", "a-", "a-b", "a.go", "a/x", "a/y", "a/y/", "a/y/z", "a/z", "a0", "ab", "abc",
		"b", "b.c", "b.c/", "b.c/d", "b.", "c", "c/d", "c/d/e", "c/e", "d", "d-", "d-/x", "e", "0", "!"} {
		if got := ix.covers(rel); got != want(rel) {
			t.Errorf("covers(%q) = %v, want %v", rel, got, want(rel))
		}
	}
	// Warm: past coverSetAfter calls the hash set answers, the same.
	for range coverSetAfter + 1 {
		ix.covers("zz")
	}
	if ix.coverSet.Load() == nil {
		t.Fatal("no cover set after coverSetAfter calls")
	}
	for _, rel := range []string{"", "a", "a/", "a!", "a-", "a-b", "a.go", "a/x", "a/y", "a/y/", "a/y/z", "a/z", "a0", "ab", "abc",
		"b", "b.c", "b.c/", "b.c/d", "b.", "c", "c/d", "c/d/e", "c/e", "d", "d-", "d-/x", "e", "0", "!"} {
		if got := ix.covers(rel); got != want(rel) {
			t.Errorf("warm covers(%q) = %v, want %v", rel, got, want(rel))
		}
	}
	// A file and a directory of one name (a hostile index): the
	// directories above still count.
	odd := &gitIndex{names: []string{"p/q", "p/q/r"}}
	odd.buildCoverSet()
	for _, rel := range []string{"p", "p/q", "p/q/r"} {
		if !odd.covers(rel) {
			t.Errorf("covers(%q) false for %q", rel, odd.names)
		}
	}
	var none *gitIndex
	if none.covers("a") {
		t.Error("a nil index covers a path")
	}
	if n := testing.AllocsPerRun(100, func() { ix.covers("a/y") }); n != 0 {
		t.Errorf("covers allocates %v times a call", n)
	}
}

// TestIsCleanAbs checks the hot path's clean test against filepath.Clean.
func TestIsCleanAbs(t *testing.T) {
	for _, p := range []string{"/", "//", "/a", "/a/", "/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..", "/.", "/..", "/.a", "/..a",
		"/a..", "/a/.b/c", "/a/b.", "a", "", "/a/b/c", "/.../x", "/a/.x/..y"} {
		want := len(p) > 0 && p[0] == '/' && cleanPath(p) == p
		if got := isCleanAbs(p); got != want {
			t.Errorf("isCleanAbs(%q) = %v, want %v", p, got, want)
		}
		if p != "" && p[0] == '/' {
			if got := cleanAbs(p); got != cleanPath(p) {
				t.Errorf("cleanAbs(%q) = %q, want %q", p, got, cleanPath(p))
			}
			par, name := splitClean(cleanPath(p))
			if wp, wn := dirOf(cleanPath(p)), baseOf(cleanPath(p)); par != wp || name != wn {
				t.Errorf("splitClean(%q) = %q, %q, want %q, %q", cleanPath(p), par, name, wp, wn)
			}
		}
	}
}

func cleanPath(p string) string { return filepath.Clean(p) }
func dirOf(p string) string     { return filepath.Dir(p) }
func baseOf(p string) string    { return filepath.Base(p) }
