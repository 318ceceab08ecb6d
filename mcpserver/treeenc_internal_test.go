package mcpserver

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// oracleNode is a directory_tree node as encoding/json writes it: the
// oracle of treeWriter. Children is nil for a file or a directory not
// entered (no field), empty for an empty directory ([]).
type oracleNode struct {
	Name     string        `json:"name"`
	NameB64  string        `json:"name_b64,omitempty"`
	Type     string        `json:"type"`
	Children *[]oracleNode `json:"children,omitempty"`
}

// randomTree makes a tree of random names (drawn to need every kind of
// escape), returned as the entries of a sorted walk limited to maxDepth
// and cut after limit entries (0: none), and as oracle nodes built from
// those entries.
func randomTree(r *rand.Rand, maxDepth, limit int) (ents []struct {
	name  string
	dir   bool
	depth int
}, nodes []oracleNode, cut bool) {
	alphabet := []string{"a", "b", "Z", "<", ">", "&", `"`, `\`, "\n", "\t", "\x01", "\x7f", "é", "日", " ", "\xff", "\u2028"}
	name := func() string {
		var b strings.Builder
		for range 1 + r.IntN(5) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	type gen struct {
		name     string
		dir      bool
		children []*gen
	}
	var build func(depth int) []*gen
	build = func(depth int) []*gen {
		n := r.IntN(5)
		if depth > 4 {
			n = r.IntN(2)
		}
		seen := map[string]bool{}
		var out []*gen
		for range n {
			g := &gen{name: name(), dir: r.IntN(3) == 0}
			if seen[g.name] {
				continue
			}
			seen[g.name] = true
			if g.dir {
				g.children = build(depth + 1)
			}
			out = append(out, g)
		}
		slices.SortFunc(out, func(a, b *gen) int { return strings.Compare(a.name, b.name) })
		return out
	}
	top := build(1)
	// The walk: path order, limited by maxDepth, cut after limit.
	var walk func(gs []*gen, depth int) bool
	walk = func(gs []*gen, depth int) bool {
		for _, g := range gs {
			if limit > 0 && len(ents) == limit {
				cut = true
				return false
			}
			ents = append(ents, struct {
				name  string
				dir   bool
				depth int
			}{g.name, g.dir, depth})
			if g.dir && (maxDepth == 0 || depth < maxDepth) && !walk(g.children, depth+1) {
				return false
			}
		}
		return true
	}
	walk(top, 1)
	// The oracle from the entries: a directory gets children unless at
	// maxDepth, or the last entry of a cut walk.
	var stack []*[]oracleNode
	root := []oracleNode{}
	stack = append(stack, &root)
	for i, e := range ents {
		stack = stack[:e.depth]
		// encoding/json writes \ufffd for each bad byte, as we do.
		n := oracleNode{Name: e.name, Type: "file"}
		if !utf8.ValidString(e.name) {
			n.NameB64 = b64(e.name)
		}
		parent := stack[len(stack)-1]
		if e.dir {
			n.Type = "directory"
			if (maxDepth == 0 || e.depth < maxDepth) && !(cut && i == len(ents)-1) {
				n.Children = &[]oracleNode{}
			}
		}
		*parent = append(*parent, n)
		if n.Children != nil {
			stack = append(stack, (*parent)[len(*parent)-1].Children)
		}
	}
	return ents, root, cut
}

func b64(s string) string {
	b := appendB64(nil, s)
	return string(b[1 : len(b)-1])
}

// TestTreeWriter: treeWriter's compact form is what encoding/json writes
// for the same nodes, and its indented form what json.Encoder writes with
// a two-space indent and no HTML escaping (JSON.stringify's form, but for
// U+2028 and U+2029, which JSON.stringify leaves as they are, and a bad
// byte, which it shows as U+FFFD itself), on random
// trees with random names, depth limits and cuts.
func TestTreeWriter(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for i := range 3000 {
		maxDepth, limit := r.IntN(4), 0
		if r.IntN(2) == 0 {
			limit = 1 + r.IntN(20)
		}
		ents, nodes, cut := randomTree(r, maxDepth, limit)
		txt := treeWriter{indent: true, maxDepth: maxDepth, b: []byte{'['}}
		js := treeWriter{maxDepth: maxDepth, b: []byte{'['}}
		for _, e := range ents {
			txt.entry(e.name, e.dir, e.depth)
			js.entry(e.name, e.dir, e.depth)
		}
		txt.finish(cut)
		js.finish(cut)

		want, err := json.Marshal(nodes)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(js.b, want) {
			t.Fatalf("tree %d (maxDepth %d, cut %v) compact:\n%s\nencoding/json:\n%s", i, maxDepth, cut, js.b, want)
		}
		var ind bytes.Buffer
		enc := json.NewEncoder(&ind)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(nodes); err != nil {
			t.Fatal(err)
		}
		wantInd := strings.TrimSuffix(ind.String(), "\n")
		wantInd = strings.ReplaceAll(wantInd, `\u2028`, "\u2028")
		wantInd = strings.ReplaceAll(wantInd, `\ufffd`, "\ufffd")
		if string(txt.b) != wantInd {
			t.Fatalf("tree %d (maxDepth %d, cut %v) indented:\n%s\njson.Encoder:\n%s", i, maxDepth, cut, txt.b, wantInd)
		}
	}
}

// TestAppendJSText: the text form's strings are JSON that decodes to the
// name (each bad byte as U+FFFD), escape no HTML character and leave
// U+2028 as it is, as JSON.stringify writes them.
func TestAppendJSText(t *testing.T) {
	for _, s := range []string{"", "a<b>&c", `q"\`, "\n\t\x00\x1f\x7f", "line\u2028sep", "bad\xff\xfe", "日本"} {
		b := appendJSText(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q: %s: %v", s, b, err)
		}
		if want := string([]rune(s)); got != want {
			t.Errorf("%q: decodes to %q, want %q", s, got, want)
		}
		if bytes.ContainsAny(b, "\n\x00") || bytes.Contains(b, []byte(`\u003c`)) || bytes.Contains(b, []byte(`\u2028`)) {
			t.Errorf("%q: %s", s, b)
		}
	}
}
