package walk

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
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
