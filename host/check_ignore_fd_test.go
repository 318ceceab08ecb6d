//go:build linux

package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenthost/agenthost/host"
)

// CheckIgnore opens each distinct parent directory once as a bare
// descriptor (jail.OpenDirFd) for the walk cache to look inside: every
// one is closed by the time it returns, whatever the paths (files,
// missing names, files used as directories, escapes, "dir/").
func TestCheckIgnoreLeavesNoDescriptor(t *testing.T) {
	root := t.TempDir()
	var paths []string
	for d := range 30 {
		dir := fmt.Sprintf("d%02d/e%d", d, d%4)
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if d%3 == 0 {
			if err := os.WriteFile(filepath.Join(root, dir, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, dir, "f.go"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, dir+"/f.go", dir+"/x.log", dir+"/", dir+"/f.go/x", dir+"/missing/y", "../"+dir)
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Config{WorkspaceRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.OneShot() // no inotify descriptor to count
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(ents)
	}
	before := count()
	for range 3 {
		if _, err := h.CheckIgnore(context.Background(), "", paths, host.CheckIgnoreOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if after := count(); after != before {
		t.Errorf("%d descriptors open before CheckIgnore, %d after", before, after)
	}
}
