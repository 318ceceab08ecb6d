package walk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// batchRepo is a repository with nested directories, ignored and
// tracked-but-ignored files, dot-files and more entries in one directory
// than fit one getdents call.
func batchRepo(t *testing.T) *gitEnv {
	t.Helper()
	e := newGitEnv(t, false)
	e.write(".gitignore", "*.log\nbuild/\n")
	e.write("sub/.gitignore", "*.tmp\n")
	e.make("a.go", "x.log", "build/out.o", "build/keep.o", "sub/b.go", "sub/c.tmp", "sub/deep/d/e.go",
		".hidden/f", "sub/.g", "empty/")
	for i := range 1500 {
		e.write(fmt.Sprintf("many/file-with-a-longish-name-%04d.txt", i), "")
	}
	e.git(e.repo, "add", "-A")
	e.git(e.repo, "add", "-f", "build/keep.o")
	return e
}

// entryLine is an entry as a comparable line.
func entryLine(root string, en Entry) string {
	rel, _ := filepath.Rel(root, en.Path)
	return fmt.Sprintf("%s depth=%d dir=%v", filepath.ToSlash(rel), en.Depth, en.IsDir)
}

// TestWalkBatch: Options.Batch gets exactly the entries fn gets (paths,
// depths, kinds), one directory per call, each directory's batch after the
// directory itself was delivered; the walk agrees with git ls-files -co
// --exclude-standard through Batch too; an error from Batch stops the walk
// and is returned; a starting path that is a file comes to Batch alone.
func TestWalkBatch(t *testing.T) {
	t.Parallel()
	e := batchRepo(t)
	c := e.cache()
	defer c.Close()
	ctx := context.Background()
	for _, opts := range []Options{{}, {Hidden: true}, {Hidden: true, NoIndex: true}, {NoIgnore: true, Hidden: true}, {MaxDepth: 2}, {MaxEntries: 7, Hidden: true}} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			var mu sync.Mutex
			var byFn []string
			err := c.Walk(ctx, e.repo, opts, func(en Entry) error {
				mu.Lock()
				byFn = append(byFn, entryLine(e.repo, en))
				mu.Unlock()
				return nil
			})
			must(t, err)

			var byBatch []string
			delivered := map[string]bool{e.repo: true}
			calls := 0
			bo := opts
			bo.Batch = func(ents []Entry) error {
				mu.Lock()
				defer mu.Unlock()
				calls++
				parent := filepath.Dir(ents[0].Path)
				if !delivered[parent] {
					t.Errorf("batch for %s before the directory itself", parent)
				}
				for _, en := range ents {
					if filepath.Dir(en.Path) != parent {
						t.Errorf("one batch holds %s and %s", ents[0].Path, en.Path)
					}
					delivered[strings.Clone(en.Path)] = true
					byBatch = append(byBatch, entryLine(e.repo, en))
				}
				return nil
			}
			must(t, c.Walk(ctx, e.repo, bo, nil))
			if opts.MaxEntries > 0 {
				// Which entries make the cut is the sequential walk's
				// order, the same for both.
				if len(byBatch) != opts.MaxEntries {
					t.Errorf("Batch with MaxEntries %d got %d entries", opts.MaxEntries, len(byBatch))
				}
			}
			slices.Sort(byFn)
			slices.Sort(byBatch)
			if !slices.Equal(byFn, byBatch) {
				t.Fatalf("Batch and fn differ:\nfn:    %q\nBatch: %q", byFn, byBatch)
			}
			if opts.MaxEntries == 0 && calls < 3 {
				t.Errorf("%d Batch calls for a tree of several directories", calls)
			}
		})
	}

	// git's set, through Batch.
	want := strings.Fields(string(e.git(e.repo, "ls-files", "-co", "--exclude-standard")))
	if !slices.Contains(want, "build/keep.o") || slices.Contains(want, "build/out.o") {
		t.Fatalf("git ls-files: %q: the case tests nothing", want)
	}
	var got []string
	var mu sync.Mutex
	must(t, c.Walk(ctx, e.repo, Options{Hidden: true, Batch: func(ents []Entry) error {
		mu.Lock()
		defer mu.Unlock()
		for _, en := range ents {
			if !en.IsDir {
				rel, _ := filepath.Rel(e.repo, en.Path)
				got = append(got, strings.Clone(filepath.ToSlash(rel))) // the walk's memory once Batch returns
			}
		}
		return nil
	}}, nil))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Batch walk:\n%q\ngit ls-files -co --exclude-standard:\n%q", got, want)
	}

	// An error stops the walk and is Walk's answer.
	stop := errors.New("stop")
	calls := 0
	err := c.Walk(ctx, e.repo, Options{Batch: func([]Entry) error { mu.Lock(); calls++; mu.Unlock(); return stop }}, nil)
	if !errors.Is(err, stop) {
		t.Errorf("Walk with a failing Batch: %v, want %v", err, stop)
	}

	// A file as the starting path.
	file := filepath.Join(e.repo, "a.go")
	var one []Entry
	must(t, c.Walk(ctx, file, Options{Batch: func(ents []Entry) error { one = append(one, ents...); return nil }}, nil))
	if len(one) != 1 || one[0].Path != file || one[0].Depth != 0 {
		t.Errorf("Batch from a file: %+v", one)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
}
