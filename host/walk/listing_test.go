//go:build linux

package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// listingFiles is the size of the directory the listing tests page
// through: more than three sortedPart, and names long enough (40 bytes)
// that their reading is made of several runs (listingRunBytes).
const listingFiles = 60000

// listingName is the i-th name of the big directory.
func listingName(i int) string { return fmt.Sprintf(listingFormat, i) }

// listingFormat makes names of 40 bytes sharing a long prefix, as
// generated names do.
const listingFormat = "a-long-prefix-shared-by-every-name-%07d"

// bigDir makes d in e's repository with listingFiles empty files, a tenth
// of them ending in .tmp, which its .gitignore ignores, and a few dot-files.
func bigDir(t *testing.T, e *gitEnv) string {
	t.Helper()
	e.write(".gitignore", "*.tmp\n")
	dir := e.abs("d")
	must(t, os.MkdirAll(dir, 0o755))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < listingFiles; i += 4 {
				n := listingName(i)
				if i%10 == 3 {
					n += ".tmp"
				}
				if err := syscall.Mknod(filepath.Join(dir, n), syscall.S_IFREG|0o644, 0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	e.make("d/.dot1", "d/.dot2")
	return dir
}

// gitListing is what git lists of dir (untracked files the rules leave
// in), relative to dir, in byte order: what paging dir must give.
func gitListing(t *testing.T, e *gitEnv, dir string) []string {
	t.Helper()
	out := strings.TrimSuffix(string(e.git(dir, "-c", "core.quotePath=false", "ls-files", "-o", "--exclude-standard", "-z")), "\x00")
	list := strings.Split(out, "\x00")
	slices.Sort(list)
	return list
}

// pageAll pages through dir with c, page entries at a time, calling
// between after each page; it returns the entries and how many of dir's
// entries each page read.
func pageAll(t *testing.T, c *Cache, dir string, page int, between func(n int, last string)) (got []string, reads []int64) {
	t.Helper()
	after := ""
	for n := 0; ; n++ {
		before := c.listings.read.Load()
		cut := false
		var names []string
		err := c.Walk(context.Background(), dir, Options{Hidden: true, MaxDepth: 1, MaxEntries: page, After: after, OnCut: func() { cut = true }},
			func(en Entry) error {
				names = append(names, filepath.Base(en.Path))
				return nil
			})
		must(t, err)
		reads = append(reads, c.listings.read.Load()-before)
		got = append(got, names...)
		if !cut {
			return got, reads
		}
		after = names[len(names)-1]
		if between != nil {
			between(n, after)
		}
	}
}

// TestListingPages: paging a directory of 60,000 entries 5,000 at a time
// gives git's listing, each entry once and in order; from the third page
// on, a page reads one part of the directory (its sorted listing is kept
// by the Cache) where the old walk read all 60,000 entries for each page,
// and the listing holds less than the names. Two pagers at once share it.
func TestListingPages(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, false)
	dir := bigDir(t, e)
	want := gitListing(t, e, dir)
	c := e.cache()
	c.listings.noSettle = true // the directory was just made
	defer c.Close()
	var wg sync.WaitGroup
	for p := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			got, reads := pageAll(t, c, dir, 5000, nil)
			took := time.Since(start)
			if d := diff(want, got); d != "" {
				t.Errorf("pager %d: paging gave other entries than git ls-files -o: %s", p, d)
			}
			// The first page reads the directory (a kept listing serves it
			// only when it resumes); one of the next two makes the listing.
			full := 0
			for i, r := range reads {
				if r > 2*dirBufSize/20 {
					full++
					if i >= 3 {
						t.Errorf("pager %d: page %d read %d entries of the directory, want one part (its listing kept)", p, i+1, r)
					}
				}
			}
			t.Logf("pager %d: %d pages in %v, entries read per page %v", p, len(reads), took, reads)
			if took > 30*time.Second {
				t.Errorf("pager %d: %d pages took %v", p, len(reads), took)
			}
		}()
	}
	wg.Wait()
	n, held := c.listings.held()
	t.Logf("listings kept: %d, %d bytes for %d names", n, held, listingFiles)
	if n != 1 || held > listingFiles*16 {
		t.Errorf("listings kept: %d holding %d bytes, want 1 of less than %d (16 bytes a name of 40)", n, held, listingFiles*16)
	}
}

// TestListingChangesBetweenPages: entries created and removed between
// pages. Every entry present throughout is listed exactly once, in order;
// one removed before its page is not listed; one created after the cursor
// is (the kept listing is dropped when the directory's stamp changes).
// With the settle delay in force (a directory changed in the last
// listingSettle is not kept), the same holds.
func TestListingChangesBetweenPages(t *testing.T) {
	t.Parallel()
	for _, noSettle := range []bool{true, false} {
		t.Run(fmt.Sprintf("noSettle=%v", noSettle), func(t *testing.T) {
			t.Parallel()
			e := newGitEnv(t, false)
			dir := bigDir(t, e)
			c := e.cache()
			c.listings.noSettle = noSettle
			defer c.Close()
			removed := map[string]bool{}
			created := map[string]bool{}
			behind := map[string]bool{}
			got, _ := pageAll(t, c, dir, 5000, func(n int, last string) {
				// Ahead of the cursor: one removed, one created; behind
				// it, one created (it sorts before the cursor: not listed,
				// as the order is by name).
				var at int
				if _, err := fmt.Sscanf(last, listingFormat, &at); err != nil {
					t.Fatalf("cursor %q: %v", last, err)
				}
				i := at + 1234
				if i%10 == 3 {
					i++
				}
				if i >= listingFiles {
					return
				}
				gone := listingName(i)
				must(t, os.Remove(filepath.Join(dir, gone)))
				removed[gone] = true
				add := listingName(i) + "-new"
				must(t, os.WriteFile(filepath.Join(dir, add), nil, 0o644))
				created[add] = true
				old := "a-0000000-new"
				if n > 0 {
					old = fmt.Sprintf("a-%07d-new", n)
				}
				must(t, os.WriteFile(filepath.Join(dir, old), nil, 0o644))
				behind[old] = true
			})
			seen := map[string]bool{}
			for i, g := range got {
				if seen[g] {
					t.Errorf("%s listed twice", g)
				}
				seen[g] = true
				if i > 0 && got[i-1] >= g {
					t.Errorf("%s listed after %s", g, got[i-1])
				}
				if removed[g] {
					t.Errorf("%s listed after it was removed", g)
				}
				if behind[g] {
					t.Errorf("%s listed though created behind the cursor", g)
				}
			}
			for a := range created {
				if !seen[a] {
					t.Errorf("%s, created ahead of the cursor, not listed", a)
				}
			}
			// Every entry present throughout: git's listing now, less
			// what was created.
			for _, w := range gitListing(t, e, dir) {
				if !created[w] && !behind[w] && !seen[w] {
					t.Errorf("%s not listed", w)
				}
			}
			if len(removed) < 5 {
				t.Errorf("only %d changes made", len(removed))
			}
		})
	}
}

// TestListingTooBig: a listing that would pass the Cache's bound is not
// kept; paging still gives git's listing, the attempt is made once
// (later pages read the directory once each, not twice), and the Cache
// holds nothing.
func TestListingTooBig(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, false)
	dir := bigDir(t, e)
	want := gitListing(t, e, dir)
	c := e.cache()
	c.listings.noSettle = true
	c.listings.budget = 64 << 10
	defer c.Close()
	got, reads := pageAll(t, c, dir, 5000, nil)
	if d := diff(want, got); d != "" {
		t.Errorf("paging gave other entries than git ls-files -o: %s", d)
	}
	all := int64(listingFiles + 2)
	for i, r := range reads {
		if i >= 2 && r > all+dirBufSize/20 {
			t.Errorf("page %d read %d entries, want the directory once (%d): the listing was tried again", i+1, r, all)
		}
	}
	if n, held := c.listings.held(); n != 0 || held != 0 {
		t.Errorf("listings kept: %d holding %d bytes, want none", n, held)
	}
}

// TestListingOneWalk: a sorted walk with no limit needs the directory
// once per sortedPart entries; it reads it twice (the first part, then
// its listing) where the old walk read it four times, and gives git's
// listing.
func TestListingOneWalk(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, false)
	dir := bigDir(t, e)
	want := gitListing(t, e, dir)
	c := e.cache()
	defer c.Close()
	var got []string
	must(t, c.Walk(context.Background(), dir, Options{Hidden: true, Sorted: true}, func(en Entry) error {
		got = append(got, filepath.Base(en.Path))
		return nil
	}))
	if d := diff(want, got); d != "" {
		t.Errorf("the sorted walk gave other entries than git ls-files -o: %s", d)
	}
	if r := c.listings.read.Load(); r > 2*int64(listingFiles+2) {
		t.Errorf("the walk read %d entries, want the directory (%d) twice at most", r, listingFiles+2)
	}
}

// TestListingCountedInCacheBound: a kept listing counts in the Cache's
// bound (issue 23: every cache in the walk cache's memory bound). While
// it is kept, the rest of the Cache may hold only what it leaves, and
// the rules, states and files of a walk made then stay within that (the
// Cache flushes them instead of going past it); once the listing is
// dropped, the whole bound is theirs again.
func TestListingCountedInCacheBound(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, false)
	dir := bigDir(t, e)
	c := e.cache()
	c.listings.noSettle = true // the directory was just made
	defer c.Close()
	pageAll(t, c, dir, 5000, nil)
	n, held := c.listings.held()
	if n != 1 || held == 0 {
		t.Fatalf("no listing kept after paging: %d, %d bytes", n, held)
	}
	// A bound that the listing leaves little of: the walk's own state
	// (rules, states, files) must stay within what is left.
	c.mu.Lock()
	c.maxBytes = held + 4096
	c.mu.Unlock()
	if got := c.limit(); got != 4096 {
		t.Fatalf("with a listing of %d bytes kept, the rest may hold %d, want 4096", held, got)
	}
	for i := range 50 {
		e.write(fmt.Sprintf("sub%02d/.gitignore", i), strings.Repeat("rule-of-some-length-*\n", 40))
	}
	flushes := c.flushes
	must(t, c.Walk(context.Background(), e.repo, Options{Hidden: true}, func(Entry) error { return nil }))
	c.mu.Lock()
	used, flushed := c.bytes, c.flushes > flushes
	c.mu.Unlock()
	if used > 4096+c.bigRules || !flushed {
		t.Errorf("the Cache holds %d bytes beside a listing of %d (bound %d), flushed: %v", used, held, held+4096, flushed)
	}
	// The listing dropped (its directory changed): the bound is whole.
	must(t, os.WriteFile(filepath.Join(dir, "new"), nil, 0o644))
	pageAll(t, c, dir, 5000, nil)
	if _, h := c.listings.held(); h == 0 && c.limit() != held+4096 {
		t.Errorf("no listing kept, yet the rest may hold %d of %d", c.limit(), held+4096)
	}
}
