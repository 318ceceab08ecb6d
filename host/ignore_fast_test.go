//go:build linux

package host_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agenthost/agenthost/host"
)

// TestIsPathIgnoredFastPathSeesSwap: once warm, IsPathIgnored answers plain
// paths from the walk cache's inotify watches without resolving them. A
// directory on the way replaced by a link to outside must end that: the
// next call resolves through the jail and refuses the escape.
func TestIsPathIgnoredFastPathSeesSwap(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(out, "b"), 0o755)
	cmd := exec.Command("git", "init", "-q", ws)
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, b)
	}
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(out, "b", ".gitignore"), []byte("*.txt\n"), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: ws, Home: dir})

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
