package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/tools"
)

// This test binary may be the sandbox helper of the hooks its Hosts run.
func init() { host.SandboxMain() }

// TestHooksSandboxed: a hook runs in the Host's sandbox (it cannot write
// outside the workspace) unless the user declared it Unsandboxed.
func TestHooksSandboxed(t *testing.T) {
	h0, err := host.New(host.Config{WorkspaceRoot: t.TempDir(), Sandbox: host.SandboxPolicy{Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h0.Exec(context.Background(), host.ExecRequest{Command: "true"})
	h0.Close()
	if err != nil {
		t.Skipf("skipped: no sandbox here: %v", err)
	}
	outside := t.TempDir()
	for _, unsandboxed := range []bool{false, true} {
		e := newEnv(t)
		target := filepath.Join(outside, "written")
		os.Remove(target)
		hook := tools.Hook{Event: tools.PreToolUse, Command: "echo hook > '" + target + "'; echo in > inside", Unsandboxed: unsandboxed}
		iv := e.invoker(hook)
		probe := e.path("probe")
		if err := os.WriteFile(probe, []byte("p"), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := iv.Invoke(context.Background(), readTool(probe), tools.Call{ID: "1", Input: input(probe, "")})
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(target)
		if unsandboxed != (statErr == nil) {
			t.Errorf("Unsandboxed=%v: the hook wrote outside the workspace: %v (runs %+v)", unsandboxed, statErr == nil, res.Hooks)
		}
		if b, err := os.ReadFile(e.path("inside")); err != nil || strings.TrimSpace(string(b)) != "in" {
			t.Errorf("Unsandboxed=%v: the hook could not write inside the workspace: %v", unsandboxed, err)
		}
		e.notices()
	}
}
