package walk

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The package's tests walk small trees, which a walk would take on one
// goroutine from start to end (see seqEntries): they fan out after 64
// entries instead, so that every walk test exercises both the one-goroutine
// start and the fanned-out walk.
func init() { fanOutEntries = 64 }

// setFanOut sets the fan-out knobs for one test and restores them after.
// Only for tests that do not call t.Parallel: parallel tests resume after
// every sequential top-level test has ended, so none walks meanwhile.
// A read is never taken for slow here (a loaded machine can make one
// take a millisecond, which fans the walk out, rightly, but not on cue).
func setFanOut(t *testing.T, entries int, after time.Duration, cold bool) {
	t.Helper()
	oldEntries, oldTime, oldCold, oldSlow := fanOutEntries, fanOutTime, startCold, slowRead
	fanOutEntries, fanOutTime, startCold, slowRead = entries, after, cold, time.Hour
	t.Cleanup(func() { fanOutEntries, fanOutTime, startCold, slowRead = oldEntries, oldTime, oldCold, oldSlow })
}

// TestWalkFanOut: a walk that never fans out, one that fans out at once
// and one that fans out midway list the same entries, with raw and with
// blocking-aware system calls; the one that never fans out delivers one
// directory at a time, in depth-first order (each batch's directory was
// delivered before, no two batches at once), and the one that fans out at
// once delivers from several goroutines at once (a Batch that sleeps sees
// another in flight); one whose time runs out fans out then, and so does
// one whose raw reads are slow. It fails if fan-out never happens, or
// happens before its threshold.
func TestWalkFanOut(t *testing.T) {
	e := batchRepo(t)
	for i := range 40 {
		e.write(fmt.Sprintf("wide/d%02d/f.go", i), "")
		e.write(fmt.Sprintf("wide/d%02d/sub/g.go", i), "")
	}
	e.git(e.repo, "add", "-A")
	c := e.cache()
	defer c.Close()
	ctx := context.Background()

	walk := func(t *testing.T, sleep time.Duration) ([]string, int32) {
		var mu sync.Mutex
		var lines []string
		var inFlight, peak atomic.Int32
		delivered := map[string]bool{e.repo: true}
		err := c.Walk(ctx, e.repo, Options{Hidden: true, Batch: func(ents []Entry) error {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(sleep)
			mu.Lock()
			defer mu.Unlock()
			for _, en := range ents {
				if parent := en.Path[:strings.LastIndexByte(en.Path, '/')]; !delivered[parent] {
					t.Errorf("%s before its directory", en.Path)
				}
				delivered[strings.Clone(en.Path)] = true
				lines = append(lines, entryLine(e.repo, en))
			}
			return nil
		}}, nil)
		must(t, err)
		slices.Sort(lines)
		return lines, peak.Load()
	}

	var want []string
	for _, cold := range []bool{false, true} {
		t.Run(fmt.Sprintf("cold=%v", cold), func(t *testing.T) {
			setFanOut(t, 1<<30, time.Hour, cold)
			seq, peak := walk(t, 200*time.Microsecond)
			if peak != 1 {
				t.Errorf("a walk below its fan-out threshold had %d batches in flight at once", peak)
			}
			if want == nil {
				want = seq
				if len(want) < 1500 {
					t.Fatalf("only %d entries", len(want))
				}
			} else if !slices.Equal(seq, want) {
				t.Errorf("one-goroutine walk with cold=%v differs", cold)
			}

			setFanOut(t, 0, time.Hour, cold)
			par, peak := walk(t, 2*time.Millisecond)
			if peak < 2 {
				t.Errorf("a walk that fans out at once never had two batches in flight")
			}
			if !slices.Equal(par, want) {
				t.Errorf("fanned-out walk differs from the one-goroutine walk:\n%s", lineDiff(want, par))
			}

			setFanOut(t, 100, time.Hour, cold)
			if mid, _ := walk(t, 0); !slices.Equal(mid, want) {
				t.Errorf("walk fanning out midway differs:\n%s", lineDiff(want, mid))
			}

			setFanOut(t, 1<<30, 5*time.Millisecond, cold)
			timed, peak := walk(t, 2*time.Millisecond)
			if peak < 2 {
				t.Errorf("a walk past its fan-out time never had two batches in flight")
			}
			if !slices.Equal(timed, want) {
				t.Errorf("walk fanning out on time differs:\n%s", lineDiff(want, timed))
			}

			// Every read slow: a raw call that took long turns the walk's
			// calls blocking-aware and fans it out (with cold, no call is
			// raw and timed, and the walk stays on one goroutine).
			setFanOut(t, 1<<30, time.Hour, cold)
			slowRead = 0
			slowed, peak := walk(t, 2*time.Millisecond)
			if !cold && peak < 2 {
				t.Errorf("a walk whose reads are slow never had two batches in flight")
			}
			if cold && peak != 1 {
				t.Errorf("a walk with blocking-aware calls took a read for slow")
			}
			if !slices.Equal(slowed, want) {
				t.Errorf("walk after a slow read differs:\n%s", lineDiff(want, slowed))
			}
		})
	}
}

// lineDiff is the lines only one of a and b (both sorted) holds, a few.
func lineDiff(a, b []string) string {
	var out []string
	for _, l := range a {
		if _, ok := slices.BinarySearch(b, l); !ok {
			out = append(out, "- "+l)
		}
	}
	for _, l := range b {
		if _, ok := slices.BinarySearch(a, l); !ok {
			out = append(out, "+ "+l)
		}
	}
	if len(out) > 10 {
		out = append(out[:10], "...")
	}
	return strings.Join(out, "\n")
}
