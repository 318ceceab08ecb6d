package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/mcpserver"
)

// This test binary may be the sandbox helper of the commands its
// in-process servers run.
func init() { host.SandboxMain() }

// TestExecToolsSandboxed: exec and run_capture run sandboxed by default:
// a command cannot write outside the roots, and the result says what
// confined it; the tool descriptions say so too.
func TestExecToolsSandboxed(t *testing.T) {
	h, cs, stop := inProcess(t, mcpserver.Options{AllowExec: true})
	defer stop()
	if h.SandboxPolicy().Off {
		t.Fatal("the default policy is off")
	}
	ctx := context.Background()
	outside := filepath.Join(t.TempDir(), "x")
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if (tool.Name == "exec" || tool.Name == "run_capture") && !strings.Contains(tool.Description, "sandbox") {
			t.Errorf("%s's description does not say it is sandboxed: %s", tool.Name, tool.Description)
		}
	}
	for _, c := range []*mcp.CallToolParams{
		{Name: "exec", Arguments: map[string]any{"command": "echo x > '" + outside + "'; echo in > inside"}},
		{Name: "run_capture", Arguments: map[string]any{"program": "sh", "args": []string{"-c", "echo x > '" + outside + "'"}}},
	} {
		res, err := cs.CallTool(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		var out mcpserver.ExecOut
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		if out.Sandbox == nil {
			t.Errorf("%s: no sandbox in the result: %s", c.Name, b)
		} else if len(out.Sandbox.Missing) == 0 && !out.Sandbox.On("landlock-fs") {
			t.Errorf("%s: report %+v", c.Name, out.Sandbox)
		}
		if _, err := os.Stat(outside); err == nil && out.Sandbox != nil && out.Sandbox.On("landlock-fs") {
			t.Errorf("%s: wrote outside the roots under the sandbox", c.Name)
		}
	}
	if b, err := os.ReadFile(filepath.Join(h.WorkspaceRoot(), "inside")); err != nil || string(b) != "in\n" {
		t.Errorf("the sandboxed command could not write in the workspace: %q %v", b, err)
	}
}
