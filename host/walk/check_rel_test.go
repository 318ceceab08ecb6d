//go:build linux

package walk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// relQuestion is the question p (a path relative to top, "/" at the end
// for a directory) as IsIgnored takes it (abs, its "/" kept) and as the
// warm path takes it (rel without the "/", and dir).
func relQuestion(top, p string) (abs, rel string, dir bool) {
	dir = strings.HasSuffix(p, "/")
	rel = strings.TrimSuffix(p, "/")
	abs = filepath.Join(top, rel)
	if dir {
		abs += "/"
	}
	return abs, rel, dir
}

// checkRelTree is a repository with the cases the warm path takes apart:
// rules by name, extension, path and glob, directory-only rules and their
// negations, an ignored directory with a tracked file below it, a nested
// .gitignore, and paths that do not exist.
func checkRelTree(t *testing.T) (*gitEnv, []string) {
	e := newGitEnv(t, false)
	files := map[string]string{
		".gitignore":                "*.log\n!keep.log\n/dist/\nbuild/\n**/cache/\n[a-c]*.txt\ndocs/**/*.md\n*.o\n",
		"src/.gitignore":            "gen/\n!gen/keep/\n*.tmp\n",
		"src/a.go":                  "",
		"src/x.log":                 "",
		"src/keep.log":              "",
		"src/b.txt":                 "",
		"src/d.txt":                 "",
		"src/gen/out.go":            "",
		"src/gen/keep/k.go":         "",
		"src/build/f":               "",
		"src/build2":                "",
		"src/cache/c":               "",
		"src/deep/er/cache/z":       "",
		"docs/a/b/c.md":             "",
		"docs/a/b/c.txt":            "",
		"dist/tracked.go":           "",
		"dist/untracked.go":         "",
		"obj/x.o":                   "",
		"obj/build":                 "",
		"src/gen/keep/deeper/f.tmp": "",
	}
	for p, data := range files {
		full := filepath.Join(e.repo, p)
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte(data), 0o644))
	}
	e.git(e.repo, "add", "-f", "dist/tracked.go", "src/a.go", "src/x.log")
	var paths []string
	for p := range files {
		paths = append(paths, p)
		for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
			paths = append(paths, d, d+"/", d+"/missing.log", d+"/missing.go", d+"/build")
		}
	}
	paths = append(paths, "nope/x.log", "nope/deeper/y.go", "src/nope/cache/x", "x.log", "top.go")
	return e, paths
}

// The warm path (IsIgnoredIfRealRel, Batch.CheckIfRealRel) must answer
// exactly as the resolved path (IsIgnored, Check) does, and answer warm.
func TestIfRealRelAgrees(t *testing.T) {
	e, paths := checkRelTree(t)
	c := e.cache()
	defer c.Close()
	ctx := context.Background()
	top := e.repo
	for round := range 3 {
		for _, p := range paths {
			abs, rel, dir := relQuestion(top, p)
			want, err := c.IsIgnored(ctx, top, abs)
			must(t, err)
			got, ok, err := c.IsIgnoredIfRealRel(ctx, top, rel, dir)
			must(t, err)
			if ok && got != want {
				t.Errorf("round %d: IsIgnoredIfRealRel(%q) = %v, IsIgnored %v", round, p, got, want)
			}
			if g2, ok2, err := c.IsIgnoredIfReal(ctx, top, abs); err != nil || ok2 != ok || ok && g2 != got {
				t.Errorf("round %d: IsIgnoredIfReal(%q) = %v, %v, %v; the Rel form %v, %v", round, p, g2, ok2, err, got, ok)
			}
			if round > 0 && !ok && !strings.Contains(p, "missing") && !strings.Contains(p, "nope") {
				t.Errorf("round %d: %q is not answered warm", round, p)
			}
			for _, opts := range []CheckOptions{{}, {VerdictOnly: true}, {NoIndex: true, VerdictOnly: true}} {
				wantM, err := c.Check(ctx, top, []string{abs}, opts)
				must(t, err)
				b := c.NewBatch(opts)
				m, ok, err := b.CheckIfRealRel(ctx, top, rel, dir)
				must(t, err)
				if ok && !sameMatch(m, wantM[0]) {
					t.Errorf("round %d: CheckIfRealRel(%q, %+v) = %+v, Check %+v", round, p, opts, m, wantM[0])
				}
			}
		}
	}
}

func sameMatch(a, b Match) bool {
	if a.Ignored != b.Ignored || a.Tracked != b.Tracked || (a.Rule == nil) != (b.Rule == nil) {
		return false
	}
	return a.Rule == nil || *a.Rule == *b.Rule
}

// A warm question about a file allocates nothing.
func TestIfRealRelAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	e, _ := checkRelTree(t)
	c := e.cache()
	defer c.Close()
	ctx := context.Background()
	for _, rel := range []string{"src/x.log", "src/a.go", "src/gen/out.go", "docs/a/b/c.md", "src/missing.go", "src/gen/", "docs/a/"} {
		dir := strings.HasSuffix(rel, "/")
		abs := filepath.Join(e.repo, rel)
		if dir {
			abs += "/"
		}
		rel = strings.TrimSuffix(rel, "/")
		if _, err := c.IsIgnored(ctx, e.repo, abs); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := c.IsIgnoredIfRealRel(ctx, e.repo, rel, dir); !ok {
			t.Fatalf("%s: not answered warm", rel)
		}
		if n := testing.AllocsPerRun(50, func() { _, _, _ = c.IsIgnoredIfRealRel(ctx, e.repo, rel, dir) }); n != 0 {
			t.Errorf("%s (dir %v): %v allocations per warm question", rel, dir, n)
		}
	}
}

// A file added to the index inside an ignored directory that the warm path
// found holding nothing tracked is seen at the next question.
func TestIfRealRelIndexChange(t *testing.T) {
	e, _ := checkRelTree(t)
	c := e.cache()
	defer c.Close()
	ctx := context.Background()
	rel := "src/gen/out.go"
	for range 3 {
		if _, err := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, rel)); err != nil {
			t.Fatal(err)
		}
		if ig, ok, err := c.IsIgnoredIfRealRel(ctx, e.repo, rel, false); err != nil || !ok || !ig {
			t.Fatalf("before git add: %v %v %v, want ignored, answered warm", ig, ok, err)
		}
	}
	e.git(e.repo, "add", "-f", rel)
	warm := false
	for i := range 3 { // the first may go the slow way (the index changed)
		ig, ok, err := c.IsIgnoredIfRealRel(ctx, e.repo, rel, false)
		if err != nil || ok && ig {
			t.Fatalf("after git add -f, call %d: ignored %v (answered warm %v), %v; want not ignored", i, ig, ok, err)
		}
		warm = warm || ok
	}
	if !warm {
		t.Fatal("after git add -f: never answered warm")
	}
	if ig, err := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, rel)); err != nil || ig {
		t.Fatalf("IsIgnored after git add -f: %v %v", ig, err)
	}
}

// The warm path's memo (Cache.real) is dropped with everything else when
// the bound is reached: under a bound small enough to flush every few
// questions, IsIgnoredIfRealRel still answers as IsIgnored, and still
// answers warm between flushes.
func TestIfRealRelUnderFlushes(t *testing.T) {
	e, paths := checkRelTree(t)
	c := e.cache()
	defer c.Close()
	c.maxBytes = 16 << 10
	ctx := context.Background()
	top := e.repo
	warm := 0
	for round := range 2 {
		for _, p := range paths {
			abs, rel, dir := relQuestion(top, p)
			want, err := c.IsIgnored(ctx, top, abs)
			must(t, err)
			got, ok, err := c.IsIgnoredIfRealRel(ctx, top, rel, dir)
			must(t, err)
			if ok {
				warm++
				if got != want {
					t.Errorf("round %d: IsIgnoredIfRealRel(%q) = %v, IsIgnored %v", round, p, got, want)
				}
			}
		}
	}
	if c.flushes < 4 {
		t.Errorf("%d flushes: the bound was not reached, the test tests nothing", c.flushes)
	}
	if warm == 0 {
		t.Errorf("nothing answered warm")
	}
}

// Siblings asked in a row share one look-up (Cache.lastReal); after an
// edit in their directory they must be answered by the new rules, and
// answered warm again once judged (a remembered state gone stale must not
// keep sending them the slow way).
func TestIfRealRelSiblingsAfterEdit(t *testing.T) {
	e := newGitEnv(t, false)
	e.write("d/.gitignore", "*.log\n")
	names := []string{"a.go", "b.log", "c.txt", "e.go"}
	for _, n := range names {
		e.write("d/"+n, "")
	}
	c := e.cache()
	defer c.Close()
	ctx := context.Background()
	ask := func(round int, want func(string) bool, mustWarm bool) {
		t.Helper()
		for _, n := range names {
			rel := "d/" + n
			got, ok, err := c.IsIgnoredIfRealRel(ctx, e.repo, rel, false)
			must(t, err)
			if !ok {
				if mustWarm {
					t.Errorf("round %d: %s not answered warm", round, rel)
				}
				ig, err := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, rel))
				must(t, err)
				got = ig
			}
			if got != want(n) {
				t.Errorf("round %d: %s ignored %v, want %v", round, rel, got, want(n))
			}
		}
	}
	isLog := func(n string) bool { return strings.HasSuffix(n, ".log") }
	isGo := func(n string) bool { return strings.HasSuffix(n, ".go") }
	ask(0, isLog, false)
	ask(1, isLog, false)
	ask(2, isLog, true)
	e.write("d/.gitignore", "*.go\n")
	ask(3, isGo, false)
	ask(4, isGo, false)
	ask(5, isGo, true)
}

// A warm question sees an edit whose write returned just before it: the
// rules of d/.gitignore flip between "*.log" and "*.go" fifty times, and
// each time the very next IsIgnoredIfRealRel, if it answers warm, answers
// by the new rules (the poll's epoll gate must open for every edit; see
// TestWatchPollGate). Most rounds must be answered warm, or the test
// would test nothing.
func TestIfRealRelSeesEditAtOnce(t *testing.T) {
	e := newGitEnv(t, false)
	e.write("d/.gitignore", "*.log\n")
	e.write("d/a.go", "")
	e.write("d/b.log", "")
	c := e.cache()
	defer c.Close()
	c.Recheck = time.Hour // only the watches can make an edit seen
	ctx := context.Background()
	settle := func() {
		for range 3 {
			for _, n := range []string{"a.go", "b.log"} {
				_, err := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, "d", n))
				must(t, err)
			}
		}
	}
	settle()
	warm := 0
	for i := range 50 {
		ext := []string{".go", ".log"}[i%2]
		e.write("d/.gitignore", "*"+ext+"\n")
		for _, n := range []string{"a.go", "b.log"} {
			got, ok, err := c.IsIgnoredIfRealRel(ctx, e.repo, "d/"+n, false)
			must(t, err)
			if ok {
				warm++
				if want := strings.HasSuffix(n, ext); got != want {
					t.Fatalf("round %d, rules *%s: d/%s answered warm %v, want %v", i, ext, n, got, want)
				}
			}
		}
		settle()
	}
	if warm < 50 {
		t.Fatalf("only %d of 100 questions answered warm", warm)
	}
}

// BenchmarkIfRealRelOrder is a warm IsIgnoredIfRealRel over the same
// paths sorted (siblings together: one look-up of their directory, see
// Cache.lastReal) and shuffled.
func BenchmarkIfRealRelOrder(b *testing.B) {
	e := newGitEnv(b, false)
	e.write(".gitignore", "*.log\nbuild/\n")
	var rels []string
	for d := range 100 {
		dir := fmt.Sprintf("p%02d/d%d", d%10, d)
		if d%5 == 0 {
			e.write(dir+"/.gitignore", "[a-c]*.txt\n")
		}
		for f := range 10 {
			rel := fmt.Sprintf("%s/%c%d.%s", dir, 'a'+f%5, f, []string{"go", "txt", "log"}[f%3])
			e.write(rel, "")
			rels = append(rels, rel)
		}
	}
	c := e.cache()
	defer c.Close()
	ctx := context.Background()
	shuffled := slices.Clone(rels)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, order := range []struct {
		name  string
		paths []string
	}{{"sorted", rels}, {"shuffled", shuffled}} {
		b.Run(order.name, func(b *testing.B) {
			pass := func() {
				for _, rel := range order.paths {
					if _, _, err := c.IsIgnoredIfRealRel(ctx, e.repo, rel, false); err != nil {
						b.Fatal(err)
					}
				}
			}
			for range 3 {
				pass() // watch, then vouch
			}
			for b.Loop() {
				pass()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(order.paths)), "ns/path")
		})
	}
}
