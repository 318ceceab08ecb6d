package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthost/agenthost/mcpserver"
)

// TestListingNamesCannotLie: a file named "x\nSPOOFED.txt" is one entry of
// list_directory and walk: one quoted line of text, and its exact name in
// the structured content.
func TestListingNamesCannotLie(t *testing.T) {
	s := start(t, startOpts{})
	for _, f := range []string{"x\nSPOOFED.txt", "plain.txt", "sub/tab\there"} {
		mustWrite(t, filepath.Join(s.ws, f), "x")
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"list_directory", map[string]any{"path": "."}, []string{"plain.txt", "sub", "x\nSPOOFED.txt"}},
		{"walk", map[string]any{}, []string{"plain.txt", "sub", "sub/tab\there", "x\nSPOOFED.txt"}},
	} {
		res, err := s.callRaw(c.tool, c.args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", c.tool, err, resultText(res))
		}
		var out mcpserver.ListOut
		structured(t, res, &out)
		var got []string
		for _, e := range out.Entries {
			got = append(got, e.Path)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) || out.Root != s.ws {
			t.Errorf("%s structured: %q (root %s), want %q", c.tool, got, out.Root, c.want)
		}
		txt := resultText(res)
		if !strings.Contains(txt, `"x\nSPOOFED.txt"`+"\n") || strings.Contains(txt, "\nSPOOFED.txt") {
			t.Errorf("%s text: %q", c.tool, txt)
		}
		if lines := strings.Count(txt, "\n"); lines != len(c.want) {
			t.Errorf("%s: %d lines for %d entries: %q", c.tool, lines, len(c.want), txt)
		}
	}
}

// TestListingCursorPages: list_directory and walk list a directory larger
// than a page in pages, each call given the nextCursor of the one before;
// while files are created and removed all the time, every file present
// throughout is listed exactly once, no name twice, each page in order
// and no larger than asked. The old list_directory stopped at 5,000
// entries and walk had no cursor: most of a large directory could not be
// listed at all.
func TestListingCursorPages(t *testing.T) {
	s := start(t, startOpts{})
	dir := filepath.Join(s.ws, "big")
	const stable, page = 3000, 700
	for i := range stable {
		mustWrite(t, filepath.Join(dir, fmt.Sprintf("s%05d", i)), "")
	}
	for _, tool := range []string{"list_directory", "walk"} {
		t.Run(tool, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // names before, among and after the stable ones
				defer wg.Done()
				for i := 0; ctx.Err() == nil; i++ {
					for _, p := range []string{"a", "s0", "s02", "t"} {
						os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s%07d", p, tool, i)), nil, 0o644)
						if i > 0 {
							os.Remove(filepath.Join(dir, fmt.Sprintf("%s-%s%07d", p, tool, i-1)))
						}
					}
				}
			}()
			seen := map[string]int{}
			cursor := ""
			pages := 0
			for ; ; pages++ {
				if ctx.Err() != nil {
					t.Fatalf("page %d: %v", pages, ctx.Err())
				}
				args := map[string]any{"path": "big", "maxEntries": page}
				if cursor != "" {
					args["cursor"] = cursor
				}
				res, err := s.callRaw(tool, args)
				if err != nil || res.IsError {
					t.Fatalf("%s page %d: %v %s", tool, pages, err, resultText(res))
				}
				var out mcpserver.ListOut
				structured(t, res, &out)
				var names []string
				for _, e := range out.Entries {
					names = append(names, e.Path)
					seen[e.Path]++
				}
				if len(names) > page || !slices.IsSorted(names) {
					t.Fatalf("page %d: %d entries, sorted %v", pages, len(names), slices.IsSorted(names))
				}
				if out.Truncated != (out.NextCursor != "") {
					t.Fatalf("page %d: truncated %v, nextCursor %q", pages, out.Truncated, out.NextCursor)
				}
				if !out.Truncated {
					break
				}
				cursor = out.NextCursor
			}
			cancel()
			wg.Wait()
			for n, k := range seen {
				if k != 1 {
					t.Errorf("%s listed %d times", n, k)
				}
			}
			for i := range stable {
				if n := fmt.Sprintf("s%05d", i); seen[n] != 1 {
					t.Fatalf("%s listed %d times in %d pages", n, seen[n], pages)
				}
			}
			if pages < stable/page {
				t.Errorf("%d pages", pages)
			}
		})
	}
	// A cursor of another directory, another tool or none at all is refused.
	res, err := s.callRaw("list_directory", map[string]any{"path": "big", "maxEntries": 10})
	if err != nil || res.IsError {
		t.Fatal(err, resultText(res))
	}
	var out mcpserver.ListOut
	structured(t, res, &out)
	mustWrite(t, filepath.Join(s.ws, "other", "f"), "")
	for _, c := range []struct{ tool, path, cursor string }{
		{"list_directory", "other", out.NextCursor},
		{"walk", "big", out.NextCursor},
		{"list_directory", "big", "c1.bm90IGEgY3Vyc29y"},
		{"list_directory", "big", "garbage"},
	} {
		res, err := s.callRaw(c.tool, map[string]any{"path": c.path, "cursor": c.cursor})
		if err == nil && !res.IsError {
			t.Errorf("%s %s with cursor %q: accepted: %s", c.tool, c.path, c.cursor, resultText(res))
		} else if txt := resultText(res); err == nil && !strings.Contains(txt, "cursor") {
			t.Errorf("%s with a wrong cursor: %q", c.tool, txt)
		}
	}
}
