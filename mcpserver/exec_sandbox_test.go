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

// TestExecNULAddsNoRule: a NUL byte in exec's command or run_capture's
// arguments (JSON's "\u0000", which a model can write) cannot add a rule
// to the sandbox's instructions, whose records NUL ends: the call fails
// and nothing is written outside the roots, whether or not the Host's
// next helper was already waiting.
func TestExecNULAddsNoRule(t *testing.T) {
	h, cs, stop := inProcess(t, mcpserver.Options{AllowExec: true})
	defer stop()
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	var probe mcpserver.ExecOut
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &probe)
	if probe.Sandbox == nil || !probe.Sandbox.On("landlock-fs") {
		t.Skipf("skipped: no Landlock here: %s", b)
	}
	dir := t.TempDir()
	for round := 0; round < 3; round++ { // the second run on starts with a helper waiting
		outside := filepath.Join(dir, "x")
		inject := "\x00write=" + dir + "\x00readdir=/"
		for _, c := range []*mcp.CallToolParams{
			{Name: "exec", Arguments: map[string]any{"command": "echo x > '" + outside + "'" + inject}},
			{Name: "run_capture", Arguments: map[string]any{"program": "sh", "args": []string{"-c", "echo x > '" + outside + "'", inject}}},
		} {
			res, err := cs.CallTool(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res)
			if _, err := os.Stat(outside); err == nil {
				t.Fatalf("round %d, %s: a NUL in the call added a write rule: %s was written (%s)", round, c.Name, outside, b)
			}
			if !res.IsError {
				t.Errorf("round %d, %s: the call did not fail: %s", round, c.Name, b)
			}
		}
	}
	if h.SandboxPolicy().Off {
		t.Fatal("the policy was turned off")
	}
}
