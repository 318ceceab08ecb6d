package walk

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestIndexDirAgrees checks indexDir, the per-directory lookup the walk
// makes for ignored entries, against whole-index searches: for every
// directory of a random index (names that share prefixes with '-', '.',
// '0' and '/' after them, which sort around '/'), and for names in it and
// not, tracked(name) is ix.tracked(dir+name) and holds(name) is
// ix.holds(dir+name+"/"), and sub(name) is ix.dir(dir+name+"/").
func TestIndexDirAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "a-b", "a.b", "a0", "b", "ab", "a/"[:1] + "!", "z"}
	seen := map[string]bool{}
	for len(seen) < 3000 {
		depth := 1 + r.IntN(4)
		var p []string
		for range depth {
			p = append(p, parts[r.IntN(len(parts))])
		}
		seen[strings.Join(p, "/")] = true
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	// A file and a directory of the same name cannot both be in an index,
	// but the lookups must not care: keep them.
	ix := &gitIndex{names: names}
	dirs := map[string]bool{"": true}
	for _, n := range names {
		for i := strings.IndexByte(n, '/'); i >= 0; i = strings.IndexByte(n[i+1:], '/') + i + 1 {
			dirs[n[:i+1]] = true
			if strings.IndexByte(n[i+1:], '/') < 0 {
				break
			}
		}
	}
	dirs["nothere/"] = true
	checked, subs := 0, 0
	for dir := range dirs {
		d := ix.dir(dir)
		for _, n := range d.names {
			if !strings.HasPrefix(n, dir) {
				t.Fatalf("dir(%q) holds %q", dir, n)
			}
		}
		for _, name := range append(slices.Clone(parts), "", "a-", "a/b", "zz", "\xff") {
			if got, want := d.tracked(name), ix.tracked(dir+name); got != want {
				t.Errorf("dir(%q).tracked(%q) = %v, whole index says %v", dir, name, got, want)
			}
			if got, want := d.holds(name), ix.holds(dir+name+"/"); got != want {
				t.Errorf("dir(%q).holds(%q) = %v, whole index says %v", dir, name, got, want)
			}
			// The walk finds a subdirectory's part in its parent's.
			if got, want := d.sub(name), ix.dir(dir+name+"/"); !slices.Equal(got.names, want.names) || got.skip != want.skip {
				t.Errorf("dir(%q).sub(%q) = %d names from %d, dir(%q) = %d names from %d",
					dir, name, len(got.names), got.skip, dir+name+"/", len(want.names), want.skip)
			} else if len(got.names) > 0 {
				subs++
			}
			checked++
		}
	}
	if checked < 1000 || subs < 200 {
		t.Fatalf("only %d lookups checked, %d of them with names below", checked, subs)
	}
	var nilIx *gitIndex
	if d := nilIx.dir("a/"); d.tracked("a") || d.holds("a") {
		t.Error("a nil index tracks something")
	}
}

// rawIndex is a version 2 index holding names in the order given (all
// fields but the name zero; the checksum is not checked).
func rawIndex(names ...string) []byte {
	b := []byte("DIRC\x00\x00\x00\x02")
	b = append(b, byte(len(names)>>24), byte(len(names)>>16), byte(len(names)>>8), byte(len(names)))
	for _, n := range names {
		e := make([]byte, indexEntryFixed)
		e[24], e[25] = 0x81, 0xa4 // mode 0100644
		e[60], e[61] = byte(len(n)>>8), byte(len(n))
		e = append(e, n...)
		e = append(e, make([]byte, 8-(len(e)%8))...) // 1 to 8 NULs
		b = append(b, e...)
	}
	return append(b, make([]byte, indexChecksumLen)...)
}

// TestIndexOrder: the order is checked as the names are decoded; an index
// out of order (a hand-made one) or with a name twice (the stages of a
// conflict) is sorted and made unique, one in order is kept as it is.
func TestIndexOrder(t *testing.T) {
	for _, c := range []struct {
		in     []string
		sorted bool
		want   []string
	}{
		{[]string{"a", "b/c", "b/d"}, true, []string{"a", "b/c", "b/d"}},
		{[]string{"b", "a", "c"}, false, []string{"a", "b", "c"}},
		{[]string{"a", "m", "m", "m", "z"}, false, []string{"a", "m", "z"}},
		{[]string{"a", "c", "b"}, false, []string{"a", "b", "c"}},
		{[]string{"x"}, true, []string{"x"}},
	} {
		names, sorted, err := decodeNames(context.Background(), rawIndex(c.in...))
		if err != nil || sorted != c.sorted || !slices.Equal(names, c.in) {
			t.Errorf("decodeNames(%q) = %q, sorted %v, %v; want the names, sorted %v", c.in, names, sorted, err, c.sorted)
		}
		if ix := parseIndex(context.Background(), rawIndex(c.in...), "index"); ix.err != nil || !slices.Equal(ix.names, c.want) {
			t.Errorf("parseIndex(%q) = %q, %v; want %q", c.in, ix.names, ix.err, c.want)
		}
	}
}
