package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenthost/agenthost/host"
)

// CheckIgnore cuts its answers' paths from a few shared buffers (not
// zeroed, each written once): over a batch several buffers long, asked
// cold and then warm (two ways of building a path), every path is its
// own, and the first batch's paths are still intact after the second.
func TestCheckIgnorePathsOverManyBuffers(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for d := range 20 {
		dir := fmt.Sprintf("dir%02d/some-longer-directory-name-%d", d, d)
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range 150 {
			ext := []string{"go", "log"}[f%2]
			paths = append(paths, fmt.Sprintf("%s/file-with-a-name-%04d.%s", dir, f, ext))
		}
	}
	h, err := host.New(host.Config{WorkspaceRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	canon, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	check := func(round int, res []host.IgnoreResult) {
		t.Helper()
		if len(res) != len(paths) {
			t.Fatalf("round %d: %d results for %d paths", round, len(res), len(paths))
		}
		for i, r := range res {
			if r.Err != nil {
				t.Fatalf("round %d: %s: %v", round, paths[i], r.Err)
			}
			if want := filepath.Join(canon, paths[i]); r.Path != want {
				t.Fatalf("round %d: path %d is %q, want %q", round, i, r.Path, want)
			}
			if want := i%2 == 1; r.Ignored != want {
				t.Fatalf("round %d: %s ignored %v, want %v", round, paths[i], r.Ignored, want)
			}
		}
	}
	var rounds [][]host.IgnoreResult
	for round := range 3 {
		res, err := h.CheckIgnore(ctx, "", paths, host.CheckIgnoreOptions{VerdictOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		check(round, res)
		rounds = append(rounds, res)
	}
	for round, res := range rounds {
		check(round, res) // nothing written over an earlier batch's paths
	}
}
