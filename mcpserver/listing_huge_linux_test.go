//go:build linux

package mcpserver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agenthost/agenthost/mcpserver"
)

// TestListDirectoryPagesHugeDirectory: list_directory lists every entry of
// a directory of 1,000,000 files (100,000 under -short or -race), each once and in
// order, by paging with its cursor, and the server stays under 64 MiB.
// Each page after the first two is served from the directory's kept sorted
// listing: the old server read the whole directory for each of the 200
// pages (0.3-1 s each here, some 100 s in all); the bound is 60 s for all
// of them, and 1 s for any page after the second.
func TestListDirectoryPagesHugeDirectory(t *testing.T) {
	files := 1000000
	if testing.Short() || raceEnabled {
		files = 100000
	}
	s := start(t, startOpts{})
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
	if t.Failed() {
		return
	}
	// A directory changed in the last 2 s has no listing kept (its change
	// could share a clock tick with its reading): let it settle.
	time.Sleep(2100 * time.Millisecond)

	start := time.Now()
	cursor, n, pages := "", 0, 0
	var slowest time.Duration
	for {
		args := map[string]any{"path": "d"}
		if cursor != "" {
			args["cursor"] = cursor
		}
		t0 := time.Now()
		res, err := s.callRaw("list_directory", args)
		if err != nil || res.IsError {
			t.Fatalf("page %d: %v %s", pages+1, err, resultText(res))
		}
		if d := time.Since(t0); pages >= 2 && d > slowest {
			slowest = d
		}
		pages++
		var out mcpserver.ListOut
		structured(t, res, &out)
		for _, e := range out.Entries {
			if want := fmt.Sprintf("file-%07d", n); e.Path != want {
				t.Fatalf("page %d: entry %q where %q comes next", pages, e.Path, want)
			}
			n++
		}
		if !out.Truncated {
			break
		}
		cursor = out.NextCursor
		if d := time.Since(start); d > 120*time.Second {
			t.Fatalf("%d pages (%d entries) in %v", pages, n, d)
		}
	}
	took := time.Since(start)
	peak := vmKiB(t, s.cmd.Process.Pid, "VmHWM")
	t.Logf("%d entries in %d pages, %v (slowest page after the second %v); server peak RSS %d KiB", n, pages, took, slowest, peak)
	if n != files {
		t.Errorf("%d entries listed, want %d", n, files)
	}
	if peak > 64<<10 {
		t.Errorf("server peak RSS %d KiB, want at most 64 MiB", peak)
	}
	if files == 1000000 && (took > 60*time.Second || slowest > time.Second) {
		t.Errorf("%d pages took %v, the slowest after the second %v: want 60 s in all and 1 s a page", pages, took, slowest)
	}
	if pages != files/5000 {
		t.Errorf("%d pages, want %d", pages, files/5000)
	}
}
