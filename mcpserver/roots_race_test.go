//go:build linux

package mcpserver_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/mcpserver"
)

// TestClientRootSwapRace: a client offers, then withdraws, a root that a
// swapper keeps exchanging with a symbolic link to outside
// (RENAME_EXCHANGE). Whenever agent-host lists the root as the inside
// directory, reading and writing through it stay inside: 0 outside reads,
// 0 outside writes. (A root listed as the outside directory is the link
// followed at that moment: what the client's path named then.)
func TestClientRootSwapRace(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	for _, d := range []string{"ws/sw", "ws2", "out", "home"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	sw := filepath.Join(ws, "sw")
	mustWrite(t, filepath.Join(sw, "f"), "inside")
	mustWrite(t, filepath.Join(out, "f"), "OUTSIDE")
	os.Symlink(out, filepath.Join(ws, "swl"))
	s := start(t, startOpts{dir: dir, protocol: legacy})

	fd, err := unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var swaps atomic.Int64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			default:
			}
			if unix.Renameat2(fd, "sw", fd, "swl", unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
			}
		}
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			close(done)
			<-finished
		}
	}
	defer stop()

	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	inside, outside := 0, 0
	for i := range rounds {
		s.client.AddRoots(&mcp.Root{URI: mcpserver.FileURI(sw)})
		// The call waits for the roots/list the notification started.
		txt, isErr := s.call("read_file", map[string]any{"path": filepath.Join(sw, "f")})
		roots := rootsOf(t, s)
		switch {
		case slices.Contains(roots, sw):
			inside++
			if !isErr && txt != "inside" {
				t.Errorf("round %d: root %s listed inside read %q", i, sw, txt)
			}
			if i%10 == 0 {
				s.call("write_file", map[string]any{"path": filepath.Join(sw, "w"), "content": "x"})
			}
		case slices.Contains(roots, out):
			outside++
		}
		if strings.Contains(txt, "OUTSIDE") && !slices.Contains(roots, out) {
			t.Errorf("round %d: outside content with roots %v", i, roots)
		}
		s.client.RemoveRoots(mcpserver.FileURI(sw))
		eventually(t, func() string {
			if got := rootsOf(t, s); slices.Contains(got, sw) || slices.Contains(got, out) {
				return "client root not withdrawn: " + strings.Join(got, ", ")
			}
			return ""
		})
	}
	stop()
	t.Logf("%d rounds, %d swaps: %d roots inside, %d outside", rounds, swaps.Load(), inside, outside)
	if inside == 0 {
		t.Errorf("the root was never added inside: the test did not race")
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != "f" {
			t.Errorf("a write landed outside: %s", e.Name())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "f")); string(b) != "OUTSIDE" {
		t.Errorf("outside file changed: %q", b)
	}
}
