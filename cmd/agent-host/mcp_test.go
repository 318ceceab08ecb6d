package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAgentHostLinksNoMCPSDK: agent-host, which every hook and CLI call
// starts, links neither the MCP server nor the SDK (nor net/http, which
// the SDK brings), so none of their initializers run before its main
// (ADR 0011). go list is the oracle.
func TestAgentHostLinksNoMCPSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/agenthost/agenthost/cmd/agent-host").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list -deps gave %d packages: the test is not looking at agent-host", len(deps))
	}
	for _, d := range deps {
		if d == "github.com/agenthost/agenthost/mcpserver" || d == "net/http" || strings.HasPrefix(d, "github.com/modelcontextprotocol/") {
			t.Errorf("agent-host links %s", d)
		}
	}
}

// TestMCPReplacesItselfWithTheServer: agent-host mcp, run through a link
// from a directory of its own with PATH not naming the install, finds
// agent-host-mcp beside the link's target and becomes it (the same
// process: no agent-host left in between), which serves until stdin
// closes and exits 0.
func TestMCPReplacesItselfWithTheServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	w := newWorld(t)
	link := filepath.Join(w.out, "agent-host")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	cmd := w.cmd("mcp")
	cmd.Path = link
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + w.home}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exe := ""
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		exe, _ = os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/exe")
		if filepath.Base(exe) == "agent-host-mcp" {
			break
		}
	}
	stdin.Close()
	err = cmd.Wait()
	if want := filepath.Join(filepath.Dir(bin), "agent-host-mcp"); exe != want {
		t.Errorf("process %d runs %q, want %q", cmd.Process.Pid, exe, want)
	}
	if err != nil {
		t.Errorf("agent-host mcp: %v; stderr %q", err, errb.String())
	}
}

// TestMCPWithoutTheServer: with agent-host-mcp neither beside agent-host
// nor on PATH, agent-host mcp exits 2 naming the program and the command
// that installs it.
func TestMCPWithoutTheServer(t *testing.T) {
	w := newWorld(t)
	alone := filepath.Join(w.out, "agent-host")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := w.cmd("mcp", "--root", w.ws)
	cmd.Path = alone
	cmd.Env = []string{"PATH=" + w.home, "HOME=" + w.home}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitUsage || out.Len() != 0 {
		t.Fatalf("agent-host mcp alone: %v, stdout %q; want exit 2 and nothing on stdout", err, out.String())
	}
	for _, want := range []string{"agent-host mcp: ", "agent-host-mcp", "go install ./cmd/..."} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr %q does not say %q", errb.String(), want)
		}
	}
}
