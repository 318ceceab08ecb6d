package walk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pathOrder is the sorted walk's order: paths compared name by name.
func pathOrder(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// sortedRepo is batchRepo with a tree deep and wide enough that a limit
// falls inside a directory at every level: names that sort differently
// name by name and byte by byte ("a-c" and "a/b"), a directory of more
// entries than one read gives, ignored and tracked-but-ignored files.
func sortedRepo(t *testing.T) *gitEnv {
	e := batchRepo(t)
	e.make("a/b", "a-c", "a/z/y", "a/z/x/w", "b/", "zz/1", "zz/2/3/4/5")
	return e
}

// fullOrder is every entry of an unlimited walk with opts, relative to
// root, in the sorted walk's order (the parallel walk delivers them in
// no order; sorting them gives what a limit must keep the head of).
func fullOrder(t *testing.T, c *Cache, root string, opts Options) []string {
	t.Helper()
	files, dirs, err := walkRel(t, c, root, opts)
	must(t, err)
	all := append(files, dirs...)
	slices.SortFunc(all, pathOrder)
	return all
}

// limitedWalk is a walk with opts through fn (batch false) or Batch, its
// entries relative to root in the order delivered, and whether OnCut was
// called.
func limitedWalk(t *testing.T, c *Cache, root string, opts Options, batch bool) (got []string, cut bool, err error) {
	t.Helper()
	opts.OnCut = func() { cut = true }
	add := func(en Entry) {
		rel, _ := filepath.Rel(root, en.Path)
		got = append(got, strings.Clone(filepath.ToSlash(rel))) // Batch lends the path
	}
	if batch {
		opts.Batch = func(ents []Entry) error {
			for _, en := range ents {
				add(en)
			}
			return nil
		}
		err = c.Walk(context.Background(), root, opts, nil)
	} else {
		err = c.Walk(context.Background(), root, opts, func(en Entry) error { add(en); return nil })
	}
	return got, cut, err
}

// TestMaxEntriesExact: MaxEntries N gives exactly the first N entries of
// the uncut walk in the sorted order, through fn and through Batch alike,
// whatever directory N falls in (the old walk dropped the directory in
// which the limit fell: 1, 5 and 10 gave nothing through Batch); OnCut
// says so exactly when an entry was left out.
func TestMaxEntriesExact(t *testing.T) {
	t.Parallel()
	e := sortedRepo(t)
	c := e.cache()
	defer c.Close()
	for _, opts := range []Options{{}, {Hidden: true}, {NoIgnore: true, Hidden: true}, {MaxDepth: 2, Hidden: true}} {
		want := fullOrder(t, c, e.repo, opts)
		if len(want) < 1500 {
			t.Fatalf("%d entries: the tree tests nothing", len(want))
		}
		for _, n := range []int{1, 2, 3, 5, 10, 11, 100, 1000, 1499, len(want) - 1, len(want), len(want) + 1} {
			for _, batch := range []bool{false, true} {
				o := opts
				o.MaxEntries = n
				start := time.Now()
				got, cut, err := limitedWalk(t, c, e.repo, o, batch)
				must(t, err)
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("MaxEntries %d: %v", n, d)
				}
				w := want[:min(n, len(want))]
				if !slices.Equal(got, w) {
					t.Fatalf("%+v batch=%v: got %d entries %q..., want %d %q...", o, batch, len(got), head(got), len(w), head(w))
				}
				if cut != (n < len(want)) {
					t.Errorf("%+v batch=%v: OnCut called %v with %d of %d entries", o, batch, cut, n, len(want))
				}
			}
		}
	}
}

func head(s []string) []string { return s[:min(len(s), 8)] }

// TestAfterPages: pages of MaxEntries, each resumed After the last entry of
// the one before, list the whole walk in order, once; After also works
// without a limit, from a resume point that no longer exists, and refuses
// what is not a relative path of names.
func TestAfterPages(t *testing.T) {
	t.Parallel()
	e := sortedRepo(t)
	c := e.cache()
	defer c.Close()
	opts := Options{Hidden: true}
	want := fullOrder(t, c, e.repo, opts)
	for _, page := range []int{1, 7, 333, 5000} {
		var all []string
		after := ""
		for pages := 0; ; pages++ {
			if pages > len(want)+1 {
				t.Fatalf("page %d: no end", page)
			}
			o := opts
			o.MaxEntries, o.After = page, after
			got, cut, err := limitedWalk(t, c, e.repo, o, pages%2 == 1)
			must(t, err)
			all = append(all, got...)
			if !cut {
				break
			}
			after = got[len(got)-1]
		}
		if !slices.Equal(all, want) {
			t.Fatalf("pages of %d: %d entries, want %d", page, len(all), len(want))
		}
	}
	// Without a limit, and after a path that is not there.
	for _, after := range []string{"a/z", "a/z/x", "a/b", "a/bb/c/d", "many/file-with-a-longish-name-0700.txt", "m", "zzz"} {
		got, _, err := limitedWalk(t, c, e.repo, Options{Hidden: true, After: after}, false)
		must(t, err)
		i, _ := slices.BinarySearchFunc(want, after, pathOrder)
		w := want[i:]
		if len(w) > 0 && w[0] == after {
			w = w[1:]
		}
		if !slices.Equal(got, w) {
			t.Errorf("After %q: %q..., want %q...", after, head(got), head(w))
		}
	}
	for _, bad := range []string{"/a", "a//b", "./a", "a/..", "a/"} {
		err := c.Walk(context.Background(), e.repo, Options{After: bad}, func(Entry) error { return nil })
		if !errors.Is(err, ErrInvalidAfter) {
			t.Errorf("After %q: %v, want ErrInvalidAfter", bad, err)
		}
	}
}

// TestAfterChurn: paging through a directory larger than a page while
// files are created and removed lists every file present throughout
// exactly once, and no name twice.
func TestAfterChurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const stable = 5000
	for i := range stable {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%05d", i)), nil, 0o644))
	}
	c := &Cache{Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	var stop atomic.Bool
	wg.Add(1)
	go func() { // churn: names before, between and after the stable ones
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			for _, p := range []string{"a", "s0", "s02", "t", "z"} {
				n := filepath.Join(dir, fmt.Sprintf("%s%07d", p, i))
				os.WriteFile(n, nil, 0o644)
				if i%2 == 1 {
					os.Remove(filepath.Join(dir, fmt.Sprintf("%s%07d", p, i-1)))
				}
			}
		}
	}()
	seen := map[string]int{}
	after := ""
	pages := 0
	for ; ; pages++ {
		var got []string
		cut := false
		err := c.Walk(ctx, dir, Options{MaxEntries: 300, After: after, OnCut: func() { cut = true }}, func(en Entry) error {
			got = append(got, filepath.Base(en.Path))
			return nil
		})
		must(t, err)
		if !slices.IsSorted(got) || len(got) > 0 && after != "" && got[0] <= after {
			t.Fatalf("page %d after %q not sorted past it: %q", pages, after, head(got))
		}
		for _, n := range got {
			seen[n]++
		}
		if !cut {
			break
		}
		after = got[len(got)-1]
	}
	stop.Store(true)
	wg.Wait()
	for n, k := range seen {
		if k != 1 {
			t.Errorf("%s listed %d times", n, k)
		}
	}
	for i := range stable {
		if n := fmt.Sprintf("s%05d", i); seen[n] != 1 {
			t.Fatalf("%s listed %d times", n, seen[n])
		}
	}
	if pages < stable/300 {
		t.Fatalf("%d pages", pages)
	}
}

// TestHugeDirectoryStreams: a walk of a directory of 60,000 files holds
// a part of it at a time: through Batch (paths lent, nothing kept per
// entry) it allocates a small fraction of the directory's size, in runs
// of at most a read's worth. The old walk read the whole directory (some
// 2 MB of records and 1.5 MB of entries here) and built one 60,000-entry
// batch of its paths (2.4 MB of entries, 3 MB of paths) before the first
// entry went out: 10 MB and more.
func TestHugeDirectoryStreams(t *testing.T) {
	dir := t.TempDir()
	const files = 60000
	makeFiles(t, dir, files)
	c := &Cache{Getenv: func(string) string { return "" }}
	for _, opts := range []Options{{}, {NoIgnore: true}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n, calls, most := 0, 0, 0
		var mu sync.Mutex
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		opts.Batch = func(ents []Entry) error {
			mu.Lock()
			n += len(ents)
			calls++
			most = max(most, len(ents))
			mu.Unlock()
			return nil
		}
		must(t, c.Walk(ctx, dir, opts, nil))
		cancel()
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		if n != files {
			t.Fatalf("%d entries, want %d", n, files)
		}
		if most > 2000 || calls < files/2000 {
			t.Errorf("%d calls, the largest of %d entries: the directory was not delivered in parts", calls, most)
		}
		if alloc > 2<<20 {
			t.Errorf("walk of %d files allocated %d bytes, want < 2 MiB", files, alloc)
		}
		t.Logf("%+v: %d bytes allocated, %d calls", opts, alloc, calls)
	}
}

// makeFiles creates n empty files in dir, a few goroutines at a time.
func makeFiles(t *testing.T, dir string, n int) {
	t.Helper()
	const workers = 4
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += workers {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%07d", i)), nil, 0o644); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
