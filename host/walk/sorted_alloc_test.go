package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestSortedWalkOfSmallDirectoriesAllocatesLittle (issue 25): a sorted
// walk (what MCP directory_tree and walk with a limit take) sized each
// directory's heap of candidates for 256 names, about 8 KiB cleared for a
// directory of three files: directory_tree of a GOROOT copy allocated
// 31 MB per call, most of it that. 3,000 directories of three files each
// are walked sorted; every entry must come, in path order, within 60 s,
// and the walk must allocate under 2 KiB per directory (measured: about
// 1 KiB; before: about 11.6 KiB).
func TestSortedWalkOfSmallDirectoriesAllocatesLittle(t *testing.T) {
	root := t.TempDir()
	const dirs = 3000
	for i := range dirs {
		d := filepath.Join(root, fmt.Sprintf("d%02d", i/100), fmt.Sprintf("e%02d", i%100))
		must(t, os.MkdirAll(d, 0o755))
		for _, f := range []string{"a.go", "b.go", "c.txt"} {
			must(t, os.WriteFile(filepath.Join(d, f), nil, 0o644))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var c Cache
	n, last := 0, ""
	walk := func() error {
		n, last = 0, ""
		return c.Walk(ctx, root, Options{MaxEntries: 1 << 20, Sorted: true}, func(e Entry) error {
			if e.Path <= last {
				return fmt.Errorf("%s after %s: not in path order", e.Path, last)
			}
			n, last = n+1, e.Path
			return nil
		})
	}
	must(t, walk()) // warm: the pools the walk reuses
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := walk()
	runtime.ReadMemStats(&after)
	must(t, err)
	if want := dirs*4 + dirs/100; n != want {
		t.Fatalf("%d entries, want %d", n, want)
	}
	per := (after.TotalAlloc - before.TotalAlloc) / dirs
	t.Logf("%d directories: %d bytes allocated per directory", dirs, per)
	if per >= 2048 && !raceEnabled { // the race detector allocates on its own account
		t.Errorf("%d bytes allocated per directory, want < 2048", per)
	}
}
