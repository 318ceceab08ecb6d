package walk

import (
	"fmt"
	"strings"
	"testing"
)

// The merged matcher must pick the very rule decideLevels picks, for a
// file and for a directory, on chains of several files with every kind
// of rule, info/exclude and a global file, with and without case folding.
func TestFlatRulesAgree(t *testing.T) {
	files := []string{
		"*.log\n!keep.log\n/dist/\nbuild/\n**/cache/\n[a-c]*.txt\ndocs/**/*.md\n*.o\n",
		"gen/\n!gen/keep/\n*.tmp\nx/y\n!*.o\n/a/b\nCache\n",
		"!build/\n*.py[co]\n**/tmp/**\nd*.txt\n!a.log\nsub/x.log\n",
		strings.Join(shortcutPatterns, "\n"),
		// Path globs with literal prefixes shorter than, as long as and
		// longer than flatEnt's eight-byte lead, and prefixes that differ
		// from a path only at the lead's edges.
		"testdata/*.json\ntestdatb/x*\nabcdefghij/*.c\nab/c*\na*/q\nabcdefgh*\n",
	}
	var paths []string
	for _, p := range shortcutPaths {
		if p != "" && !strings.HasSuffix(p, "/") {
			paths = append(paths, p)
		}
	}
	paths = append(paths, "keep.log", "a.log", "dist", "build", "gen/keep", "x/y", "a/b", "sub/x.log",
		"KEEP.LOG", "Build", "CACHE", "gen", "d.txt", "e.txt", "m.pyc", "z/tmp/q", "docs/r.md",
		"testdata/a.json", "testdata/a.jsonx", "testdatb/xy", "testdatA/xy", "Testdata/a.json", "testdata", "t",
		"abcdefghij/k.c", "abcdefghiX/k.c", "abcdefgh", "abcdefghz", "Abcdefghij/k.c", "ab/cd", "ab/d", "ax/q", "b/q")
	for _, fold := range []bool{false, true} {
		for depth := 1; depth <= len(files); depth++ {
			for _, global := range []bool{false, true} {
				r := &repoInfo{fold: fold, exclude: parseRules([]byte("*.ex\n!keep.ex\nexcl/\n"), "exclude", "", fold)}
				if global {
					r.global = parseRules([]byte("*.gl\n**/glob/\n*.log\n"), "global", "", fold)
				}
				x := &dirCtx{repo: r}
				bases := []string{"", "sub/", "sub/deep/", "sub/deep/er/", "sub/deep/er/st/"}
				for d := 0; d < depth; d++ {
					x = &dirCtx{repo: r, chain: &ignoreNode{parent: x.chain, rules: parseRules([]byte(files[d]), fmt.Sprint(d), bases[d], fold)}, rel: bases[d]}
				}
				f := mergeRules(x)
				for _, p := range paths {
					for _, ext := range []string{"", ".ex", ".gl"} {
						agreeLevels(t, x, f, x.rel+p+ext, fmt.Sprintf("fold %v depth %d global %v", fold, depth, global))
					}
				}
			}
		}
	}
}

// agreeLevels fails t unless the merged matcher f of x picks, for rel
// (relative to the repository root), the rules that x's levels pick.
func agreeLevels(t testing.TB, x *dirCtx, f *flatRules, rel, what string) {
	t.Helper()
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	a, i, b, j := x.decideLevels(rel, name)
	c, k, d, l := f.decideBoth(rel, name)
	if a != c || i != k || b != d || j != l {
		t.Errorf("%s: %q: merged picks %s:%d / %s:%d, levels %s:%d / %s:%d",
			what, rel, src(c), k, src(d), l, src(a), i, src(b), j)
	}
}

func src(rs *ruleSet) string {
	if rs == nil {
		return "-"
	}
	return rs.source
}

// A chain is merged once it has been asked flatAfter times, and not before.
func TestFlatRulesAfter(t *testing.T) {
	r := &repoInfo{}
	x := &dirCtx{repo: r, chain: &ignoreNode{rules: parseRules([]byte("*.log\n"), "g", "", false)}}
	for n := 1; n < flatAfter; n++ {
		if x.flatFor(nil) != nil {
			t.Fatalf("merged after %d questions", n)
		}
	}
	first, again := x.flatFor(nil), x.flatFor(nil)
	if first == nil || again != first {
		t.Fatal("not merged (once) after flatAfter questions")
	}
}

// FuzzFlatRules holds the merged matcher to decideLevels on any rules
// (two files, the second one directory down, and an info/exclude) and any
// path below them, with and without case folding: it must pick the very
// rules decideLevels picks. It covers the shortcuts mergeRules takes (the
// maps, the extension table, a path glob's leading bytes).
func FuzzFlatRules(f *testing.F) {
	f.Add("*.log\n!keep.log\n/testdata/*.json\n", "docs/**/*.txt\nabcdefghij/*.c\n", "x.log", false)
	f.Add("[a-c]*.txt\n**/tmp/**\n", "/testdata/*.json\n*.py[co]\n", "testdata/a.json", true)
	f.Add("[a-c]*.txt\n**/tmp/**\n", "/testdata/*.json\n*.py[co]\n", "testdata/a.json", false)
	f.Add("abcdefgh*\nab/c*\n", "abcdefghij/*.c\n!gen/keep/\n", "abcdefghij/k.c", false)
	f.Fuzz(func(t *testing.T, top, sub, path string, fold bool) {
		if len(top)+len(sub)+len(path) > 4096 {
			return
		}
		r := &repoInfo{fold: fold, exclude: parseRules([]byte("*.ex\n!keep.ex\n"), "exclude", "", fold)}
		x := &dirCtx{repo: r, chain: &ignoreNode{rules: parseRules([]byte(top), "top", "", fold)}}
		x = &dirCtx{repo: r, chain: &ignoreNode{parent: x.chain, rules: parseRules([]byte(sub), "sub", "sub/", fold)}, rel: "sub/"}
		fl := mergeRules(x)
		path = strings.Trim(path, "/")
		if path == "" || strings.Contains(path, "//") {
			return
		}
		agreeLevels(t, x, fl, "sub/"+path, fmt.Sprintf("fold %v: rules %q then %q", fold, top, sub))
	})
}

// The segments of a deep chain (levels of very different sizes, so that
// some are merged with the segment above and some stand alone, with
// info/exclude and the global file merged or tried after) must pick the
// very rules decideLevels picks, from every depth.
func TestFlatSegmentsAgree(t *testing.T) {
	files := []string{
		"*.log\n!keep.log\n/dist/\nbuild/\n**/cache/\n[a-c]*.txt\ndocs/**/*.md\n*.o\n",
		"gen/\n!gen/keep/\n*.tmp\nx/y\n!*.o\n/a/b\nCache\n",
		"!build/\n*.py[co]\n**/tmp/**\nd*.txt\n!a.log\nsub/x.log\n",
		"testdata/*.json\ntestdatb/x*\nabcdefghij/*.c\nab/c*\na*/q\nabcdefgh*\n",
	}
	// pad is n rules that match none of the paths below.
	pad := func(d, n int) string {
		var b strings.Builder
		for i := range n {
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, "pad%d_%d\n", d, i)
			case 1:
				fmt.Fprintf(&b, "*.pad%d_%d\n", d, i)
			case 2:
				fmt.Fprintf(&b, "/p%d/q%d\n", d, i)
			default:
				fmt.Fprintf(&b, "g%d_%d*z\n", d, i)
			}
		}
		return b.String()
	}
	paths := []string{"keep.log", "a.log", "dist", "build", "gen/keep", "x/y", "a/b", "sub/x.log",
		"KEEP.LOG", "Build", "CACHE", "gen", "d.txt", "e.txt", "m.pyc", "z/tmp/q", "docs/r.md",
		"testdata/a.json", "testdatb/xy", "abcdefghij/k.c", "ab/cd", "ax/q", "q.o", "n.ex", "keep.ex", "x.gl", "excl"}
	var all [3]int // merged segments, single-level ones, tails tried unmerged
	for _, sizes := range [][]int{
		{0, 0, 0, 0, 0, 0},
		{2000, 5, 300, 1, 1, 2000, 3},
		{1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{600, 600, 600, 600, 600},
		{10, 400, 10, 10, 900, 10},
	} {
		for _, fold := range []bool{false, true} {
			for _, tail := range []int{0, 3, 1000} {
				r := &repoInfo{fold: fold}
				if tail > 0 {
					r.exclude = parseRules([]byte("*.ex\n!keep.ex\nexcl/\n"+pad(99, tail/2)), "exclude", "", fold)
					r.global = parseRules([]byte("*.gl\n**/glob/\n*.log\n"+pad(98, tail/2)), "global", "", fold)
				}
				x := &dirCtx{repo: r}
				var ctxs []*dirCtx
				base := ""
				for d, n := range sizes {
					x = &dirCtx{repo: r, chain: &ignoreNode{parent: x.chain, rules: parseRules([]byte(pad(d, n)+files[d%len(files)]), fmt.Sprint(d), base, fold)}, rel: base}
					ctxs = append(ctxs, x)
					base += fmt.Sprintf("s%d/", d)
				}
				var merged, bare, tails int
				for _, x := range ctxs {
					f := mergeRules(x)
					for s := f; s != nil; s = s.next {
						if s.level != nil {
							bare++
						} else {
							merged++
						}
						if s.tail {
							tails++
						}
					}
					for _, p := range paths {
						agreeLevels(t, x, f, x.rel+p, fmt.Sprintf("sizes %v fold %v tail %d", sizes, fold, tail))
					}
				}
				all[0] += merged
				all[1] += bare
				all[2] += tails
			}
		}
	}
	if all[0] == 0 || all[1] == 0 || all[2] == 0 {
		t.Fatalf("%d merged segments, %d single-level ones, %d unmerged tails: the layouts are not all exercised", all[0], all[1], all[2])
	}
}
