//go:build linux

package host_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/gittest"
)

// TestIsPathIgnoredFastPathSeesSwap: once warm, IsPathIgnored answers plain
// paths from the walk cache's inotify watches without resolving them. A
// directory on the way replaced by a link to outside must end that: the
// next call resolves through the jail and refuses the escape.
func TestIsPathIgnoredFastPathSeesSwap(t *testing.T) {
	g := gittest.New(t)
	g.Setenv(t) // the Host reads os.Getenv
	dir := filepath.Dir(g.Home)
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(out, "b"), 0o755)
	g.Init(t, ws)
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(out, "b", ".gitignore"), []byte("*.txt\n"), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: ws, Home: g.Home})

	for range 3 { // the first call resolves and adds the watches
		if ig, err := h.IsPathIgnored(bg, "", "a/b/x.log"); err != nil || !ig {
			t.Fatalf("x.log: %v %v", ig, err)
		}
		if ig, err := h.IsPathIgnored(bg, "", "a/b/x.txt"); err != nil || ig {
			t.Fatalf("x.txt: %v %v", ig, err)
		}
	}
	if err := os.Rename(filepath.Join(ws, "a"), filepath.Join(ws, "a2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "a")); err != nil {
		t.Fatal(err)
	}
	if ig, err := h.IsPathIgnored(bg, "", "a/b/x.txt"); !errors.Is(err, host.ErrEscape) {
		t.Fatalf("after the swap: %v, %v; want ErrEscape (out/b/.gitignore must not be consulted)", ig, err)
	}
	// And a plain path that is still real keeps working.
	if ig, err := h.IsPathIgnored(bg, "", "a2/b/x.log"); err != nil || !ig {
		t.Fatalf("a2/b/x.log: %v %v", ig, err)
	}
}
