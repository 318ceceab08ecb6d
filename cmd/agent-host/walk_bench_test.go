package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

func benchArgs() []string {
	if a := os.Getenv("WALK_BENCH_ARGS"); a != "" {
		return strings.Fields(a)
	}
	return []string{"--no-hidden"}
}

// BenchmarkWalkCommand runs "agent-host walk --no-hidden" (or the
// arguments in $WALK_BENCH_ARGS, split on spaces) in-process on
// $WALK_BENCH_DIR (bench/walk/run.sh builds goroot/, tree/ and small/
// there), its output to a file as cmpbench gives it: the whole command but
// the process start (Host, jail, index read, output). Skipped when the
// variable is unset.
func BenchmarkWalkCommand(b *testing.B) {
	dir := os.Getenv("WALK_BENCH_DIR")
	if dir == "" {
		b.Skip("WALK_BENCH_DIR not set")
	}
	b.Chdir(dir)
	out, err := os.CreateTemp(b.TempDir(), "out")
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	for b.Loop() {
		out.Truncate(0)
		out.Seek(0, 0)
		if code := cmdWalk(benchArgs(), nil, out, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
