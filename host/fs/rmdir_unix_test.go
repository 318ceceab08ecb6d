//go:build linux || darwin

package fs

import (
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agenthost/agenthost/host/jail"
)

// TestRemoveEmptyDir: an empty directory goes; one that holds a file, a
// link to a directory (not followed), a file, a missing name, the root
// and a link on the way are refused with the error each promises, and
// nothing of them changes.
func TestRemoveEmptyDir(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	p := func(n string) string { return filepath.Join(dir, n) }
	os.Mkdir(p("empty"), 0o755)
	os.MkdirAll(p("full/sub"), 0o755)
	os.WriteFile(p("file"), nil, 0o644)
	os.Mkdir(p("target"), 0o755)
	os.Symlink("target", p("link"))
	os.Mkdir(p("target/inner"), 0o755)
	j, err := jail.New(dir, nil, jail.Jailed, "")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	f := New(j, 0)
	noFollow := Options{NoFollow: true}
	for _, c := range []struct {
		path string
		opts Options
		want error
	}{
		{"full", noFollow, syscall.ENOTEMPTY},
		{"file", noFollow, syscall.ENOTDIR},
		{"link", Options{}, syscall.ENOTDIR},
		{"missing", noFollow, iofs.ErrNotExist},
		{"link/inner", noFollow, ErrSymlink},
		{".", noFollow, nil},
	} {
		_, err := f.RemoveEmptyDir("", c.path, c.opts)
		if err == nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.path, err, c.want)
		}
	}
	for _, n := range []string{"full/sub", "file", "link", "target/inner"} {
		if _, err := os.Lstat(p(n)); err != nil {
			t.Errorf("%s went: %v", n, err)
		}
	}
	canon, err := f.RemoveEmptyDir("", "empty", noFollow)
	if err != nil || canon != p("empty") {
		t.Errorf("empty: %q, %v", canon, err)
	}
	if _, err := os.Lstat(p("empty")); err == nil {
		t.Errorf("the empty directory is still there")
	}
}
