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

// TestWalkHugeDirectorySmall: walk and list_directory of a directory of
// 100,000 files keep the server small: each reads the directory a part at
// a time and holds no more than its page. The old server read the whole
// directory, and its walk built every entry before cutting at 2,000
// (42 MiB here; 257 MiB for 1,000,000 files).
func TestWalkHugeDirectorySmall(t *testing.T) {
	s := start(t, startOpts{})
	const files = 100000
	dir := filepath.Join(s.ws, "d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < files; i += 4 {
				if err := syscall.Mknod(filepath.Join(dir, fmt.Sprintf("file-%07d", i)), syscall.S_IFREG|0o644, 0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range []struct {
		tool string
		n    int
	}{{"walk", mcpserver.DefaultWalkEntries}, {"list_directory", 5000}} {
		start := time.Now()
		res, err := s.callRaw(c.tool, map[string]any{"path": "d"})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", c.tool, err, resultText(res))
		}
		var out mcpserver.ListOut
		structured(t, res, &out)
		if len(out.Entries) != c.n || !out.Truncated || out.Entries[0].Path != "file-0000000" {
			t.Errorf("%s: %d entries from %q, truncated %v", c.tool, len(out.Entries), out.Entries[0].Path, out.Truncated)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: %v", c.tool, d)
		}
	}
	// The server's own peak (VmHWM), read while it runs: its rusage after
	// exit would fold in any child it reaped.
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
	t.Logf("server peak RSS %d KiB", rss)
	if rss == 0 || rss > 28<<10 {
		t.Errorf("server peak RSS %d KiB, want < 28 MiB", rss)
	}
}
