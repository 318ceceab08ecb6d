package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// deepRules is the .gitignore of level l of the deep tree: n rules, a
// quarter each literal names, extensions, anchored paths and globs.
func deepRules(l, n int) string {
	var b strings.Builder
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "name%d_%d\n", l, i)
		case 1:
			fmt.Fprintf(&b, "*.e%d_%d\n", l, i)
		case 2:
			fmt.Fprintf(&b, "/p%d_%d\n", l, i)
		default:
			fmt.Fprintf(&b, "g%d_%d*x\n", l, i)
		}
	}
	return b.String()
}

// deepTree writes levels nested directories d1/d2/…, each with a
// .gitignore of rules rules, and returns the questions: per directory,
// 10 files that its own rules ignore, 10 that no rule matches, and one
// each that a rule of the top level and of the level above decide.
func deepTree(e *gitEnv, levels, rules int) []string {
	var qs []string
	dir := ""
	for l := 1; l <= levels; l++ {
		dir += fmt.Sprintf("d%d/", l)
		e.write(dir+".gitignore", deepRules(l, rules))
		// Old enough not to be racy (re-read at every re-check).
		old := time.Now().Add(-time.Hour)
		must(e.t, os.Chtimes(e.abs(dir+".gitignore"), old, old))
		for q := 1; q <= 10; q++ {
			qs = append(qs, fmt.Sprintf("%sf%d.e%d_%d", dir, q, l, (4*q+1)%rules), fmt.Sprintf("%sf%d.zz", dir, q))
		}
		qs = append(qs, fmt.Sprintf("%sname1_0", dir), fmt.Sprintf("%sg%d_3ax", dir, max(l-1, 1)))
	}
	return qs
}

// The case, scaled to a test: a chain of 60 .gitignore files of
// 1,000 rules each, 22 questions per directory. Merging each chain whole
// copied every rule above every directory (1.8 million copies, about 300
// MiB here; 787 MiB and 16.5 s at 100 levels of 2,000); the segments copy
// none of these big levels. The answers must be git's, the questions must
// allocate less than 64 MiB in all (the compiled rules, about 10 MiB,
// included) and leave the heap less than 32 MiB larger, in under 10 s
// (40 s under the race detector).
func TestFlatDeepChainLinear(t *testing.T) {
	const levels, rules = 60, 1000
	e := newGitEnv(t, false)
	qs := deepTree(e, levels, rules)
	out := e.gitIn(e.repo, []byte(strings.Join(qs, "\n")+"\n"), "check-ignore", "--no-index", "--stdin")
	want := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		want[l] = true
	}
	if len(want) < len(qs)/3 {
		t.Fatalf("git ignores %d of %d: the tree is not what the test means", len(want), len(qs))
	}
	c := e.cache()
	c.NoWatch = true
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	before := heapInUse()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	for pass := 0; pass < 2; pass++ { // the second pass on merged chains
		for _, q := range qs {
			got, err := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, q))
			if err != nil {
				t.Fatalf("after %v: %v", time.Since(start), err)
			}
			if got != want[q] {
				t.Fatalf("IsIgnored(%s) = %v, git says %v", q, got, want[q])
			}
		}
	}
	took := time.Since(start)
	runtime.ReadMemStats(&ms1)
	growth := int64(heapInUse()) - int64(before)
	alloc := ms1.TotalAlloc - ms0.TotalAlloc
	t.Logf("%d questions twice: %v, %d MiB allocated, heap %+d MiB", len(qs), took, alloc>>20, growth>>20)
	if alloc > 64<<20 || growth > 32<<20 {
		t.Fatalf("%d MiB allocated and heap %+d MiB, want < 64 and < 32", alloc>>20, growth>>20)
	}
	limit := 10 * time.Second
	if raceEnabled {
		limit *= 4
	}
	if took > limit {
		t.Fatalf("took %v, want < %v", took, limit)
	}
	runtime.KeepAlive(c)
}

// The merged matchers are counted in the Cache's bound, and take at most
// half of it: with a small bound the chains past it are answered level by
// level, with git's answers, and the Cache never holds more than the
// bound.
func TestFlatCountedInBound(t *testing.T) {
	e := newGitEnv(t, false)
	var qs []string
	for i := range 40 {
		dir := fmt.Sprintf("p%02d/", i)
		e.write(dir+".gitignore", "*.tmp\n!keep.tmp\nout/\n")
		e.write(dir+"s/.gitignore", "*.gen\n/only\n")
		for _, f := range []string{"a.tmp", "keep.tmp", "b.log", "c.gen", "only", "out", "d.go"} {
			qs = append(qs, dir+"s/"+f, dir+f)
		}
	}
	e.write(".gitignore", "*.log\n"+deepRules(0, 40))
	out := e.gitIn(e.repo, []byte(strings.Join(qs, "\n")+"\n"), "check-ignore", "--no-index", "--stdin")
	want := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		want[l] = true
	}
	c := e.cache()
	c.NoWatch = true
	defer c.Close()
	c.maxBytes = 512 << 10
	for pass := 0; pass < flatAfter+2; pass++ {
		for _, q := range qs {
			got, err := c.IsIgnored(context.Background(), e.repo, filepath.Join(e.repo, q))
			must(t, err)
			if got != want[q] {
				t.Fatalf("pass %d: IsIgnored(%s) = %v, git says %v", pass, q, got, want[q])
			}
			c.mu.Lock()
			if c.bytes > c.maxBytes || c.flatBytes > c.maxBytes/2 {
				t.Fatalf("cache holds %d bytes, %d of them merged matchers; bound %d", c.bytes, c.flatBytes, c.maxBytes)
			}
			c.mu.Unlock()
		}
	}
	merged, refused := 0, 0
	c.mu.Lock()
	for _, st := range c.dirs {
		if st.ctx.chain != nil {
			switch f := st.ctx.chain.flat.flat.Load(); {
			case f == noFlat:
				refused++
			case f != nil && f.level == nil:
				merged++
			}
		}
	}
	t.Logf("%d flushes; %d bytes, %d of them merged matchers; %d chains merged, %d refused", c.flushes, c.bytes, c.flatBytes, merged, refused)
	c.mu.Unlock()
	if merged == 0 || refused == 0 {
		t.Fatal("the merged matchers did not reach their share of the bound: the test proves nothing")
	}
}

// What a merged matcher is charged covers what it takes: segments built
// for 200 chains (each a 30-rule .gitignore below a 40-rule one, merged
// into one segment, and info/exclude) grow the heap by less than they are
// charged.
func TestFlatChargeCovers(t *testing.T) {
	r := &repoInfo{exclude: parseRules([]byte("*.ex\n!keep.ex\nexcl/\n"), "exclude", "", false)}
	top := &ignoreNode{rules: parseRules([]byte(deepRules(0, 40)), "top", "", false)}
	var nodes []*ignoreNode
	for i := range 200 {
		nodes = append(nodes, &ignoreNode{parent: top, rules: parseRules([]byte(deepRules(i+1, 30)), "sub", fmt.Sprintf("d%d/", i), false)})
	}
	var c Cache
	c.now() // the maps
	before := heapInUse()
	for _, n := range nodes {
		f := segmentsFor(&c, r, n)
		if f == nil || f.level != nil || f.next != nil || f.size != 73 {
			t.Fatalf("segments %+v: not one merged segment of 73 rules", f)
		}
	}
	growth := int64(heapInUse()) - int64(before)
	t.Logf("heap %+d bytes, charged %d", growth, c.flatBytes)
	if growth <= 0 || growth > int64(c.flatBytes) {
		t.Fatalf("heap grew by %d bytes, charged %d", growth, c.flatBytes)
	}
	runtime.KeepAlive(nodes)
}
