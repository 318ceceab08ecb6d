package walk

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// BenchmarkWalkDir walks $WALK_BENCH_DIR (bench/walk builds a 120,000-file
// tree there); it is skipped when the variable is unset.
func BenchmarkWalkDir(b *testing.B) {
	dir := os.Getenv("WALK_BENCH_DIR")
	if dir == "" {
		b.Skip("WALK_BENCH_DIR not set")
	}
	var c Cache
	for b.Loop() {
		var n atomic.Int64
		if err := c.Walk(context.Background(), dir, Options{}, func(Entry) error { n.Add(1); return nil }); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n.Load()), "entries")
	}
}

// BenchmarkIsIgnored asks about every path of $WALK_BENCH_PATHS (one per
// line, relative to $WALK_BENCH_DIR; bench/walk/run.sh writes paths.txt),
// warm: one untimed pass first. It reports the stats and inotify
// generations per pass; with nothing changing on disk both should be 0.
func BenchmarkIsIgnored(b *testing.B) {
	dir, list := os.Getenv("WALK_BENCH_DIR"), os.Getenv("WALK_BENCH_PATHS")
	if dir == "" || list == "" {
		b.Skip("WALK_BENCH_DIR or WALK_BENCH_PATHS not set")
	}
	data, err := os.ReadFile(list)
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	for _, p := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		abs := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			abs += "/"
		}
		paths = append(paths, abs)
	}
	var c Cache
	defer c.Close()
	ctx := context.Background()
	pass := func() {
		for _, p := range paths {
			if _, err := c.IsIgnored(ctx, dir, p); err != nil {
				b.Fatal(err)
			}
		}
	}
	pass()
	stats, gen := c.statCalls, c.gen
	passes := 0
	for b.Loop() {
		pass()
		passes++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(passes*len(paths)), "ns/path")
	b.ReportMetric(float64(c.statCalls-stats)/float64(passes), "stats/pass")
	b.ReportMetric(float64(c.gen-gen)/float64(passes), "gens/pass")
}

// BenchmarkParseIndex is the cost of reading a 100,000-entry index (the
// size of a large monorepo checkout's), written by go-git's encoder in
// version 2 as git writes it: decoding and building the lookup table, per
// read (done again only when the file changes).
func BenchmarkParseIndex(b *testing.B) {
	idx := &index.Index{Version: 2}
	for i := 0; i < 100_000; i++ {
		idx.Entries = append(idx.Entries, &index.Entry{
			Name: fmt.Sprintf("src/pkg%03d/sub%02d/file%05d.go", i/1000, (i/100)%10, i),
			Mode: filemode.Regular,
		})
	}
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if ix := parseIndex(context.Background(), data, "index"); ix.err != nil || len(ix.names) != 100_000 {
			b.Fatal(ix.err, len(ix.names))
		}
	}
}
