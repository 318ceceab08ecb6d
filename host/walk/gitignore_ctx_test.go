package walk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// bigIgnore is an ignore file of n rule lines (n a multiple of 7), line
// i+1 of one of seven kinds by i%7: a literal name, an extension, a
// directory, an anchored path, a glob, a negation and a "**" path.
func bigIgnore(n int) []byte {
	b := make([]byte, 0, n*12)
	for i := 0; i < n; i++ {
		pre, suf := [7]string{"name", "*.e", "dir", "/top", "f", "!keep", "a/**/b"}[i%7], [7]string{"", "", "/", "/sub", "*x", "", ""}[i%7]
		b = append(b, pre...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, suf...)
		b = append(b, '\n')
	}
	return b
}

// bigProbes are paths that the last lines of bigIgnore(n) decide, and
// one that none does.
func bigProbes(n int) []string {
	k := n - 7
	return []string{
		fmt.Sprintf("name%d", k), fmt.Sprintf("x/q.e%d", k+1), fmt.Sprintf("x/dir%d/", k+2),
		fmt.Sprintf("top%d/sub", k+3), fmt.Sprintf("x/f%dzzx", k+4), fmt.Sprintf("keep%d", k+5),
		fmt.Sprintf("a/c/b%d", k+6), "name0", "nomatch",
	}
}

// checkBigAgainstGit compares c.Check on probes (relative to e.repo) with
// git check-ignore -v -n --no-index: the verdict and the deciding line.
func checkBigAgainstGit(t *testing.T, e *gitEnv, c *Cache, probes []string) {
	t.Helper()
	out := e.gitIn(e.repo, []byte(strings.Join(probes, "\n")+"\n"), "check-ignore", "-v", "-n", "--no-index", "--stdin")
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(probes) {
		t.Fatalf("git answered %d lines for %d probes: %q", len(lines), len(probes), out)
	}
	abs := make([]string, len(probes))
	for i, p := range probes {
		abs[i] = filepath.Join(e.repo, p)
		if strings.HasSuffix(p, "/") {
			abs[i] += "/"
		}
	}
	got, err := c.Check(context.Background(), e.repo, abs, CheckOptions{NoIndex: true})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	for i, l := range lines {
		src, _, _ := strings.Cut(l, "\t")
		want := "::"
		if m := got[i]; m.Rule != nil {
			want = fmt.Sprintf("%s:%d:%s", m.Rule.Source, m.Rule.Line, m.Rule.Pattern)
		}
		if src != want {
			t.Errorf("%s: git says %q, Check %q (ignored %v)", probes[i], src, want, got[i].Ignored)
		}
		if gitIgn := src != "::" && !strings.Contains(src, ":!"); gitIgn != got[i].Ignored {
			t.Errorf("%s: ignored %v, git %v", probes[i], got[i].Ignored, gitIgn)
		}
	}
}

// TestIgnoreParseCancelRace cancels the context while a .gitignore of
// 700,000 rules (7 MB) is being compiled (before, the compile ran to its
// end with the Cache's lock held): each call ends with the context's
// error within half a whole compile's time (at least 300 ms, at most
// 3 s) after the
// cancel, a question about another repository asked meanwhile is
// answered in as little (without waiting for the compile), and nothing
// cut short is kept: the next call answers as git. The bound is relative
// because the machine's load sets the compile's time; before, the cancel
// waited for the whole compile.
func TestIgnoreParseCancelRace(t *testing.T) {
	const n = 700_000
	e := newGitEnv(t, false)
	e.write(".gitignore", string(bigIgnore(n)))
	other := filepath.Join(e.tmp, "other")
	e.g.Init(t, other)
	must(t, os.WriteFile(filepath.Join(other, ".gitignore"), []byte("*.log\n"), 0o644))

	probe := filepath.Join(e.repo, fmt.Sprintf("name%d", n-7))
	c0 := e.cache()
	start := time.Now()
	if ign, err := c0.IsIgnored(context.Background(), e.repo, probe); err != nil || !ign {
		t.Fatalf("IsIgnored(%s) = %v, %v; want true", probe, ign, err)
	}
	whole := time.Since(start)
	c0.Close()
	// Past the cancel come at most the next 4,096 lines and the one
	// allocation of the rule list (45 MB, with the collector's assist
	// for it, which on a loaded machine is a good part of the compile).
	bound := min(max(whole/2, 300*time.Millisecond), 3*time.Second)
	t.Logf("a whole compile: %v; bound after a cancel: %v", whole, bound)

	c := e.cache()
	defer c.Close()
	cancelled := 0
	for i, delay := range []time.Duration{whole / 20, whole / 10, whole / 5} {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		var cancelAt time.Time
		var otherTook time.Duration
		var otherErr error
		var otherIgn bool
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(delay)
			// Another question, about a small repository, while the big
			// file compiles: it must not wait for that compile.
			start := time.Now()
			otherIgn, otherErr = c.IsIgnored(context.Background(), other, filepath.Join(other, "x.log"))
			otherTook = time.Since(start)
			cancelAt = time.Now()
			cancel()
		}()
		m, err := c.Check(ctx, e.repo, []string{probe}, CheckOptions{NoIndex: true})
		returned := time.Now()
		wg.Wait()
		cancel()
		if otherErr != nil || !otherIgn {
			t.Fatalf("round %d: the other repository's x.log: %v, %v; want ignored (*.log)", i, otherIgn, otherErr)
		}
		if errors.Is(err, context.Canceled) {
			cancelled++
			if d := returned.Sub(cancelAt); d > bound {
				t.Errorf("round %d: Check returned %v after the cancel (bound %v)", i, d, bound)
			}
			if otherTook > bound {
				t.Errorf("round %d: a question about another repository waited %v for the compile", i, otherTook)
			}
		} else if err != nil || len(m) != 1 || !m[0].Ignored {
			t.Fatalf("round %d: Check = %v, %v", i, m, err)
		}
		if i == 0 && !errors.Is(err, context.Canceled) {
			t.Fatalf("round 0: the compile (%d rules) ended within %v: Check = %v, %v; want context.Canceled", n, delay, m, err)
		}
	}
	t.Logf("cancelled in the middle %d of 3 times", cancelled)
	checkBigAgainstGit(t, e, c, bigProbes(n))
}

// TestIgnoreParseManyRulesBounded asks about a .gitignore of 1,000,000
// rules (8 MB): the first answer allocates less than 192 MiB in all and
// takes under 20 s (before: 283 MiB allocated and, in check-ignore, four
// times git's time), and the answers are git's.
func TestIgnoreParseManyRulesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000,000 rules: a few seconds, more under the race detector")
	}
	const n = 1_000_006
	e := newGitEnv(t, false)
	e.write(".gitignore", string(bigIgnore(n)))
	c := e.cache()
	defer c.Close()
	probe := filepath.Join(e.repo, fmt.Sprintf("name%d", n-7))
	limit := 20 * time.Second
	if raceEnabled {
		limit = 60 * time.Second
	}
	bounded(t, "IsIgnored with 1,000,000 rules", limit, 192<<20, func() {
		if ign, err := c.IsIgnored(context.Background(), e.repo, probe); err != nil || !ign {
			t.Errorf("IsIgnored(%s) = %v, %v; want true", probe, ign, err)
		}
	})
	runtime.GC()
	checkBigAgainstGit(t, e, c, bigProbes(n))
}

// TestIgnoreRulesCharged asks about 24 repositories, each with a
// .gitignore of 20,000 rules, under a 1 MiB bound: the compiled rules are
// charged (the bound drops what it held, and the heap stays within the
// bound plus the largest set), where before they were not counted and
// all 24 sets stayed (some 70 MiB). The answers stay git's.
func TestIgnoreRulesCharged(t *testing.T) {
	const n, repos = 20_006, 24
	e := newGitEnv(t, false)
	data := bigIgnore(n)
	var roots []string
	for i := 0; i < repos; i++ {
		r := filepath.Join(e.tmp, fmt.Sprintf("r%02d", i))
		e.g.Init(t, r)
		must(t, os.WriteFile(filepath.Join(r, ".gitignore"), data, 0o644))
		roots = append(roots, r)
	}
	c := e.cache()
	c.maxBytes = 1 << 20
	defer c.Close()
	one := parseRules(data, "x", "", false).cost()
	before := heapInUse()
	for _, r := range roots {
		p := filepath.Join(r, fmt.Sprintf("name%d", n-7))
		if ign, err := c.IsIgnored(context.Background(), r, p); err != nil || !ign {
			t.Fatalf("IsIgnored(%s) = %v, %v; want true", p, ign, err)
		}
		c.mu.Lock()
		if c.bytes < one {
			t.Errorf("after %s: the cache counts %d bytes, less than the rules it holds (%d)", r, c.bytes, one)
		}
		c.mu.Unlock()
	}
	grew := int64(heapInUse()) - int64(before)
	c.mu.Lock()
	flushes := c.flushes
	c.mu.Unlock()
	if flushes < repos/2 {
		t.Errorf("the bound dropped the cache %d times for %d sets of %d bytes over a %d-byte bound", flushes, repos, one, c.maxBytes)
	}
	// The bound, the largest set, the one set being compiled and the
	// files' bytes: well under 16 MiB.
	if grew > 16<<20 {
		t.Errorf("the heap grew by %d MiB (bound 16 MiB); one set costs %d KiB", grew>>20, one>>10)
	}
	t.Logf("one set: %d KiB by cost; heap grew %d KiB; %d flushes", one>>10, grew>>10, flushes)
	runtime.KeepAlive(c)
}
