package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/mcpserver"
)

// TestClientRootWithdrawn: a client root that a later roots/list (after
// notifications/roots/list_changed) no longer offers is removed from the
// jail: reads and writes under it are refused as outside from then on, its
// resource is gone, and a command-line root the client offered and then
// withdrew stays.
func TestClientRootWithdrawn(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	for _, d := range []string{"ws", "ws2", "out", "home", "client1", "client2"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	c1, c2 := filepath.Join(dir, "client1"), filepath.Join(dir, "client2")
	mustWrite(t, filepath.Join(c1, "c1.txt"), "from client root 1")
	mustWrite(t, filepath.Join(c2, "c2.txt"), "from client root 2")
	mustWrite(t, filepath.Join(dir, "ws2", "g"), "command-line root")

	s := start(t, startOpts{dir: dir, protocol: legacy, roots: []*mcp.Root{
		{URI: mcpserver.FileURI(c1)},
		{URI: mcpserver.FileURI(c2)},
		{URI: mcpserver.FileURI(filepath.Join(dir, "ws2"))}, // also a command-line root
	}})
	if got := s.ok("read_file", map[string]any{"path": filepath.Join(c1, "c1.txt")}); got != "from client root 1" {
		t.Fatalf("read in client root 1 = %q", got)
	}
	s.ok("write_file", map[string]any{"path": filepath.Join(c1, "w1"), "content": "x"})

	s.client.RemoveRoots(mcpserver.FileURI(c1), mcpserver.FileURI(filepath.Join(dir, "ws2")))
	eventually(t, func() string {
		if got, want := rootsOf(t, s), []string{s.ws, s.ws2, c2}; !slices.Equal(got, want) {
			return fmt.Sprintf("roots = %v, want %v", got, want)
		}
		return ""
	})
	s.fails("read_file", map[string]any{"path": filepath.Join(c1, "c1.txt")}, "outside")
	s.fails("write_file", map[string]any{"path": filepath.Join(c1, "w2"), "content": "x"}, "outside")
	if _, err := os.Lstat(filepath.Join(c1, "w2")); err == nil {
		t.Errorf("a write landed in the withdrawn root")
	}
	if got := s.ok("read_file", map[string]any{"path": filepath.Join(c2, "c2.txt")}); got != "from client root 2" {
		t.Errorf("read in client root 2 = %q", got)
	}
	if got := s.ok("read_file", map[string]any{"path": filepath.Join(s.ws2, "g")}); got != "command-line root" {
		t.Errorf("read in the command-line root = %q", got)
	}
	res, err := s.cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		if r.URI == mcpserver.FileURI(c1) {
			t.Errorf("the withdrawn root is still a resource")
		}
	}

	// Offered again: back in.
	s.client.AddRoots(&mcp.Root{URI: mcpserver.FileURI(c1)})
	eventually(t, func() string {
		if got := rootsOf(t, s); !slices.Contains(got, c1) {
			return fmt.Sprintf("client root 1 never re-added: %v", got)
		}
		return ""
	})
	if got := s.ok("read_file", map[string]any{"path": filepath.Join(c1, "c1.txt")}); got != "from client root 1" {
		t.Errorf("read in the re-added root = %q", got)
	}
}
