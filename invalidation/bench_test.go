package invalidation_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenthost/agenthost/invalidation"
)

// The figures of issue 5:
//
//	go test -run '^$' -bench . -benchmem -count 6 ./invalidation/
//
// BenchmarkEnd/no-sink and /no-subscriber: ending an invocation with no sink
// (goal: <= 50 ns, 0 allocs). BenchmarkNotice/one-subscriber: one notice
// published and delivered to one subscriber, per op (goal: <= 1 us).
// BenchmarkInvocation: a whole invocation with no subscriber, a healthy one
// and a blocked one; BenchmarkBlockedRatio: the same interleaved round by
// round, reporting the median ratios (goal: blocked/none <= 1.1).

const benchPath = "/workspace/src/main.go"

func BenchmarkEnd(b *testing.B) {
	ctx := context.Background()
	b.Run("no-sink", func(b *testing.B) {
		// A nil Publisher: Begin, a recorded write and End, all no-ops.
		var p *invalidation.Publisher
		b.ReportAllocs()
		for b.Loop() {
			_, inv := p.Begin(ctx, "Write")
			inv.Touch(invalidation.ScopeContent, benchPath)
			inv.End()
		}
	})
	b.Run("no-subscriber", func(b *testing.B) {
		// A Publisher nobody subscribed to: End alone is timed (Begin
		// allocates the invocation and is done with the timer stopped).
		benchEndOnly(b, &invalidation.Publisher{})
	})
	b.Run("blocked-subscriber", func(b *testing.B) {
		// End alone, publishing to a subscriber blocked all along: the
		// publisher's side of the cost (numbering, queueing, merging).
		p := &invalidation.Publisher{}
		release := make(chan struct{})
		if _, err := p.Subscribe(invalidation.SinkFunc(func(invalidation.Notice) { <-release })); err != nil {
			b.Fatal(err)
		}
		benchEndOnly(b, p)
		close(release)
		_ = p.Close(ctx)
	})
}

// benchEndOnly times End alone: invocations are begun in batches with the
// timer stopped.
func benchEndOnly(b *testing.B, p *invalidation.Publisher) {
	ctx := context.Background()
	{
		invs := make([]*invalidation.Invocation, 1024)
		b.ReportAllocs()
		b.StopTimer()
		for done := 0; done < b.N; {
			batch := invs[:min(len(invs), b.N-done)]
			for i := range batch {
				_, batch[i] = p.Begin(ctx, "Write")
				batch[i].Touch(invalidation.ScopeContent, benchPath)
			}
			b.StartTimer()
			for _, inv := range batch {
				inv.End()
			}
			b.StopTimer()
			done += len(batch)
		}
	}
}

// countSink counts notices and the changes they merge.
type countSink struct{ n atomic.Int64 }

func (c *countSink) Notify(n invalidation.Notice) { c.n.Add(int64(n.Merged)) }

func BenchmarkNotice(b *testing.B) {
	ctx := context.Background()
	b.Run("one-subscriber", func(b *testing.B) {
		// Begin, a recorded write, End, and delivery to the subscriber: the
		// Flush at the end makes the timed loop include every delivery.
		p := &invalidation.Publisher{}
		sink := &countSink{}
		if _, err := p.Subscribe(sink); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			_, inv := p.Begin(ctx, "Write")
			inv.Touch(invalidation.ScopeContent, benchPath)
			inv.End()
		}
		if err := p.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if got := sink.n.Load(); got != int64(b.N) {
			b.Fatalf("delivered %d of %d", got, b.N)
		}
		_ = p.Close(ctx)
	})
}

// BenchmarkInvocation times one tool invocation from Begin to End as the tool
// sees it: with no subscriber, with a healthy one, and with one blocked for
// the whole run. "bare" records one write; "write-file" also writes a real
// 1 KiB file first, as a Write tool would.
func BenchmarkInvocation(b *testing.B) {
	ctx := context.Background()
	data := make([]byte, 1024)
	for _, work := range []string{"bare", "write-file"} {
		for _, subs := range []string{"none", "healthy", "blocked"} {
			b.Run(work+"/"+subs, func(b *testing.B) {
				path := filepath.Join(benchDir(b), "f")
				p := &invalidation.Publisher{}
				release := make(chan struct{})
				switch subs {
				case "healthy":
					if _, err := p.Subscribe(&countSink{}); err != nil {
						b.Fatal(err)
					}
				case "blocked":
					if _, err := p.Subscribe(invalidation.SinkFunc(func(invalidation.Notice) { <-release })); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					_, inv := p.Begin(ctx, "Write")
					if work == "write-file" {
						if err := os.WriteFile(path, data, 0o644); err != nil {
							b.Fatal(err)
						}
					}
					inv.Touch(invalidation.ScopeContent|invalidation.ScopeTree, path)
					inv.End()
				}
				b.StopTimer()
				close(release)
				if err := p.Close(ctx); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// BenchmarkBlockedRatio measures the ratio directly on a shared,
// noisy machine: rounds alternate the same invocations on a publisher with no
// subscriber, one with a healthy subscriber and one with a subscriber blocked
// for the whole run (the order rotates each round), and the reported ratios
// are medians of the per-round ratios, so that load from elsewhere hits all
// three alike. ns/op is per invocation with the blocked subscriber.
func BenchmarkBlockedRatio(b *testing.B) {
	ctx := context.Background()
	data := make([]byte, 1024)
	for _, work := range []string{"bare", "write-file"} {
		b.Run(work, func(b *testing.B) {
			k := 512 // invocations per round and mode
			if work == "write-file" {
				k = 8
			}
			path := filepath.Join(benchDir(b), "f")
			release := make(chan struct{})
			pubs := [3]*invalidation.Publisher{{}, {}, {}} // none, healthy, blocked
			if _, err := pubs[1].Subscribe(&countSink{}); err != nil {
				b.Fatal(err)
			}
			if _, err := pubs[2].Subscribe(invalidation.SinkFunc(func(invalidation.Notice) { <-release })); err != nil {
				b.Fatal(err)
			}
			round := func(p *invalidation.Publisher) time.Duration {
				t0 := time.Now()
				for range k {
					_, inv := p.Begin(ctx, "Write")
					if work == "write-file" {
						if err := os.WriteFile(path, data, 0o644); err != nil {
							b.Fatal(err)
						}
					}
					inv.Touch(invalidation.ScopeContent|invalidation.ScopeTree, path)
					inv.End()
				}
				return time.Since(t0)
			}
			var healthyR, blockedR, blockedHealthyR, blockedNs []float64
			var d [3]time.Duration
			for i := 0; b.Loop(); i++ {
				for j := range 3 {
					m := (i + j) % 3
					d[m] = round(pubs[m])
				}
				healthyR = append(healthyR, float64(d[1])/float64(d[0]))
				blockedR = append(blockedR, float64(d[2])/float64(d[0]))
				blockedHealthyR = append(blockedHealthyR, float64(d[2])/float64(d[1]))
				blockedNs = append(blockedNs, float64(d[2])/float64(k))
			}
			b.StopTimer()
			close(release)
			for _, p := range pubs {
				if err := p.Close(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(median(blockedNs), "ns/op")
			b.ReportMetric(median(healthyR), "healthy/none")
			b.ReportMetric(median(blockedR), "blocked/none")
			b.ReportMetric(median(blockedHealthyR), "blocked/healthy")
		})
	}
}

// benchDir returns a directory for the write-file benchmarks: on tmpfs
// (/dev/shm) where there is one. A write to memory is the cheapest real work
// a tool does, so it is the least favourable case for the ratios (the
// publication cost is the largest share), and it keeps the disk's noise on a
// shared machine out of them.
func benchDir(b *testing.B) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dir, err := os.MkdirTemp("/dev/shm", "invalidation-bench-")
		if err == nil {
			b.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return b.TempDir()
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// BenchmarkEndLatency times End alone for sparse notices, as an agent makes
// them: each invocation spins 20 µs (its "work") before it ends, so a
// healthy subscriber has gone idle and must be woken for each notice. It
// reports End's latency percentiles, and its mean as ns/op.
func BenchmarkEndLatency(b *testing.B) {
	ctx := context.Background()
	for _, subs := range []string{"none", "healthy", "blocked"} {
		b.Run(subs, func(b *testing.B) {
			p := &invalidation.Publisher{}
			release := make(chan struct{})
			switch subs {
			case "healthy":
				if _, err := p.Subscribe(&countSink{}); err != nil {
					b.Fatal(err)
				}
			case "blocked":
				if _, err := p.Subscribe(invalidation.SinkFunc(func(invalidation.Notice) { <-release })); err != nil {
					b.Fatal(err)
				}
			}
			var ends []float64
			for b.Loop() {
				_, inv := p.Begin(ctx, "Write")
				for t0 := time.Now(); time.Since(t0) < 20*time.Microsecond; {
				}
				inv.Touch(invalidation.ScopeContent, benchPath)
				t1 := time.Now()
				inv.End()
				ends = append(ends, float64(time.Since(t1)))
			}
			b.StopTimer()
			close(release)
			if err := p.Close(ctx); err != nil {
				b.Fatal(err)
			}
			var sum float64
			for _, e := range ends {
				sum += e
			}
			b.ReportMetric(sum/float64(len(ends)), "ns/op")
			slices.Sort(ends)
			at := func(q float64) float64 { return ends[min(len(ends)-1, int(q*float64(len(ends))))] }
			b.ReportMetric(at(0.50), "end-p50-ns")
			b.ReportMetric(at(0.90), "end-p90-ns")
			b.ReportMetric(at(0.99), "end-p99-ns")
		})
	}
}
