package walk

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The walk asks decide only about the entries a directory's ruleFilter
// lets through: a name the filter turns away must be one that no rule in
// force matches at any depth, for a file and a directory, with and
// without core.ignorecase.

// filterFiles are ignore files of literal names, extensions and paths
// (what the filter is keyed by), globs that need a literal run (which it
// looks for in the name, or finds in the directory's path), negations and
// directory-only rules among them, at three depths; info/exclude and the
// global file hold more. globs holds a glob with no run (the filter then
// takes everything).
var filterFiles = struct{ root, sub, deep, exclude, global, globs string }{
	root: "*.log\n*.tmp\n!keep.log\n/dist/\nnode_modules/\n**/cache/\n*.o\n.env\ndocs/out\n/a/b\nCache\n*.TAR.gz\n" +
		"**/tmp/**\ndocs/**/*.txt\n/testdata/*.json\n/sub/gen*/\n",
	sub:     "[a-c]*.txt\n*.md\n!README.md\nvendor/\n/x/only\nx/deep/path.go\nZ\n*.py[co]\n*foo\nx/th*.go\n",
	deep:    "[kx].pyc\n*.pyo\n/here\nthere/\n!keep.pyc\n*.\n",
	exclude: "*.swp\nsub/x/excluded\n/top\n",
	global:  ".DS_Store\n*.bak\nsub/x/g.go\n",
	globs:   "a*b\n",
}

// filterNames are entry names tried in each directory: each key above in
// several cases, with and without their extensions, names holding the
// globs' runs, and names no rule holds.
var filterNames = []string{
	"x.log", "X.LOG", "keep.log", "a.tmp", "dist", "DIST", "node_modules", "Node_Modules", "cache", "CACHE",
	"x.o", "x.O", ".env", ".ENV", "out", "docs", "b", "B", "a", "Cache", "cachE", "f.tar.gz", "f.TAR.GZ", "f.gz",
	"a.txt", "A.TXT", "d.txt", "x.md", "README.md", "readme.MD", "vendor", "VENDOR", "only", "path.go", "Z", "z",
	"x.pyc", "x.PYO", "here", "HERE", "there", "keep.pyc", "x.", "X.", "x.swp", "excluded", "top", "TOP",
	".DS_Store", ".ds_store", "x.bak", "g.go", "G.GO", "main.go", "util.ts", "x", "sub", "deep", "aXb", "ab",
	"log", "tmp", ".log", "o", "gz", "txt", "md", "pyc", "swp", "bak", "e", "x.Log", "py",
	"tmp", "x.tmp", "TMP", "q.json", "x.json", "testdata", "gen", "gen1", "xgen", "foo", "afoo", "FOO", "a.py",
	"x.pyd", "this.go", "th.go", "that.go", "the", "x.txt", "a.foo",
}

// filterCtxs are the contexts of the directories "", "sub/", "sub/x/",
// "sub/x/deep/", "tmp/", "docs/", "docs/a/" and "testdata/" of a
// repository with the files above (and, with globs, the glob file at the
// root as well).
func filterCtxs(fold, globs bool) []*dirCtx {
	parse := func(text, base string) *ruleSet { return parseRules([]byte(text), "x", base, fold) }
	r := &repoInfo{valid: true, fold: fold, exclude: parse(filterFiles.exclude, ""), global: parse(filterFiles.global, "")}
	rootText := filterFiles.root
	if globs {
		rootText += filterFiles.globs
	}
	root := repoRootCtx(r).withRules(parse(rootText, ""))
	sub := root.child("sub").withRules(parse(filterFiles.sub, "sub/"))
	x := sub.child("x")
	deep := x.child("deep").withRules(parse(filterFiles.deep, "sub/x/deep/"))
	docs := root.child("docs")
	return []*dirCtx{root, sub, x, deep, root.child("tmp"), docs, docs.child("a"), root.child("testdata")}
}

func TestRuleFilterAgrees(t *testing.T) {
	turned, matched := 0, 0
	for _, fold := range []bool{false, true} {
		for _, globs := range []bool{false, true} {
			for _, ctx := range filterCtxs(fold, globs) {
				f := filterFor(ctx)
				// Everything: with a glob that needs no run, with
				// core.ignorecase, and below tmp/, where "**/tmp/**"
				// matches any name.
				if want := globs || fold || ctx.rel == "tmp/"; want != f.all {
					t.Errorf("fold %v globs %v dir %q: filter takes everything: %v", fold, globs, ctx.rel, f.all)
				}
				for _, name := range filterNames {
					for _, isDir := range []bool{false, true} {
						rs, i := ctx.decide(ctx.rel+name, name, isDir)
						if rs != nil {
							matched++
						}
						if f.mayMatch(name) {
							continue
						}
						turned++
						if rs != nil {
							t.Errorf("fold %v dir %q: the filter turns %q (dir %v) away, but line %d of %q matches it",
								fold, ctx.rel, name, isDir, rs.rules[i].line, rs.base)
						}
					}
				}
			}
		}
	}
	// Both kinds are many, or the test above proves little.
	if turned < 200 || matched < 100 {
		t.Errorf("the filter turned %d questions away and the rules matched %d: too few to tell", turned, matched)
	}
}

// TestRuleFilterTurnsAway pins that the filter does turn names away (else
// the walk asks decide about everything and the test above compares
// nothing): the common names of a source tree are in no ignore file.
func TestRuleFilterTurnsAway(t *testing.T) {
	for _, fold := range []bool{false, true} {
		// The deepest directory; with core.ignorecase, without the root's
		// and sub/'s globs (the filter keeps no run then).
		parse := func(text, base string) *ruleSet { return parseRules([]byte(text), "x", base, fold) }
		ctx := repoRootCtx(&repoInfo{valid: true, fold: fold, exclude: parse(filterFiles.exclude, ""), global: parse(filterFiles.global, "")}).
			withRules(parse(filterFiles.root, "")).child("sub").withRules(parse(filterFiles.sub, "sub/")).child("x").
			child("deep").withRules(parse(filterFiles.deep, "sub/x/deep/"))
		if fold {
			ctx = repoRootCtx(&repoInfo{valid: true, fold: true}).withRules(parse("*.log\nnode_modules/\n/sub/x/deep/here\nthere\n*.bak\n*.TAR.gz\n", ""))
			ctx = ctx.child("sub").child("x").child("deep")
		}
		f := filterFor(ctx)
		for _, name := range []string{"main.go", "README", "Makefile", "x.json", "go.mod", "LICENSE", "index.js", "src", "cmd"} {
			if f.mayMatch(name) {
				t.Errorf("fold %v: %q may match (%+v)", fold, name, f)
			}
		}
		if !fold && f.nneeds < 2 {
			t.Errorf("the globs left %d runs to look for: %q", f.nneeds, f.needs[:f.nneeds])
		}
		for _, name := range []string{"x.log", "node_modules", "there", "here", "x.bak", "f.TAR.gz"} {
			if !f.mayMatch(name) {
				t.Errorf("fold %v: %q is turned away", fold, name)
			}
		}
	}
	// Names the globs' runs let through, and only them.
	ctxs := filterCtxs(false, false)
	f := filterFor(ctxs[3])
	for _, name := range []string{"afoo", "x.pyc", "x.pyd", "tmp"} {
		if !f.mayMatch(name) {
			t.Errorf("%q (a glob's run) is turned away from sub/x/deep/", name)
		}
	}
	if f := filterFor(ctxs[7]); !f.mayMatch("q.json") || f.mayMatch("q.jso") {
		t.Errorf("testdata/: q.json turned away %v, q.jso let through %v", !f.mayMatch("q.json"), f.mayMatch("q.jso"))
	}
	// Sets that disagree on core.ignorecase are not filtered.
	f = ruleFilter{}
	f.add(parseRules([]byte("a\n"), "x", "", false), "")
	f.add(parseRules([]byte("b\n"), "x", "", true), "")
	if !f.all {
		t.Error("sets folding differently are filtered")
	}
}

// FuzzRuleFilter holds the filter to decide for any ignore file at the
// root and at sub/, and any name in sub/.
func FuzzRuleFilter(f *testing.F) {
	f.Add(filterFiles.root, filterFiles.sub, "x.log", false)
	f.Add("/sub/abc\n", "", "abc", true)
	f.Add("sub/q\n", "q/", "q", false)
	f.Fuzz(func(t *testing.T, root, sub, name string, fold bool) {
		if len(root) > 256 || len(sub) > 256 || name == "" || len(name) > 64 || strings.ContainsAny(name, "/\x00") {
			return
		}
		r := &repoInfo{valid: true, fold: fold}
		ctx := repoRootCtx(r).withRules(parseRules([]byte(root), "x", "", fold)).
			child("sub").withRules(parseRules([]byte(sub), "x", "sub/", fold))
		fl := filterFor(ctx)
		if fl.mayMatch(name) {
			return
		}
		for _, isDir := range []bool{false, true} {
			if rs, i := ctx.decide(ctx.rel+name, name, isDir); rs != nil {
				t.Errorf("the filter turns %q (dir %v) away, but %q matches it", name, isDir, rs.rules[i].text)
			}
		}
	})
}

// TestRuleFilterWalkAgreesWithGit walks random trees, with random ignore
// files drawn from literal, extension, path and glob rules (with and
// without the literal runs the filter keys globs by) at several depths,
// some ignored files tracked, against git ls-files -co --exclude-standard.
func TestRuleFilterWalkAgreesWithGit(t *testing.T) {
	pool := []string{"*.log", "!keep.log", "/dist", "node_modules/", "**/cache/", "*.o", "**/tmp/**", "docs/**/*.txt",
		"/testdata/*.json", "[a-c]*.txt", "*.py[co]", "*foo", "x/th*.go", "gen*/", "!gen1/keep", "*.md", "!README.md",
		"a/b", "/a/c/", "*.TAR.gz", "b?d", "Cache", "keep", "*", "!*.go", "th*", "/x/", "q.*"}
	dirs := []string{"", "a/", "a/b/", "a/c/", "docs/", "docs/x/", "tmp/", "testdata/", "x/", "gen1/", "a/b/tmp/", "node_modules/"}
	names := []string{"x.log", "keep.log", "dist", "x.o", "a.txt", "d.txt", "q.json", "main.go", "this.go", "afoo",
		"x.pyc", "x.py", "README.md", "y.md", "bad", "bd", "f.tar.gz", "Cache", "keep", "thing"}
	r := rand.New(rand.NewPCG(5, 6))
	rounds := 10
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		e := newGitEnv(t, false)
		var made []string
		for _, d := range dirs {
			if d != "" {
				e.make(d)
			}
			for _, n := range names {
				if r.IntN(3) == 0 {
					e.make(d + n)
					made = append(made, d+n)
				}
			}
			if r.IntN(3) != 0 {
				var lines []string
				for range 1 + r.IntN(4) {
					lines = append(lines, pool[r.IntN(len(pool))])
				}
				e.write(d+".gitignore", strings.Join(lines, "\n")+"\n")
			}
		}
		// Some files tracked whatever the rules say: the walk lists them.
		for _, p := range made {
			if r.IntN(8) == 0 {
				e.git(e.repo, "add", "-f", "--", p)
			}
		}
		walkIsLsFiles(t, e, fmt.Sprintf("round %d", round))
	}
}
