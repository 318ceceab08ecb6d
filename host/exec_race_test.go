//go:build linux

package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
)

// TestExecCwdSwapRace: while a directory inside the workspace is swapped
// with a link to outside, a command whose cwd names it must never start
// outside: the Host starts it in the descriptor the jail opened (through
// /proc/self/fd unsandboxed, with fchdir in the sandbox helper).
func TestExecCwdSwapRace(t *testing.T) {
	t.Run("unsandboxed", func(t *testing.T) { execCwdSwapRace(t, host.SandboxPolicy{Off: true}) })
	t.Run("sandboxed", func(t *testing.T) { execCwdSwapRace(t, host.SandboxPolicy{}) })
}

func execCwdSwapRace(t *testing.T, policy host.SandboxPolicy) {
	if testing.Short() {
		t.Skip("race test: skipped under -short")
	}
	dir := t.TempDir()
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(ws, "d"), 0o755)
	os.MkdirAll(out, 0o755)
	os.Symlink(out, filepath.Join(ws, "l"))
	h := newHost(t, host.Config{WorkspaceRoot: ws, Sandbox: policy})
	_, stopSwapping := startSwapping(t, ws, [2]string{"d", "l"})
	defer stopSwapping()
	started := 0
	// Under the swapper the kernel shows the name as the link most of the
	// time, so starts are rare on a loaded machine: go on past 5,000 tries
	// for up to 10 s until 100 have started.
	t0 := time.Now()
	for i := 0; started < 100 && (i < 5000 || time.Since(t0) < 10*time.Second); i++ {
		var o host.ExecOutput
		var err error
		if i%2 == 0 {
			o, err = h.Exec(bg, host.ExecRequest{Command: "readlink /proc/self/cwd", Cwd: "d"})
		} else {
			o, err = h.RunCapture(bg, "readlink", []string{"/proc/self/cwd"}, "d", 0)
		}
		if err != nil {
			continue // refused: the name was the link at that moment
		}
		started++
		if got := strings.TrimSpace(o.Stdout); !strings.HasPrefix(got, ws+"/") {
			t.Errorf("run %d started in %q, outside the workspace", i, got)
		}
	}
	stopSwapping()
	if started < 20 {
		t.Fatalf("only %d runs started: the test did not exercise the race", started)
	}
}
