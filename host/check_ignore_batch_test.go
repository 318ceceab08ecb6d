//go:build unix

package host_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/gittest"
)

// TestCheckIgnoreSharedParentsAgree: CheckIgnore resolves each distinct
// parent directory once per batch and appends the names; every answer
// (error class, resolved path, verdict) must be the one IsPathIgnored
// gives for the path alone, including parents that are files, links
// inside and out of the roots, missing directories, "..", "~" and bad
// names, with paths that share those parents in one batch.
func TestCheckIgnoreSharedParentsAgree(t *testing.T) {
	g := gittest.New(t)
	g.Setenv(t)
	dir := filepath.Dir(g.Home)
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	for _, d := range []string{"a/b", "c", "out-in/x"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.MkdirAll(filepath.Join(out, "b"), 0o755)
	g.Init(t, ws)
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("*.log\nc/\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "a", "b", ".gitignore"), []byte("*.txt\n!keep.txt\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "file"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(out, "b", ".gitignore"), []byte("*.md\n"), 0o644)
	os.Symlink(out, filepath.Join(ws, "esc"))                          // a link out of the root
	os.Symlink(filepath.Join(ws, "a"), filepath.Join(ws, "in"))        // a link inside
	os.Symlink(filepath.Join(out, "b"), filepath.Join(ws, "a", "lnk")) // a final link, judged as itself
	paths := []string{
		"a/b/x.txt", "a/b/keep.txt", "a/b/y.log", "a/b/", "a/b/z", "a/b/x.txt/", "a/lnk", "a/lnk/q.md",
		"in/b/x.txt", "in/b/y.go", "esc/b/x.md", "esc/b/y.txt", "file/x.log", "file/y", "missing/x.log",
		"missing/deep/y.txt", "c/z", "c/", "a/../a/b/x.txt", "a/b/../b/x.txt", "a/b/.", "a/b/..", "a//b//x.txt",
		"x.log", "/" + strings.TrimPrefix(ws, "/") + "/a/b/x.txt", out + "/b/x.md", "~/x.log", "a/b/" + strings.Repeat("n", 300),
		"a/b/nul\x00.txt", "", "a/b/x.txt",
	}
	h := newHost(t, host.Config{WorkspaceRoot: ws, Home: g.Home})
	for _, cwd := range []string{"", ws, filepath.Join(ws, "a")} {
		res, err := h.CheckIgnore(bg, cwd, paths, host.CheckIgnoreOptions{})
		if err != nil {
			t.Fatalf("cwd %q: %v", cwd, err)
		}
		for i, p := range paths {
			alone := newHost(t, host.Config{WorkspaceRoot: ws, Home: g.Home})
			want, werr := alone.IsPathIgnored(bg, cwd, p)
			got := res[i]
			for _, kind := range []error{host.ErrEscape, host.ErrInvalidPath, os.ErrNotExist} {
				if errors.Is(got.Err, kind) != errors.Is(werr, kind) {
					t.Errorf("cwd %q, %q: batch error %v, alone %v", cwd, p, got.Err, werr)
				}
			}
			if (got.Err == nil) != (werr == nil) {
				t.Errorf("cwd %q, %q: batch error %v, alone %v", cwd, p, got.Err, werr)
			}
			if got.Err == nil && got.Ignored != want {
				t.Errorf("cwd %q, %q: batch ignored %v, alone %v", cwd, p, got.Ignored, want)
			}
		}
	}
}
