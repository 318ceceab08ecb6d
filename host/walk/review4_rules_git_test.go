package walk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReview4RulesAgreeWithGit walks random trees whose ignore files hold
// the rules the fast paths take apart (path globs whose literal prefix
// runs into the directory of a nested .gitignore or past eight bytes,
// "**" in every place, escapes, classes, negations, anchors, trailing
// slashes), with core.ignorecase off and on, and holds the walk to git
// ls-files -co --exclude-standard and IsIgnored to git check-ignore
// --no-index for every path on disk.
func TestReview4RulesAgreeWithGit(t *testing.T) {
	pool := []string{
		"b/th*", "th*/x.go", "/a/b*cd/e", "a/b*cd/", "**/b/*.go", "x/**", "docs/*/x/*.txt", "*/x.log",
		"a/*/keep.log", "\\!keep", "th\\*", "[!a]*.o", "b/c?d", "abcdefghij*/", "abcdefghij/kl*",
		"abcdefgh*", "/abcdefgh/*", "a/b/**/c*", "**/", "!**/keep", "!a/b/", "b/", "/b", "**/abc*/",
		"Th*", "*.LOG", "Up/B*", "!*.Go", "docs/", "!docs/x/", "x/th*.go", "**/*cd*", "c*d/**/*.go",
		"abcdefghij/klm/*", "a/b/c/", "a/b/c/*.go", "\\#x", "*/", "?/", "a/*", "!a/b/keep",
	}
	dirs := []string{"", "a/", "a/b/", "a/b/c/", "a/bxcd/", "a/bcd/", "b/", "docs/", "docs/q/", "docs/q/x/",
		"x/", "thing/", "abcdefghij/", "abcdefghij/klm/", "abcdefgh/", "c1d/", "c1d/e/", "Up/", "Up/Bx/"}
	names := []string{"x.log", "keep.log", "x.go", "this.go", "th*", "!keep", "keep", "#x", "x.o", "a.o", "cd", "c1d",
		"e", "abcdefghijk", "klm", "kl", "abc", "abcdefghi", "X.LOG", "This.GO", "b", "x.txt", "c", "Th"}
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	seed := uint64(41)
	if v, err := strconv.ParseUint(os.Getenv("REVIEW4_SEED"), 10, 64); err == nil {
		seed = v
	}
	if v, err := strconv.Atoi(os.Getenv("REVIEW4_ROUNDS")); err == nil {
		rounds = v
	}
	r := rand.New(rand.NewPCG(seed, 4))
	for round := range rounds {
		fold := round%3 == 2
		e := newGitEnv(t, false)
		if fold {
			e.git(e.repo, "config", "core.ignorecase", "true")
		}
		var made []string
		for _, d := range dirs {
			if d != "" {
				e.make(d)
			}
			for _, n := range names {
				if slices.Contains(dirs, d+n+"/") || fold && (n == "X.LOG" || n == "This.GO") {
					// A file where a directory goes; with core.ignorecase
					// git lists one of two names that differ in case only.
					continue
				}
				if r.IntN(3) == 0 {
					e.make(d + n)
					made = append(made, d+n)
				}
			}
			if r.IntN(2) == 0 {
				var lines []string
				for range 1 + r.IntN(5) {
					lines = append(lines, pool[r.IntN(len(pool))])
				}
				e.write(d+".gitignore", strings.Join(lines, "\n")+"\n")
			}
		}
		var lines []string
		for range r.IntN(3) {
			lines = append(lines, pool[r.IntN(len(pool))])
		}
		e.write(".git/info/exclude", strings.Join(lines, "\n")+"\n")
		// Before anything is tracked (check-ignore --no-index does not
		// read the index): every path on disk (files, and directories with and without
		// the slash), judged one at a time against check-ignore.
		files, ds := diskTree(t, e.repo)
		var qs []string
		qs = append(qs, files...)
		for _, d := range ds {
			qs = append(qs, d, d+"/")
		}
		o := newOracle(e)
		o.prefetch(qs)
		c := e.cache()
		bad, warm := 0, 0
		for _, q := range qs {
			if strings.HasPrefix(q, ".git/") || q == ".git" || q == ".git/" {
				continue
			}
			got, err := c.IsIgnored(context.Background(), e.repo, e.repo+"/"+q)
			if err != nil {
				t.Fatal(err)
			}
			want := o.ignoredIn("", q)
			// The warm path (what the Host's IsPathIgnored takes for a
			// plain path), asked twice: cold, then from what it keeps.
			rel, dir := strings.TrimSuffix(q, "/"), strings.HasSuffix(q, "/")
			for range 2 {
				ig, ok, err := c.IsIgnoredIfRealRel(context.Background(), e.repo, rel, dir)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					continue
				}
				warm++
				if ig != want && bad < 10 {
					bad++
					t.Errorf("round %d (fold %v): IsIgnoredIfRealRel(%s, dir %v) = %v, git check-ignore says %v", round, fold, rel, dir, ig, want)
				}
			}
			if got != want && bad < 10 {
				bad++
				fresh, _ := e.cache().IsIgnored(context.Background(), e.repo, e.repo+"/"+q)
				t.Errorf("round %d (fold %v): IsIgnored(%s) = %v (a fresh Cache: %v), git check-ignore says %v", round, fold, q, got, fresh, want)
			}
		}
		if bad > 0 {
			dumpIgnores(t, e.repo)
		}
		if warm < len(qs)/2 {
			t.Errorf("round %d: the warm path answered %d of %d questions", round, warm, 2*len(qs))
		}
		for _, p := range made {
			if r.IntN(10) == 0 {
				e.git(e.repo, "add", "-f", "--", p)
			}
		}
		if !walkIsLsFiles(t, e, fmt.Sprintf("round %d (fold %v)", round, fold)) {
			dumpIgnores(t, e.repo)
		}

	}
}

// dumpIgnores logs every ignore file below root.
func dumpIgnores(t *testing.T, root string) {
	files, _ := diskTree(t, root)
	for _, f := range append(files, ".git/info/exclude") {
		if strings.HasSuffix(f, ".gitignore") || f == ".git/info/exclude" {
			b, _ := os.ReadFile(root + "/" + f)
			t.Logf("%s: %s", f, strconv.Quote(string(b)))
		}
	}
}
