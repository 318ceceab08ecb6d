//go:build linux

package mcpserver_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/mcpserver"
)

// secretText is what lies outside the roots; no file in the outbox may
// ever hold it.
const secretText = "TOP SECRET: outside every root"

// TestSendUserFileSwapRace: while send_user_file stages files from a second
// root again and again, another goroutine swaps (renameat2 RENAME_EXCHANGE,
// atomically) a directory of that root with a link to an outside directory,
// and a file of it with a link to an outside file. Whatever a call sees, it
// may stage the file in the root or refuse it as an escape; it must never
// copy the outside file into the workspace, where read_file would serve it.
func TestSendUserFileSwapRace(t *testing.T) {
	h, cs, stop := inProcess(t, mcpserver.Options{})
	defer stop()
	ws := h.WorkspaceRoot()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	extra, outside := filepath.Join(root, "extra"), filepath.Join(root, "outside")
	mustWrite(t, filepath.Join(extra, "d", "f.txt"), "harmless")
	mustWrite(t, filepath.Join(extra, "g.txt"), "harmless too")
	mustWrite(t, filepath.Join(outside, "d", "f.txt"), secretText)
	mustWrite(t, filepath.Join(outside, "g.txt"), secretText)
	for link, target := range map[string]string{"dlink": filepath.Join(outside, "d"), "glink": filepath.Join(outside, "g.txt")} {
		if err := os.Symlink(target, filepath.Join(extra, link)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.AddRoot(extra); err != nil {
		t.Fatal(err)
	}

	done := make(chan struct{})
	var wg sync.WaitGroup
	var swaps atomic.Int64
	stopSwaps := sync.OnceFunc(func() { close(done); wg.Wait() })
	defer stopSwaps() // before the temporary directory goes, on a Fatal too
	for _, pair := range [][2]string{{"d", "dlink"}, {"g.txt", "glink"}} {
		a, b := filepath.Join(extra, pair[0]), filepath.Join(extra, pair[1])
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
					t.Errorf("renameat2: %v", err)
					return
				}
				swaps.Add(1)
			}
		}()
	}

	const calls = 400
	files := []string{filepath.Join(extra, "d", "f.txt"), filepath.Join(extra, "g.txt")}
	staged := 0
	for i := 0; i < calls; i++ {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send_user_file", Arguments: map[string]any{"files": files}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		var out mcpserver.SendOut
		structured(t, res, &out)
		staged += out.Staged
		for _, p := range out.Files {
			if strings.HasPrefix(p, ws+"/") {
				if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(secretText)) {
					t.Fatalf("call %d staged the outside file as %s", i+1, p)
				}
			}
		}
	}
	stopSwaps()
	t.Logf("%d calls, %d files staged, %d swaps", calls, staged, swaps.Load())
	if swaps.Load() < 2000 {
		t.Errorf("only %d swaps during the calls", swaps.Load())
	}
	if staged == 0 {
		t.Errorf("nothing was ever staged: the test raced nothing")
	}
	filepath.Walk(filepath.Join(ws, ".agent-harness"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secretText)) {
				t.Errorf("the outbox holds the outside file: %s", p)
			}
		}
		return nil
	})
}

// TestSendUserFileLinkOutside: a path through a link leading out of the
// roots (a directory link on the way, or a final link) is refused with an
// error that names the roots, and nothing is staged; in a call with a good
// file too, the good one is staged and the other explained.
func TestSendUserFileLinkOutside(t *testing.T) {
	s := start(t, startOpts{})
	if err := os.Symlink(filepath.Join(s.dir, "out"), filepath.Join(s.ws2, "outdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(s.dir, "out", "secret"), filepath.Join(s.ws2, "outfile")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(s.ws2, "report.txt"), "report")
	for _, p := range []string{filepath.Join(s.ws2, "outdir", "secret"), filepath.Join(s.ws2, "outfile"), "../ws2/outfile"} {
		s.fails("send_user_file", map[string]any{"files": []string{p}}, "outside", "Allowed roots", s.ws, s.ws2)
	}
	res, err := s.callRaw("send_user_file", map[string]any{"files": []string{filepath.Join(s.ws2, "outfile"), filepath.Join(s.ws2, "report.txt")}})
	if err != nil || res.IsError {
		t.Fatal(err, resultText(res))
	}
	var out mcpserver.SendOut
	structured(t, res, &out)
	if out.Staged != 1 || out.Kept != 1 || readDisk(t, out.Files[1]) != "report" || !strings.Contains(resultText(res), "Allowed roots") {
		t.Errorf("mixed call: %+v %s", out, resultText(res))
	}
	filepath.Walk(filepath.Join(s.ws, ".agent-harness"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && readDisk(t, p) == "the secret outside" {
			t.Errorf("a file from outside was staged: %s", p)
		}
		return nil
	})
}
