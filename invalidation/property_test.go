package invalidation_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agenthost/agenthost/invalidation"
)

// TestPropertyEveryWriteIsCovered: many goroutines run invocations (some
// nested, some panicking, some running a "shell command") that write random
// real files; afterwards every file written is covered by some notice that
// each subscriber received, and each subscriber's notices cover every
// sequence number once, in order. Subscribers differ: one keeps up, one is
// slow, one panics now and then; the queues are short, so they overflow.
// Run it under -race.
func TestPropertyEveryWriteIsCovered(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, uint64(time.Now().UnixNano())}
	if testing.Short() {
		seeds = seeds[:2]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { propertyRun(t, seed) })
	}
}

func propertyRun(t *testing.T, seed uint64) {
	const (
		goroutines = 8
		perG       = 60
		files      = 1000 // names drawn from; some writes collide
	)
	dir := t.TempDir()

	keeper := &recorder{}
	slow := &recorder{}
	flaky := &recorder{}
	flakyRand := rand.New(rand.NewPCG(seed, 99))
	var flakyMu sync.Mutex
	sinks := []invalidation.Sink{
		keeper,
		invalidation.SinkFunc(func(n invalidation.Notice) {
			time.Sleep(20 * time.Microsecond)
			slow.Notify(n)
		}),
		invalidation.SinkFunc(func(n invalidation.Notice) {
			flaky.Notify(n) // received, then the sink breaks
			flakyMu.Lock()
			breaks := flakyRand.IntN(5) == 0
			flakyMu.Unlock()
			if breaks {
				panic("flaky sink")
			}
		}),
	}
	// A short queue, so that the slow and the flaky subscribers overflow
	// and get merged notices.
	p := &invalidation.Publisher{QueueLen: 2, OnPanic: func(*invalidation.PanicError) {}}
	defer func() {
		if err := p.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	// The keeper's queue never fills, so it sees every notice as published.
	if _, err := p.Subscribe(keeper, invalidation.WithQueueLen(1<<20)); err != nil {
		t.Fatal(err)
	}
	for _, s := range sinks[1:] {
		if _, err := p.Subscribe(s); err != nil {
			t.Fatal(err)
		}
	}

	var mu sync.Mutex
	written := map[string][]uint64{} // path: the invocations that wrote it
	var wg sync.WaitGroup
	for g := range goroutines {
		r := rand.New(rand.NewPCG(seed, uint64(g)))
		wg.Go(func() {
			for range perG {
				write := func(ctx context.Context) {
					path := filepath.Join(dir, fmt.Sprintf("f%03d", r.IntN(files)))
					if err := os.WriteFile(path, []byte{byte(r.IntN(256))}, 0o644); err != nil {
						t.Error(err)
						return
					}
					inv := invalidation.FromContext(ctx)
					inv.Touch(invalidation.ScopeContent|invalidation.ScopeTree, path)
					mu.Lock()
					written[path] = append(written[path], inv.ID())
					mu.Unlock()
				}
				kind := r.IntN(10)
				func() {
					defer func() {
						if v := recover(); v != nil && v != "tool panicked" {
							panic(v)
						}
					}()
					_ = p.Run(context.Background(), "Write", func(ctx context.Context) error {
						for range 1 + r.IntN(3) {
							write(ctx)
						}
						switch kind {
						case 0: // a nested invocation that writes too
							_ = p.Run(ctx, "Nested", func(ctx context.Context) error { write(ctx); return nil })
						case 1: // a git command: all git metadata may have changed
							invalidation.FromContext(ctx).MayChangeAll(invalidation.ScopeGit, invalidation.CauseTool)
						case 2:
							panic("tool panicked")
						}
						return nil
					})
				}()
			}
		})
	}
	wg.Wait()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	last := p.Stats().Published
	if last == 0 {
		t.Fatal("nothing published")
	}
	for name, r := range map[string]*recorder{"keeper": keeper, "slow": slow, "flaky": flaky} {
		ns := r.notices()
		checkContiguous(t, name, ns, 1, last)
		byInv := map[uint64][]invalidation.Notice{}
		for _, n := range ns {
			byInv[n.Invocation] = append(byInv[n.Invocation], n)
		}
		for path, invs := range written {
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
			if !covered(ns, invalidation.ScopeContent, path) {
				t.Fatalf("seed %d: %s: %s written but not covered by any of %d notices", seed, name, path, len(ns))
			}
			if name != "keeper" {
				continue
			}
			// The keeper was never merged: each invocation's own notice
			// covers what it wrote.
			for _, id := range invs {
				if !covered(byInv[id], invalidation.ScopeContent, path) {
					t.Fatalf("seed %d: invocation %d wrote %s; its notices %+v do not cover it", seed, id, path, byInv[id])
				}
			}
		}
	}
	for _, n := range keeper.notices() {
		if n.Merged != 1 || n.All != n.Scope.Has(invalidation.ScopeGit) || n.Confirmed == n.All {
			t.Fatalf("keeper got %+v; it should see every notice as published", n)
		}
	}
	t.Logf("seed %d: %d files, %d notices published, %d widenings, %d panics",
		seed, len(written), last, p.Stats().Widened, p.Stats().Panics)
}
