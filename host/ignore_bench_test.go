package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host"
)

// ignoreBenchPaths returns a repository and paths relative to it: those of
// $WALK_BENCH_PATHS under $WALK_BENCH_DIR when both are set (bench/walk
// builds them: the 120,000-file tree and 10,000 sampled paths), else a
// small generated repository (a .git with a HEAD, nested .gitignore files)
// and every file, directory and a missing name in it.
func ignoreBenchPaths(b *testing.B) (string, []string) {
	if dir, list := os.Getenv("WALK_BENCH_DIR"), os.Getenv("WALK_BENCH_PATHS"); dir != "" && list != "" {
		data, err := os.ReadFile(list)
		if err != nil {
			b.Fatal(err)
		}
		return dir, strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	}
	root := b.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	write(".gitignore", "*.log\n*.tmp\n!keep.log\n/dist/\nnode_modules/\n**/cache/\n*.o\n")
	var paths []string
	for d := range 20 {
		dir := fmt.Sprintf("pkg%02d/sub%d", d, d%3)
		if d%4 == 0 {
			write(dir+"/.gitignore", "[a-c]*.txt\ngen/\n!gen/keep/\ndocs/**/*.txt\n")
		}
		for f := range 20 {
			name := fmt.Sprintf("%s/%c%02d.%s", dir, 'a'+f%5, f, []string{"go", "txt", "log", "o"}[f%4])
			write(name, "x")
			paths = append(paths, name)
		}
		paths = append(paths, dir, dir+"/", dir+"/missing.tmp")
	}
	return root, paths
}

// BenchmarkIsPathIgnored is a warm Host.IsPathIgnored per path (index
// on), after one untimed pass; BenchmarkCheckIgnore the batch form, all
// the paths in one call. bench/walk/ignorebench compares both with git
// check-ignore --stdin --no-index on the 10,000 paths.
func BenchmarkIsPathIgnored(b *testing.B) {
	root, paths := ignoreBenchPaths(b)
	h, err := host.New(host.Config{WorkspaceRoot: root})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	pass := func() {
		for _, p := range paths {
			if _, err := h.IsPathIgnored(ctx, "", p); err != nil {
				b.Fatal(err)
			}
		}
	}
	pass()
	b.ReportAllocs()
	n := 0
	c0 := cpuNanos()
	for b.Loop() {
		pass()
		n++
	}
	reportPerPath(b, n*len(paths), c0)
}

func BenchmarkCheckIgnore(b *testing.B) {
	root, paths := ignoreBenchPaths(b)
	h, err := host.New(host.Config{WorkspaceRoot: root})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	opts := host.CheckIgnoreOptions{VerdictOnly: true}
	if _, err := h.CheckIgnore(ctx, "", paths, opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	c0 := cpuNanos()
	for b.Loop() {
		if _, err := h.CheckIgnore(ctx, "", paths, opts); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportPerPath(b, n*len(paths), c0)
}

// reportPerPath reports the wall time per path (ns/path) and, where it
// can be had, the process's CPU time per path since c0 (cpu-ns/path,
// the GC's included).
func reportPerPath(b *testing.B, paths int, c0 int64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(paths), "ns/path")
	if c1 := cpuNanos(); c1 > c0 && c0 > 0 {
		b.ReportMetric(float64(c1-c0)/float64(paths), "cpu-ns/path")
	}
}
