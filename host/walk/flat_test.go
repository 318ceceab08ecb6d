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
		if x.flatFor() != nil {
			t.Fatalf("merged after %d questions", n)
		}
	}
	first, again := x.flatFor(), x.flatFor()
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
