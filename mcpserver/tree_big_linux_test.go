//go:build linux

package mcpserver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agenthost/agenthost/mcpserver"
)

// TestDirectoryTreeLargeSmall: a directory_tree of MaxWalkEntries entries
// (500 directories of 99 files) is written once, as the walk delivers it,
// and keeps the server small and quick. The old server built a node per
// entry, the text with encoding/json, and then the SDK marshaled the
// output, decoded it into maps to check it against the schema and
// marshaled it again (a peak of 51 MiB here, against 37–38 MiB now).
func TestDirectoryTreeLargeSmall(t *testing.T) {
	s := start(t, startOpts{})
	const dirs, per = 500, 99
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := g; d < dirs; d += 4 {
				dir := filepath.Join(s.ws, fmt.Sprintf("dir-%04d", d))
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Error(err)
					return
				}
				for i := range per {
					if err := syscall.Mknod(filepath.Join(dir, fmt.Sprintf("file-with-a-longer-name-%03d.go", i)), syscall.S_IFREG|0o644, 0); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	start := time.Now()
	res, err := s.callRaw("directory_tree", map[string]any{"maxEntries": mcpserver.MaxWalkEntries})
	if err != nil || res.IsError {
		t.Fatalf("directory_tree: %v", err)
	}
	d := time.Since(start)
	var out mcpserver.TreeOut
	structured(t, res, &out)
	n := 0
	for _, e := range out.Entries {
		n += 1 + len(e.Children)
	}
	if n != dirs*(per+1) || out.Truncated {
		t.Errorf("directory_tree: %d entries, truncated %v; want %d", n, out.Truncated, dirs*(per+1))
	}
	if d > 60*time.Second { // the client's decoding of 8 MB included (slow under -race)
		t.Errorf("directory_tree took %v", d)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	var rss int
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			rss, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	t.Logf("directory_tree of %d entries: %v, server peak RSS %d KiB, reply text %d bytes", n, d, rss, len(resultText(res)))
	if rss == 0 || rss > 46<<10 {
		t.Errorf("server peak RSS %d KiB, want < 46 MiB", rss)
	}
}
