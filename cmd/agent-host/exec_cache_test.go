package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/internal/cli"
)

// TestExecCacheLastsAcrossProcesses: a sandboxed agent-host exec finds
// what the previous one left in its cache (GOCACHE's default lives
// there), in one directory per workspace under the user's cache
// directory (the fake home's here), and another workspace gets another.
func TestExecCacheLastsAcrossProcesses(t *testing.T) {
	w := newWorld(t)
	r := w.run("", "exec", "--", `mkdir -p "$XDG_CACHE_HOME" && echo warm > "$XDG_CACHE_HOME/m"; echo "$XDG_CACHE_HOME"`)
	if r.code != 0 {
		t.Skipf("no sandbox here: %+v", r)
	}
	xdg := strings.TrimSpace(r.stdout)
	if !strings.HasPrefix(xdg, filepath.Join(w.home, ".cache", "agent-host", "sandbox")+"/") {
		t.Fatalf("XDG_CACHE_HOME %q is not under the fake home's cache directory", xdg)
	}
	if r := w.run("", "exec", "--", `cat "$XDG_CACHE_HOME/m"`); strings.TrimSpace(r.stdout) != "warm" {
		t.Errorf("the next agent-host exec found no cache: %+v", r)
	}
	other := filepath.Join(filepath.Dir(w.ws), "ws2")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := w.runIn(other, "", "exec", "--", `cat "$XDG_CACHE_HOME/m" 2>/dev/null || echo cold`); strings.TrimSpace(r.stdout) != "cold" {
		t.Errorf("another workspace shares the cache: %+v", r)
	}
	if a, b := cli.SandboxCacheDir(w.ws), cli.SandboxCacheDir(other); a == b || a == "" {
		t.Errorf("SandboxCacheDir: %q and %q", a, b)
	}
}
