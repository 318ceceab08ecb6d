//go:build unix

package host_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/agenthost/agenthost/host"
)

// wantPath is the Path CheckIgnore must give for p (cwd ""): p joined to
// the canonical workspace root when relative, its directory part resolved
// with every link followed, and the last component as written (a final
// link is judged as itself), without a trailing slash.
func wantPath(t *testing.T, ws, p string) string {
	t.Helper()
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws, p)
	}
	p = filepath.Clean(p)
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return filepath.Join(dir, filepath.Base(p))
}

// CheckIgnore answers an absolute path that is already plain (under a
// root's canonical form, no "." or ".." component, no doubled '/') with
// the caller's own string as its Path, and builds every other Path: an
// absolute path under the root's other spelling (the workspace root given
// through a link), a trailing slash, a relative path, a path through a
// link. Every Path must be the canonical one, the same in every round
// (cold, then warm), and the plain absolute ones must be the input's
// bytes (the shortcut taken) once warm.
func TestCheckIgnorePathsAbsoluteAndAliased(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	for _, d := range []string{".git", "a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(real, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(real, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(real, ".gitignore"), []byte("*.log\nc/\n"), 0o644)
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(real, alias); err != nil {
		t.Fatal(err)
	}
	// As long as real: a check by length alone would take its
	// paths for plain.
	same := filepath.Join(base, "rea2")
	if err := os.Symlink(real, same); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "a", "b"), filepath.Join(real, "l")); err != nil {
		t.Fatal(err)
	}
	canon, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, given := range []string{real, alias, same} {
		t.Run(filepath.Base(given), func(t *testing.T) {
			var paths []string
			for _, rel := range []string{"a/b/x.log", "a/b/y.go", "a/b/", "a/b", "c/z", "c/", "l/x.log", "a/x.log", "top.log"} {
				paths = append(paths, rel, canon+"/"+rel, given+"/"+rel, canon+"/"+rel+"/", given+"/"+rel+"//")
			}
			h := newHost(t, host.Config{WorkspaceRoot: given})
			var rounds [][]host.IgnoreResult
			for round := range 3 {
				res, err := h.CheckIgnore(bg, "", paths, host.CheckIgnoreOptions{VerdictOnly: round == 2})
				if err != nil {
					t.Fatal(err)
				}
				rounds = append(rounds, res)
			}
			for round, res := range rounds {
				for i, p := range paths {
					r := res[i]
					if r.Err != nil {
						t.Fatalf("round %d, %q: %v", round, p, r.Err)
					}
					if want := wantPath(t, canon, p); r.Path != want {
						t.Errorf("round %d, %q: Path %q, want %q", round, p, r.Path, want)
					}
					want, err := h.IsPathIgnored(bg, "", p)
					if err != nil || r.Ignored != want {
						t.Errorf("round %d, %q: ignored %v, alone %v (%v)", round, p, r.Ignored, want, err)
					}
					// (A name that is no directory, written with a
					// trailing slash, is resolved: its Path is built.)
					if round > 0 && strings.HasPrefix(p, canon+"/") && !strings.HasPrefix(p, canon+"/l/") && !strings.HasSuffix(p, "/") && unsafe.StringData(r.Path) != unsafe.StringData(p) {
						t.Errorf("round %d, %q: a plain absolute path's Path was built anew", round, p)
					}
				}
			}
		})
	}
}

// A batch whose paths' strings fill many of the arena's buffers (1.5 MB
// of them), and one whose resolved paths are longer than written (through
// a link): every Path is its own, right, and still intact after the
// later batches.
func TestCheckIgnorePathsFillManyBuffers(t *testing.T) {
	root := t.TempDir()
	long := "some-directory-with-a-rather-long-name-to-fill-the-buffer-sooner"
	for d := range 10 {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%d", d), long), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644)
	if err := os.Symlink(filepath.Join(root, "d0", long), filepath.Join(root, "l")); err != nil {
		t.Fatal(err)
	}
	canon, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	var big, linked []string
	for i := 0; len(big)*(len(canon)+len(long)+40) < 3<<20/2; i++ {
		big = append(big, fmt.Sprintf("d%d/%s/file-%06d.%s", i%10, long, i, []string{"go", "log"}[i%2]))
	}
	for i := range 2000 {
		linked = append(linked, fmt.Sprintf("l/f%d.%s", i, []string{"go", "log"}[i%2]))
	}
	h := newHost(t, host.Config{WorkspaceRoot: root})
	type batch struct {
		paths []string
		res   []host.IgnoreResult
	}
	var done []batch
	for round := range 2 {
		for _, paths := range [][]string{big, linked} {
			res, err := h.CheckIgnore(bg, "", paths, host.CheckIgnoreOptions{VerdictOnly: round == 1})
			if err != nil {
				t.Fatal(err)
			}
			done = append(done, batch{paths, res})
		}
	}
	for k, b := range done {
		for i, p := range b.paths {
			r := b.res[i]
			want := filepath.Join(canon, p)
			if strings.HasPrefix(p, "l/") {
				want = filepath.Join(canon, "d0", long, p[2:])
			}
			if r.Err != nil || r.Path != want || r.Ignored != strings.HasSuffix(p, ".log") {
				t.Fatalf("batch %d, %q: Path %q ignored %v (%v), want %q", k, p, r.Path, r.Ignored, r.Err, want)
			}
		}
	}
}
