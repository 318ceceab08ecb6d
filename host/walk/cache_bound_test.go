package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// missingPath is the i-th made-up path: about 3.8 KB, 99 components, none
// of which exists; some components match the repository's rules.
func missingPath(root string, i int) string {
	var b strings.Builder
	b.WriteString(root)
	fmt.Fprintf(&b, "/m%07d", i)
	for k := 0; k < 98; k++ {
		switch k {
		case 40:
			if i%3 == 0 {
				b.WriteString("/build") // ignored as a directory: all below is
				continue
			}
		case 97:
			if i%2 == 0 {
				b.WriteString("/file.log")
				continue
			}
		}
		fmt.Fprintf(&b, "/%038d", k)
	}
	return b.String()
}

// TestMissingDeepPathsBounded is the attack: IsIgnored on 100,000
// distinct missing ~3.8 KB paths must leave the heap less than 64 MiB
// larger (it left 1.3 GiB after 100 of them), and the answers must be
// git's (checked on a sample with git check-ignore --no-index).
func TestMissingDeepPathsBounded(t *testing.T) {
	n := 100_000
	if testing.Short() || raceEnabled {
		n = 10_000
	}
	e := newGitEnv(t, false)
	e.write(".gitignore", "build/\n*.log\n!keep.log\n/m0000004/"+fmt.Sprintf("%038d", 0)+"/\n")
	e.make("src/a.go")
	c := e.cache()
	defer c.Close()
	ctx := context.Background()
	if len(missingPath(e.repo, 0))-len(e.repo) < 3600 {
		t.Fatal("paths too short for the figure")
	}

	// The sample's answers from git, and ours, before the figure.
	var sample []string
	for i := 0; i < 12; i++ {
		sample = append(sample, missingPath(e.repo, i)[len(e.repo)+1:])
	}
	out := e.gitIn(e.repo, []byte(strings.Join(sample, "\n")+"\n"), "check-ignore", "--no-index", "--stdin")
	gitIgnored := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		gitIgnored[l] = true
	}
	for _, rel := range sample {
		got, err := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, rel))
		must(t, err)
		if got != gitIgnored[rel] {
			t.Errorf("IsIgnored(%.60s…) = %v, git says %v", rel, got, gitIgnored[rel])
		}
	}

	before := heapInUse()
	for i := 0; i < n; i++ {
		if _, err := c.IsIgnored(ctx, e.repo, missingPath(e.repo, i)); err != nil {
			t.Fatal(err)
		}
	}
	after := heapInUse()
	growth := int64(after) - int64(before)
	t.Logf("%d missing paths: heap %+d KiB, cache %d bytes", n, growth>>10, c.bytes)
	if growth > 64<<20 {
		t.Fatalf("heap grew by %d MiB, want < 64 MiB", growth>>20)
	}
	runtime.KeepAlive(c)
}

// TestCacheBytesBound: real directories are remembered, up to the bound;
// past it the Cache drops everything and goes on giving git's answers.
func TestCacheBytesBound(t *testing.T) {
	e := newGitEnv(t, false)
	e.write(".gitignore", "*.log\n")
	var rels []string
	for i := 0; i < 60; i++ {
		d := fmt.Sprintf("d%02d/%0100d/%0100d", i, i, i)
		e.write(d+"/.gitignore", "*.tmp\n!keep.tmp\n")
		for _, f := range []string{"a.tmp", "keep.tmp", "b.log", "c.go"} {
			rels = append(rels, d+"/"+f)
		}
	}
	out := e.gitIn(e.repo, []byte(strings.Join(rels, "\n")+"\n"), "check-ignore", "--no-index", "--stdin")
	want := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		want[l] = true
	}
	c := e.cache()
	defer c.Close()
	c.maxBytes = 16 << 10
	for pass := 0; pass < 2; pass++ {
		for _, rel := range rels {
			got, err := c.IsIgnored(context.Background(), e.repo, filepath.Join(e.repo, rel))
			must(t, err)
			if got != want[rel] {
				t.Fatalf("pass %d: IsIgnored(%s) = %v, git says %v", pass, rel, got, want[rel])
			}
			if c.bytes > c.maxBytes {
				t.Fatalf("cache holds %d bytes, bound %d", c.bytes, c.maxBytes)
			}
		}
	}
	if c.flushes == 0 {
		t.Fatal("the bound was never reached: the test proves nothing")
	}
	// The edit after a flush is seen.
	must(t, os.WriteFile(filepath.Join(e.repo, ".gitignore"), []byte("*.go\n"), 0o644))
	c.Recheck = -1
	if got, _ := c.IsIgnored(context.Background(), e.repo, filepath.Join(e.repo, rels[3])); !got {
		t.Fatal("edit after a flush not seen")
	}
}
