package jail

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// bothWalks runs f twice: with openat2 where the kernel has it, and with
// the portable descriptor walk alone (the macOS and BSD path).
func bothWalks(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, off := range []bool{false, true} {
		name := "openat2"
		if off {
			name = "walk-only"
		}
		t.Run(name, func(t *testing.T) {
			if !off && runtime.GOOS != "linux" {
				t.Skip("no openat2 here")
			}
			was := noOpenat2.Load()
			noOpenat2.Store(was || off)
			defer noOpenat2.Store(was)
			f(t)
		})
	}
}

// tree builds entries ("dir/", "file", "link => target", $T the temp dir)
// in a fresh temp dir and returns it, symbolic links in its name resolved.
func tree(t *testing.T, entries ...string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		e = strings.ReplaceAll(e, "$T", dir)
		if name, target, ok := strings.Cut(e, " => "); ok {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		p := filepath.Join(dir, e)
		if strings.HasSuffix(e, "/") {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(e), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newJail(t *testing.T, ws string, extra ...string) *Jail {
	t.Helper()
	j, err := New(ws, extra, Jailed, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// TestCanonicalSpellings: every path the jail returns is canonical (no
// "//", no ".", no trailing "/"), whichever path (fast or walk) resolved it.
func TestCanonicalSpellings(t *testing.T) {
	bothWalks(t, func(t *testing.T) {
		dir := tree(t, "ws/a/f", "ws/sub/", "ws/la => a")
		ws := filepath.Join(dir, "ws")
		j := newJail(t, ws)
		for _, c := range []struct{ path, want string }{
			{ws + "//a/f", ws + "/a/f"},
			{ws + "/a//f", ws + "/a/f"},
			{"a//f", ws + "/a/f"},
			{"./a/./f", ws + "/a/f"},
			{"a/f/", ""}, // a file with a trailing slash: ENOTDIR
			{"sub/", ws + "/sub"},
			{"sub/.", ws + "/sub"},
			{"sub//", ws + "/sub"},
			{ws + "//sub//", ws + "/sub"},
			{"la//f", ws + "/a/f"},
			{"//" + ws[1:] + "/a/f", ws + "/a/f"},
			{"a/new", ws + "/a/new"},
			{"a//new", ws + "/a/new"},
		} {
			got, err := j.Resolve("", c.path)
			if c.want == "" {
				if !errors.Is(err, enotdir) {
					t.Errorf("Resolve(%q) = %q, %v; want ENOTDIR", c.path, got, err)
				}
				continue
			}
			if err != nil || got != c.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", c.path, got, err, c.want)
			}
			if err := j.Do("", c.path, false, func(l *Location) error {
				if l.Path != c.want {
					t.Errorf("Do(%q).Path = %q; want %q", c.path, l.Path, c.want)
				}
				return nil
			}); err != nil {
				t.Errorf("Do(%q): %v", c.path, err)
			}
			if strings.HasSuffix(c.want, "/new") {
				continue
			}
			f, canon, err := j.OpenFile("", c.path, os.O_RDONLY, 0)
			if err != nil || canon != c.want {
				t.Errorf("OpenFile(%q) = %q, %v; want %q", c.path, canon, err, c.want)
			}
			if f != nil {
				f.Close()
			}
		}
	})
}

// TestDoNeverSeesFinalLink: with follow, the operation is given the
// link's target, never the link, on the fast path and on the walk.
func TestDoNeverSeesFinalLink(t *testing.T) {
	bothWalks(t, func(t *testing.T) {
		dir := tree(t, "ws/a/f", "ws/lf => a/f", "ws/a/lf2 => f", "ws/la => a", "ws/a/chain => ../lf")
		j := newJail(t, filepath.Join(dir, "ws"))
		for _, p := range []string{"lf", "a/lf2", "la/lf2", "a/chain", "la"} {
			calls := 0
			err := j.Do("", p, true, func(l *Location) error {
				calls++
				fi, err := l.Dir.Lstat(l.Name)
				if err != nil {
					return err
				}
				if fi.Mode()&fs.ModeSymlink != 0 {
					t.Errorf("Do(%q, follow) was given the link %s", p, l.Path)
				}
				return nil
			})
			if err != nil || calls != 1 {
				t.Errorf("Do(%q): %v after %d calls", p, err, calls)
			}
		}
	})
}

// TestNearest: the deepest existing directory and the first missing name,
// found by the walk (links followed, ".." as the kernel means it).
func TestNearest(t *testing.T) {
	bothWalks(t, func(t *testing.T) {
		dir := tree(t, "ws/a/b/f", "ws/la => a/b", "ws/lo => ../out", "out/x/")
		ws := filepath.Join(dir, "ws")
		j := newJail(t, ws)
		for _, c := range []struct{ path, dir, missing string }{
			{"a/b/nope/deeper/x", ws + "/a/b", "nope"},
			{"a/b/f/x", ws + "/a/b", "f"},
			{"la/../zz/y", ws + "/a", "zz"},
			{"a/b/f", ws + "/a/b", ""},
			{"a", ws + "/a", ""},
			{"nope", ws, "nope"},
		} {
			d, m, err := j.Nearest("", c.path)
			if err != nil || d != c.dir || m != c.missing {
				t.Errorf("Nearest(%q) = %q, %q, %v; want %q, %q", c.path, d, m, err, c.dir, c.missing)
			}
		}
		for _, p := range []string{"lo/x/nope", "../out/x/nope", "../nope"} {
			if d, m, err := j.Nearest("", p); !errors.Is(err, ErrEscape) {
				t.Errorf("Nearest(%q) = %q, %q, %v; want ErrEscape", p, d, m, err)
			}
		}
	})
}

// TestMkdirAllDotDotAfterLink: "self/../x" with self a link to the root
// means the root's parent, in MkdirAll as in the kernel; with a second
// root there, the directories are made in it, and nothing is made where a
// lexical reading would put them.
func TestMkdirAllDotDotAfterLink(t *testing.T) {
	bothWalks(t, func(t *testing.T) {
		dir := tree(t, "ws/", "ws2/", "out/", "ws/self => $T/ws", "ws/a/", "ws/la => a")
		ws, ws2 := filepath.Join(dir, "ws"), filepath.Join(dir, "ws2")
		j := newJail(t, ws, ws2)
		created, err := j.MkdirAll("", "self/../ws2/target/newdir", 0o755, false)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{ws2 + "/target", ws2 + "/target/newdir"}; strings.Join(created, ",") != strings.Join(want, ",") {
			t.Errorf("created %v, want %v", created, want)
		}
		if fi, err := os.Stat(filepath.Join(ws2, "target", "newdir")); err != nil || !fi.IsDir() {
			t.Errorf("not made in the second root: %v", err)
		}
		if _, err := os.Lstat(filepath.Join(ws, "ws2")); err == nil {
			t.Errorf("made lexically inside the workspace")
		}
		if _, err := j.MkdirAll("", "self/../out/target/newdir", 0o755, false); !errors.Is(err, ErrEscape) {
			t.Errorf("through self/../out: %v, want ErrEscape", err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "out", "target")); err == nil {
			t.Errorf("made outside")
		}
		if _, err := os.Lstat(filepath.Join(ws, "out")); err == nil {
			t.Errorf("made lexically inside the workspace")
		}
		// ".." after a link to a directory: the link's parent is a, not ws.
		if _, err := j.MkdirAll("", "la/../made/deep", 0o755, false); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(ws, "made", "deep")); err != nil {
			t.Errorf("la/.. is the workspace (la -> a): %v", err)
		}
		// existOK: a directory, and a link to one, are fine; a file is not.
		os.WriteFile(filepath.Join(ws, "file"), nil, 0o644)
		if c, err := j.MkdirAll("", "la", 0o755, true); err != nil || len(c) != 0 {
			t.Errorf("existing link to a dir: %v, %v", c, err)
		}
		if _, err := j.MkdirAll("", "file", 0o755, true); !errors.Is(err, fs.ErrExist) {
			t.Errorf("existing file: %v, want fs.ErrExist", err)
		}
		if _, err := j.MkdirAll("", "file/x", 0o755, true); err == nil {
			t.Errorf("under a file: no error")
		}
	})
}

// TestRemoveRoot: a removed root is out of reach for operations that start
// afterwards; an operation running meanwhile keeps a valid descriptor; the
// descriptor is closed after it; the workspace root stays; it is
// idempotent and finds a root by any spelling or link that opens it.
func TestRemoveRoot(t *testing.T) {
	dir := tree(t, "ws/", "ws2/g", "ws/to2 => $T/ws2")
	ws, ws2 := filepath.Join(dir, "ws"), filepath.Join(dir, "ws2")
	j := newJail(t, ws, ws2)
	if err := j.RemoveRoot(ws); !errors.Is(err, ErrInvalidRoot) {
		t.Errorf("removing the workspace root: %v, want ErrInvalidRoot", err)
	}
	r := j.roots.Load().byCanon[ws2]

	inOp, release := make(chan struct{}), make(chan struct{})
	opErr := make(chan error)
	go func() {
		opErr <- j.Do("", ws2+"/g", true, func(l *Location) error {
			close(inOp)
			<-release
			_, err := l.Dir.Lstat(l.Name) // the removed root's descriptor, still valid
			return err
		})
	}()
	<-inOp
	if err := j.RemoveRoot(ws2 + "/"); err != nil { // a spelling of it
		t.Fatal(err)
	}
	if _, err := j.Resolve("", ws2+"/g"); !errors.Is(err, ErrEscape) {
		t.Errorf("after RemoveRoot: %v, want ErrEscape", err)
	}
	if _, err := j.Resolve("", "to2/g"); !errors.Is(err, ErrEscape) {
		t.Errorf("through a link after RemoveRoot: %v, want ErrEscape", err)
	}
	if r.sets.Load() == 0 {
		t.Errorf("the descriptor was released while an operation used it")
	}
	close(release)
	if err := <-opErr; err != nil {
		t.Errorf("the running operation: %v", err)
	}
	if n := r.sets.Load(); n != 0 {
		t.Errorf("the removed root is still held by %d sets", n)
	}
	if err := j.RemoveRoot(ws2); err != nil {
		t.Errorf("again: %v", err)
	}
	if got := j.Roots(); len(got) != 1 || got[0] != ws {
		t.Errorf("roots = %v", got)
	}

	// By a link that opens it, and back again.
	if _, err := j.AddRoot(ws2); err != nil {
		t.Fatal(err)
	}
	if err := j.RemoveRoot(filepath.Join(ws, "to2")); err != nil {
		t.Fatal(err)
	}
	if got := j.Roots(); len(got) != 1 {
		t.Errorf("removing by a link left %v", got)
	}
	if err := j.RemoveRoot(filepath.Join(dir, "nothere")); err != nil {
		t.Errorf("a missing path: %v", err)
	}
	j.Close()
	if err := j.RemoveRoot(ws2); !errors.Is(err, os.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TestHeldRoot compares by device and inode: a spelling or a link cannot
// hide a nested root from it.
func TestHeldRoot(t *testing.T) {
	bothWalks(t, func(t *testing.T) {
		dir := tree(t, "ws/sub/nested/", "ws/other/", "ws/ls => sub")
		ws := filepath.Join(dir, "ws")
		nested := filepath.Join(ws, "sub", "nested")
		j := newJail(t, ws, nested)
		for _, c := range []struct {
			path string
			held string
		}{
			{"sub", nested}, {ws + "//sub", nested}, {"./sub/", nested}, {"sub//nested", nested},
			{"ls/nested", nested}, {"other", ""}, {"sub/nested/..", nested},
		} {
			err := j.Do("", c.path, false, func(l *Location) error {
				got, err := l.HeldRoot()
				if err != nil || got != c.held {
					t.Errorf("HeldRoot(%q) = %q, %v; want %q", c.path, got, err, c.held)
				}
				return nil
			})
			if err != nil {
				t.Errorf("Do(%q): %v", c.path, err)
			}
		}
	})
}

// TestAddRootCanonical: a root is opened by the walk and listed by the
// names it went through, links followed and ".." applied after them.
func TestAddRootCanonical(t *testing.T) {
	bothWalks(t, func(t *testing.T) {
		dir := tree(t, "ws/", "a/b/c/", "a/f", "lb => a/b", "lc => $T/a/b/c")
		j := newJail(t, filepath.Join(dir, "ws"))
		for _, c := range []struct{ given, want string }{
			{dir + "/lb", dir + "/a/b"},
			{dir + "/lb/..", dir + "/a"}, // ".." after the link: a, not dir
			{dir + "//a/./b/c/", dir + "/a/b/c"},
			{dir + "/lc/../..", dir + "/a"},
		} {
			got, err := j.AddRoot(c.given)
			if err != nil || got != c.want {
				t.Errorf("AddRoot(%q) = %q, %v; want %q", c.given, got, err, c.want)
			}
		}
		if _, err := j.AddRoot(dir + "/a/f"); !errors.Is(err, ErrInvalidRoot) {
			t.Errorf("a file: %v", err)
		}
		if _, err := j.AddRoot(dir + "/nothere"); !errors.Is(err, ErrInvalidRoot) {
			t.Errorf("missing: %v", err)
		}
		// The alias: the link's spelling reaches the root it opened.
		if got, err := j.Resolve("", dir+"/lb/c"); err != nil || got != dir+"/a/b/c" {
			t.Errorf("through the given form: %q, %v", got, err)
		}
	})
}

// TestLinkHints: a hint only picks which system call comes first. A link
// replaced by a directory, or retargeted outside, is judged by what the
// kernel says now, and the hint is dropped when it is wrong. The set stays
// bounded.
func TestLinkHints(t *testing.T) {
	bothWalks(t, func(t *testing.T) {
		dir := tree(t, "ws/a/f", "ws/l => a", "out/f")
		ws := filepath.Join(dir, "ws")
		j := newJail(t, ws)
		read := func(p string) (string, error) {
			f, canon, err := j.OpenFile("", p, os.O_RDONLY, 0)
			if err != nil {
				return "", err
			}
			f.Close()
			return canon, nil
		}
		if got, err := read("l/f"); err != nil || got != ws+"/a/f" {
			t.Fatalf("through the link: %q, %v", got, err)
		}
		if !j.hints.has(ws + "/l") {
			t.Fatalf("no hint recorded for %s/l", ws)
		}
		// Retargeted outside: refused.
		os.Remove(filepath.Join(ws, "l"))
		os.Symlink(filepath.Join(dir, "out"), filepath.Join(ws, "l"))
		if got, err := read("l/f"); !errors.Is(err, ErrEscape) {
			t.Errorf("retargeted outside: %q, %v; want ErrEscape", got, err)
		}
		// Replaced by a directory: read as the directory, hint dropped.
		os.Remove(filepath.Join(ws, "l"))
		os.MkdirAll(filepath.Join(ws, "l"), 0o755)
		os.WriteFile(filepath.Join(ws, "l", "f"), []byte("dir"), 0o644)
		if got, err := read("l/f"); err != nil || got != ws+"/l/f" {
			t.Errorf("now a directory: %q, %v", got, err)
		}
		if j.hints.has(ws + "/l") {
			t.Errorf("a wrong hint was kept")
		}
		for i := range 2 * maxLinkHints {
			j.hints.add(ws + "/x" + string(rune('a'+i%26)) + strings.Repeat("y", i))
		}
		if n := len(*j.hints.m.Load()); n > maxLinkHints {
			t.Errorf("%d hints kept, bound %d", n, maxLinkHints)
		}
	})
}

// TestDoNoLinks: a link anywhere on the way, the final component
// included, is refused with ErrSymlink; plain paths and ".." pass.
func TestDoNoLinks(t *testing.T) {
	bothWalks(t, func(t *testing.T) {
		dir := tree(t, "ws/a/b/f", "ws/la => a", "ws/a/lf => b/f", "ws/a/b/dang => nothere")
		ws := filepath.Join(dir, "ws")
		j := newJail(t, ws)
		for _, p := range []string{"a/b/f", "a/b/../b/f", ws + "//a/b/f", "a/b/new"} {
			if err := j.DoNoLinks("", p, func(l *Location) error { return nil }); err != nil {
				t.Errorf("DoNoLinks(%q): %v", p, err)
			}
		}
		for _, p := range []string{"la/b/f", "a/lf", "la", "a/b/dang", "la/b/../b/f", "a/b/dang/"} {
			for range 2 { // the second time a link hint may be in play
				err := j.DoNoLinks("", p, func(l *Location) error {
					t.Errorf("DoNoLinks(%q) reached the operation with %s", p, l.Path)
					return nil
				})
				if !errors.Is(err, ErrSymlink) {
					t.Errorf("DoNoLinks(%q): %v, want ErrSymlink", p, err)
				}
			}
		}
	})
}

// TestNoDescriptorLeft: roots added (by a link, so with an alias) and
// removed, operations of every kind, then Close: every descriptor the Jail
// opened is closed again.
func TestNoDescriptorLeft(t *testing.T) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	before := len(ents)
	bothWalks(t, func(t *testing.T) {
		dir := tree(t, "ws/a/f", "ws/la => a", "r/g", "lr => r", "ws/deep/d/d/d/d/d/d/d/d/d/d/d/d/f")
		j, err := New(filepath.Join(dir, "ws"), nil, Jailed, "")
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			for _, given := range []string{dir + "/lr", dir + "/r", dir + "/lr/"} {
				canon, err := j.AddRoot(given)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range []string{"la/f", "a/f", canon + "/g", "deep/d/d/d/d/d/d/d/d/d/d/d/d/../../../../../../../../../../d/f", "nope/x"} {
					if f, _, err := j.OpenFile("", p, os.O_RDONLY, 0); err == nil {
						f.Close()
					}
					j.Resolve("", p)
					j.Nearest("", p)
				}
				j.MkdirAll("", "a/m/n", 0o755, true)
				if err := j.RemoveRoot(given); err != nil {
					t.Fatal(err)
				}
			}
		}
		j.Close()
	})
	ents, _ = os.ReadDir("/proc/self/fd")
	if after := len(ents); after != before {
		t.Errorf("%d descriptors open before, %d after", before, after)
	}
}
