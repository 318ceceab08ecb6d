package jail

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEnterRootsLeavesDotDotToTheWalk: a ".." after the point where a
// path from outside enters a root is applied by the jail after the links,
// as the kernel applies it, not lexically: outside/x -> ws/d, and
// ws/d/l -> ws/a/b, so outside/x/l/../f is ws/a/f (not ws/d/f).
func TestEnterRootsLeavesDotDotToTheWalk(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	for _, d := range []string{filepath.Join(ws, "d"), filepath.Join(ws, "a", "b"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(filepath.Join(ws, "a", "b"), filepath.Join(ws, "d", "l"))
	os.Symlink(filepath.Join(ws, "d"), filepath.Join(out, "x"))
	os.WriteFile(filepath.Join(ws, "a", "f"), []byte("kernel's"), 0o644)
	os.WriteFile(filepath.Join(ws, "d", "f"), []byte("lexical"), 0o644)
	j, err := New(ws, nil, Jailed, "")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	given := out + "/x/l/../f" // not filepath.Join, which would clean it
	p, ok := j.EnterRoots(given, true)
	if !ok {
		t.Fatal("did not enter the root")
	}
	got, err := j.Resolve("", p)
	if want := filepath.Join(ws, "a", "f"); err != nil || got != want {
		t.Errorf("EnterRoots gave %q, which resolves to %q, %v; want %q (what the kernel opens)", p, got, err, want)
	}
	if b, _ := os.ReadFile(given); string(b) != "kernel's" {
		t.Fatalf("the kernel's own answer: %q", b)
	}
}
