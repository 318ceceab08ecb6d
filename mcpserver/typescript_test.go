package mcpserver_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptSDK runs e2e/ts/check.mjs: the official TypeScript MCP SDK
// (pinned in e2e/ts/package.json) talks to agent-host mcp over stdio. It is
// skipped only when node is not installed at all; when the SDK is not
// installed yet, npm ci installs it from the lock file first.
func TestTypeScriptSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK check needs Node.js 18 or newer")
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "e2e", "ts")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatalf("node is installed but npm is not, and %s has no node_modules: run npm ci there", dir)
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}

	tmp := t.TempDir()
	tmp, _ = filepath.EvalSymlinks(tmp)
	ws, croot := filepath.Join(tmp, "ws"), filepath.Join(tmp, "client-root")
	outside := filepath.Join(tmp, "out", "secret")
	mustWrite(t, filepath.Join(croot, "root.txt"), "in the client root\n")
	mustWrite(t, outside, "SECRET")
	os.Mkdir(ws, 0o755)
	// A walk of these is a reply large enough to be lent to the transport
	// (mcpserver/lend.go): the TypeScript client must see it whole.
	for i := range 1500 {
		mustWrite(t, filepath.Join(ws, "many", fmt.Sprintf("f%04d.dat", i)), "")
	}

	cmd := exec.Command(node, "check.mjs", bin, ws, croot, outside)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(tmp, "home"))
	done := make(chan struct{})
	var out []byte
	go func() {
		out, err = cmd.CombinedOutput()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("check.mjs timed out:\n%s", out)
	}
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("check.mjs: %v", err)
	}
	if !strings.Contains(string(out), "all checks passed") {
		t.Fatal("check.mjs did not finish")
	}
	if b, _ := os.ReadFile(outside); string(b) != "SECRET" {
		t.Fatalf("the outside file changed: %q", b)
	}
}
