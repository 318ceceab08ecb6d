package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCheckIgnoreStdin is one "agent-host check-ignore --stdin
// --no-index" call in this process (a fresh Host, as the command makes)
// on the paths of $WALK_BENCH_PATHS in the repository $WALK_BENCH_DIR
// (bench/walk builds both), its output to a file. It leaves out what a
// process adds (start-up, page faults); bench/walk/run.sh times the whole
// process against git's.
func BenchmarkCheckIgnoreStdin(b *testing.B) {
	dir, list := os.Getenv("WALK_BENCH_DIR"), os.Getenv("WALK_BENCH_PATHS")
	if dir == "" || list == "" {
		b.Skip("WALK_BENCH_DIR or WALK_BENCH_PATHS not set")
	}
	data, err := os.ReadFile(list)
	if err != nil {
		b.Fatal(err)
	}
	out, err := os.Create(filepath.Join(b.TempDir(), "out"))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	b.Chdir(dir)
	for b.Loop() {
		if _, err := out.Seek(0, 0); err != nil {
			b.Fatal(err)
		}
		if code := cmdCheckIgnore([]string{"--stdin", "--no-index"}, bytes.NewReader(data), out, io.Discard); code > 1 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*bytes.Count(data, []byte("\n"))), "ns/path")
}
