package walk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEditedIgnoreFile: an edit between two calls takes effect, both with
// the default re-check interval (after it has passed) and with re-checking
// on every call (immediately), including a same-size rewrite within one
// time-stamp tick.
func TestEditedIgnoreFile(t *testing.T) {
	t.Parallel()
	for _, recheck := range []time.Duration{0, -1} {
		t.Run(fmt.Sprint("recheck=", recheck), func(t *testing.T) {
			e := newGitEnv(t, true)
			e.make("a.log", "b.txt", "sub/c.tmp")
			c := e.cache()
			c.Recheck = recheck
			ctx := context.Background()
			ask := func(p string) bool {
				t.Helper()
				got, err := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, p))
				must(t, err)
				return got
			}
			wait := func() {
				if recheck == 0 {
					time.Sleep(2 * RecheckInterval)
				}
			}
			if ask("a.log") {
				t.Fatal("a.log ignored before any rule")
			}
			e.write(".gitignore", "*.log\n")
			wait()
			if !ask("a.log") {
				t.Fatal("new .gitignore not seen")
			}
			e.write(".gitignore", "*.txt\n") // same size, same tick
			wait()
			if ask("a.log") || !ask("b.txt") {
				t.Fatal("same-size rewrite not seen")
			}
			e.write("sub/.gitignore", "*.tmp\n")
			e.write("$XDG/git/ignore", "*.md\n")
			wait()
			if !ask("sub/c.tmp") || !ask("x.md") {
				t.Fatal("nested or global file not seen")
			}
			must(t, os.Remove(e.abs(".gitignore")))
			wait()
			if ask("b.txt") {
				t.Fatal("removed .gitignore still applied")
			}
			// The walk reads the files it meets afresh.
			files, _, err := walkRel(t, c, e.repo, Options{})
			must(t, err)
			if slices.Contains(files, "sub/c.tmp") || !slices.Contains(files, "b.txt") {
				t.Fatalf("walk after edits: %q", files)
			}
		})
	}
}

// TestUnreadableDirectory: a directory that cannot be opened is reported
// and the walk goes on with the rest.
func TestUnreadableDirectory(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, false)
	e.make("a/x.txt", "b/y.txt", "b/deep/z.txt", "c.txt")
	c := e.cache()
	bad := filepath.Join(e.repo, "b")
	c.openHook = func(p string) error {
		if p == bad {
			return &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
		}
		return nil
	}
	files, dirs, err := walkRel(t, c, e.repo, Options{})
	var pe *PartialError
	if !errors.As(err, &pe) || len(pe.Errs) != 1 || !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("err = %v, want a PartialError with one permission error", err)
	}
	if want := []string{"a/x.txt", "c.txt"}; !slices.Equal(files, want) {
		t.Errorf("files = %q, want %q", files, want)
	}
	if want := []string{"a", "b"}; !slices.Equal(dirs, want) {
		t.Errorf("dirs = %q, want %q", dirs, want)
	}

	// The real thing, where permissions apply (not as root).
	if os.Geteuid() != 0 {
		c.openHook = nil
		must(t, os.Chmod(bad, 0))
		defer os.Chmod(bad, 0o755)
		_, _, err := walkRel(t, c, e.repo, Options{})
		if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("chmod 0: err = %v, want permission", err)
		}
	}
}

// TestGeneratedTree: thousands of files with nested ignore files, checked
// against git like the table cases.
func TestGeneratedTree(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, true)
	r := rand.New(rand.NewPCG(3, 9))
	rules := []string{"*.log\n!keep.log\n", "build/\n", "/gen/\n!gen/keep/\n", "**/tmp/**\n", "*.o\n[a-c]*.txt\n", "docs/**/*.md\n!README.md\n", "*\n!*/\n!*.go\n", "!*.log\n"}
	names := []string{"a", "b", "c", "keep", "main", "x", "README"}
	exts := []string{".go", ".log", ".txt", ".md", ".o", ""}
	subs := []string{"build", "gen", "tmp", "docs", "src", "lib", "keep"}
	n := 0
	var mk func(dir string, depth int)
	mk = func(dir string, depth int) {
		for i := 0; i < 6+r.IntN(10); i++ {
			e.write(filepath.Join(dir, fmt.Sprintf("%s%d%s", names[r.IntN(len(names))], i, exts[r.IntN(len(exts))])), "")
			n++
		}
		if r.IntN(3) == 0 {
			e.write(filepath.Join(dir, ".gitignore"), rules[r.IntN(len(rules))])
		}
		if depth < 4 {
			for i := 0; i < 1+r.IntN(3); i++ {
				mk(filepath.Join(dir, subs[r.IntN(len(subs))]), depth+1)
			}
		}
	}
	for n < 3000 {
		mk(fmt.Sprintf("p%d", n), 0)
	}
	e.write("$XDG/git/ignore", "*.md\n")
	e.write(".git/info/exclude", "!README*.md\n")
	checkAgainstGit(t, e, e.cache(), nil)
}

// TestProjectCheckout: this repository's own tracked and untracked files,
// copied (without .git) into a fresh repository, against git.
func TestProjectCheckout(t *testing.T) {
	t.Parallel()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout")
	}
	src := strings.TrimSpace(string(top))
	e := newGitEnv(t, false)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a file removed by someone else meanwhile
		}
		rel, _ := filepath.Rel(src, p)
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		dst := filepath.Join(e.repo, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			return os.WriteFile(dst, b, 0o644)
		}
		return nil
	})
	must(t, err)
	checkAgainstGit(t, e, e.cache(), nil)
}

// TestMaxEntriesDeterministic: with a limit, the same entries every time:
// the first of the whole walk in path order (depth first, each directory
// in name order).
func TestMaxEntriesDeterministic(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, false)
	for i := 0; i < 50; i++ {
		e.make(fmt.Sprintf("d%02d/f%02d", i%7, i), fmt.Sprintf("g%02d", i))
	}
	c := e.cache()
	want := fullOrder(t, c, e.repo, Options{})[:20]
	for run := 0; run < 5; run++ {
		got, _, err := limitedWalk(t, c, e.repo, Options{MaxEntries: 20}, false)
		must(t, err)
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: %q, want %q", run, got, want)
		}
	}
}

// TestWalkStops: fn's error and a cancelled context stop the walk and are
// returned; no goroutine is left behind (TestMain checks).
func TestWalkStops(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, false)
	for i := 0; i < 200; i++ {
		e.make(fmt.Sprintf("d%d/e%d/f", i%20, i))
	}
	c := e.cache()
	stop := errors.New("stop")
	n := 0
	err := c.Walk(context.Background(), e.repo, Options{MaxEntries: 1000}, func(Entry) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 10 {
		t.Fatalf("err = %v after %d entries", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = c.Walk(ctx, e.repo, Options{}, func(Entry) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if err := c.Walk(context.Background(), "relative", Options{}, nil); err == nil {
		t.Fatal("relative root accepted")
	}
	if _, err := c.IsIgnored(context.Background(), "", "relative"); err == nil {
		t.Fatal("relative path accepted")
	}
	// A file as root: itself, at depth 0.
	var got []Entry
	must(t, c.Walk(context.Background(), filepath.Join(e.repo, "d0/e0/f"), Options{}, func(en Entry) error { got = append(got, en); return nil }))
	if len(got) != 1 || got[0].Depth != 0 || got[0].IsDir {
		t.Fatalf("file root: %+v", got)
	}
}

// TestNotInRepository: outside every repository nothing is ignored.
func TestNotInRepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644))
	c := &Cache{Getenv: func(string) string { return "" }}
	got, err := c.IsIgnored(context.Background(), dir, filepath.Join(dir, "a.txt"))
	if err != nil || got {
		t.Fatalf("IsIgnored = %v, %v; want false, nil", got, err)
	}
	files, _, err := walkRel(t, c, dir, Options{})
	if err != nil || !slices.Equal(files, []string{"a.txt"}) {
		t.Fatalf("walk = %q, %v", files, err)
	}
}
