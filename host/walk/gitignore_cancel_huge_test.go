package walk

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestIgnoreHugeFileCancel cancels questions about (and walks of) a repository whose
// .gitignore is 100 MiB (8 million rules, just under git's limit for a pattern file; 20 MiB under -race) at
// points spread over its reading and compiling: each returns the
// context's error within 100 ms of the cancel. Before, a cancel during
// the one allocation of the rule list (64 bytes a rule, 0.5 GiB here)
// and the collector's assist it brings waited for it to end: 250 ms and
// more. The cancelled compiles keep nothing: the next question is
// answered as git answers it.
func TestIgnoreHugeFileCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("a 100 MiB .gitignore: compiling it takes seconds and half a GiB")
	}
	n := 8_260_000 // 7 × 1,180,000: just under 100 MiB of lines
	if raceEnabled {
		n = 1_652_000 // a fifth: the detector's shadow of 0.5 GiB of rules is several GiB
	}
	e := newGitEnv(t, false)
	data := bigIgnore(n)
	if !raceEnabled && (len(data) > maxIgnoreFileSize || len(data) < maxIgnoreFileSize*9/10) {
		t.Fatalf(".gitignore of %d bytes, want just under %d", len(data), maxIgnoreFileSize)
	}
	e.write(".gitignore", string(data))
	data = nil
	probe := filepath.Join(e.repo, fmt.Sprintf("name%d", n-7))
	c := e.cache()
	defer c.Close()
	bound := 100 * time.Millisecond
	if raceEnabled {
		bound = 300 * time.Millisecond
	}
	var worst time.Duration
	for _, walk := range []bool{false, true} {
		for _, delay := range []time.Duration{5, 20, 50, 100, 200, 400, 700, 1000, 1500} {
			runtime.GC()
			ctx, cancel := context.WithCancel(context.Background())
			var cancelAt time.Time
			timer := time.AfterFunc(delay*time.Millisecond, func() {
				cancelAt = time.Now()
				cancel()
			})
			var err error
			if walk {
				err = c.Walk(ctx, e.repo, Options{}, func(Entry) error { return nil })
			} else {
				_, err = c.Check(ctx, e.repo, []string{probe}, CheckOptions{NoIndex: true})
			}
			returned := time.Now()
			timer.Stop()
			cancel()
			if err == nil {
				break // the compile ended before the cancel: later delays are no different
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("walk %v, cancelled after %d ms: %v, want context.Canceled", walk, delay, err)
			}
			d := returned.Sub(cancelAt)
			worst = max(worst, d)
			if d > bound {
				t.Errorf("walk %v, cancelled after %d ms: returned %v after the cancel (bound %v)", walk, delay, d, bound)
			}
		}
	}
	t.Logf("worst return after a cancel: %v", worst)
	time.Sleep(200 * time.Millisecond) // the abandoned compiles end at their next look at the context
	runtime.GC()
	checkBigAgainstGit(t, e, c, bigProbes(n))
}
