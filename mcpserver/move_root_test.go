//go:build linux || darwin

package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/mcpserver"
)

// TestMoveFileRefusesNestedRoot: a root nested in another root, or a
// directory that holds one, is reached as an ordinary name; move_file must
// refuse to move it (the jail would keep a root whose path no longer leads
// to it).
func TestMoveFileRefusesNestedRoot(t *testing.T) {
	h, cs, stop := inProcess(t, mcpserver.Options{})
	defer stop()
	ws := h.WorkspaceRoot()
	nested := filepath.Join(ws, "outer", "nested")
	os.MkdirAll(nested, 0o755)
	if _, err := h.AddRoot(nested); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"outer/nested", "outer", filepath.Join(ws, "outer", "nested")} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "move_file",
			Arguments: map[string]any{"source": src, "destination": "moved"}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(resultText(res), "root") {
			t.Fatalf("move %s: %s; want a refusal naming the root", src, resultText(res))
		}
	}
	if _, err := os.Stat(nested); err != nil {
		t.Fatalf("the nested root moved: %v", err)
	}
}
