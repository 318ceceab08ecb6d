package host_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host"
)

// TestRenameRootByIdentity: a directory that is, or holds, a nested root
// cannot be moved however its path is spelled ("ws//sub", "./sub/", a
// link on the way, ".." back into it): the check compares devices and
// inodes, not strings.
func TestRenameRootByIdentity(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	nested := filepath.Join(ws, "sub", "nested")
	os.MkdirAll(nested, 0o755)
	os.MkdirAll(filepath.Join(ws, "other"), 0o755)
	os.WriteFile(filepath.Join(nested, "f"), []byte("in the nested root"), 0o644)
	os.Symlink("sub", filepath.Join(ws, "ls"))
	h := newHost(t, host.Config{WorkspaceRoot: ws, ExtraRoots: []string{nested}})
	for i, src := range []string{"sub", ws + "//sub", "./sub/", "ls/nested", "sub//nested", "other/../sub", ws + "/sub/./nested/."} {
		dst := filepath.Join(ws, "moved"+string(rune('a'+i)))
		if _, _, err := h.Rename(bg, "", src, dst); err == nil {
			t.Fatalf("Rename(%q) moved a directory that is or holds the root %s", src, nested)
		}
		if _, err := os.Lstat(dst); err == nil {
			t.Fatalf("Rename(%q) left %s", src, dst)
		}
	}
	if r, err := h.ReadFile(bg, "", filepath.Join(nested, "f")); err != nil || r.Contents != "in the nested root" {
		t.Errorf("the nested root moved: %v", err)
	}
	// Its neighbours still move.
	if _, _, err := h.Rename(bg, "", "other", "other2"); err != nil {
		t.Errorf("an ordinary directory: %v", err)
	}
}

// TestResolveCanonical: what ResolveInJail returns is canonical, so a
// permission rule written for ws/f matches every spelling of it.
func TestResolveCanonical(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.WriteFile(filepath.Join(ws, "f"), nil, 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: ws})
	for _, p := range []string{ws + "//f", "/" + ws + "/f", ws + "/./f", "sub/../f", "sub//../f", "./f", ".//f"} {
		if got, err := h.ResolveInJail(bg, "", p); err != nil || got != ws+"/f" {
			t.Errorf("ResolveInJail(%q) = %q, %v; want %q", p, got, err, ws+"/f")
		}
		if st, err := h.Stat(bg, "", p); err != nil || st.Path != ws+"/f" {
			t.Errorf("Stat(%q).Path = %q, %v", p, st.Path, err)
		}
	}
	for _, p := range []string{"sub/", ws + "//sub//", "sub/."} {
		if got, err := h.ResolveInJail(bg, "", p); err != nil || got != ws+"/sub" {
			t.Errorf("ResolveInJail(%q) = %q, %v; want %q", p, got, err, ws+"/sub")
		}
	}
}

// TestCreateDirParentsDotDotAfterLink: with self -> the workspace root,
// "self/../ws2/target/newdir" is in the second root (the kernel's ".."
// of the root is its parent), not ws/ws2/target/newdir as a lexical
// reading makes it; "self/../out/..." is outside and creates nothing.
func TestCreateDirParentsDotDotAfterLink(t *testing.T) {
	dir := t.TempDir()
	ws, ws2, out := filepath.Join(dir, "ws"), filepath.Join(dir, "ws2"), filepath.Join(dir, "out")
	for _, d := range []string{ws, ws2, out} {
		os.MkdirAll(d, 0o755)
	}
	os.Symlink(ws, filepath.Join(ws, "self"))
	h := newHost(t, host.Config{WorkspaceRoot: ws, ExtraRoots: []string{ws2}})
	if err := h.CreateDir(bg, "", "self/../ws2/target/newdir", true, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(ws2, "target", "newdir")); err != nil || !fi.IsDir() {
		t.Errorf("not created in the second root: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(ws, "ws2")); err == nil {
		t.Errorf("created ws/ws2: a lexical reading of self/..")
	}
	if err := h.CreateDir(bg, "", "self/../out/target/newdir", true, false); !errors.Is(err, host.ErrEscape) {
		t.Errorf("self/../out: %v, want ErrEscape", err)
	}
	for _, p := range []string{filepath.Join(out, "target"), filepath.Join(ws, "out")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("created %s", p)
		}
	}
}

// TestHostRemoveRoot: after RemoveRoot, every operation refuses the old
// root as outside; the workspace root cannot be removed; removing twice is
// fine.
func TestHostRemoveRoot(t *testing.T) {
	dir := t.TempDir()
	ws, extra := filepath.Join(dir, "ws"), filepath.Join(dir, "extra")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(extra, 0o755)
	os.WriteFile(filepath.Join(extra, "g"), []byte("g"), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: ws})
	if _, err := h.AddRoot(extra); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ReadFile(bg, "", filepath.Join(extra, "g")); err != nil {
		t.Fatal(err)
	}
	if err := h.RemoveRoot(extra); err != nil {
		t.Fatal(err)
	}
	if err := h.RemoveRoot(extra); err != nil {
		t.Errorf("again: %v", err)
	}
	if err := h.RemoveRoot(ws); !errors.Is(err, host.ErrInvalidRoot) {
		t.Errorf("the workspace root: %v, want ErrInvalidRoot", err)
	}
	g := filepath.Join(extra, "g")
	if _, err := h.ReadFile(bg, "", g); !errors.Is(err, host.ErrEscape) {
		t.Errorf("ReadFile: %v", err)
	}
	if _, err := h.WriteFile(bg, "", filepath.Join(extra, "new"), []byte("x")); !errors.Is(err, host.ErrEscape) {
		t.Errorf("WriteFile: %v", err)
	}
	if _, err := h.Stat(bg, "", g); !errors.Is(err, host.ErrEscape) {
		t.Errorf("Stat: %v", err)
	}
	if err := h.CreateDir(bg, "", filepath.Join(extra, "d"), true, true); !errors.Is(err, host.ErrEscape) {
		t.Errorf("CreateDir: %v", err)
	}
	if _, err := h.Exec(bg, host.ExecRequest{Command: "true", Cwd: extra}); !errors.Is(err, host.ErrEscape) {
		t.Errorf("Exec: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(extra, "new")); err == nil {
		t.Errorf("a write landed in the removed root")
	}
	if got := h.Roots(); len(got) != 1 || got[0] != ws {
		t.Errorf("roots = %v", got)
	}
}

// TestNearestDir: the deepest existing directory and the missing name.
func TestNearestDir(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755)
	h := newHost(t, host.Config{WorkspaceRoot: ws})
	d, m, err := h.NearestDir(bg, "", "a//b/nope/x")
	if err != nil || d != filepath.Join(ws, "a", "b") || m != "nope" {
		t.Errorf("NearestDir = %q, %q, %v", d, m, err)
	}
	if _, _, err := h.NearestDir(bg, "", "../out/x"); !errors.Is(err, host.ErrEscape) {
		t.Errorf("outside: %v", err)
	}
	if _, _, err := h.NearestDir(bg, "", strings.Repeat("x", 5000)); !errors.Is(err, host.ErrInvalidPath) {
		t.Errorf("too long: %v", err)
	}
}
