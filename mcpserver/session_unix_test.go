//go:build unix

package mcpserver_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDisconnectEndsCalls: when the client goes away (stdin closed) or the
// server gets SIGTERM in the middle of an exec call, the server exits at
// once and the command it was running does not outlive it.
func TestDisconnectEndsCalls(t *testing.T) {
	for _, how := range []string{"stdin closed", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			ws := t.TempDir()
			cmd := exec.Command(bin, "mcp", "--root", ws, "--allow-exec")
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n"+
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"command":"echo started > pid; exec sleep 30.0417"}}}`+"\n")
			go io.Copy(io.Discard, stdout)
			// The command runs in a PID namespace of its own (the
			// sandbox), so its $$ is not its pid here: it is found by
			// its unique argument instead.
			eventually(t, func() string {
				b, _ := os.ReadFile(filepath.Join(ws, "pid"))
				if strings.TrimSpace(string(b)) != "started" || len(pidsRunning("30.0417")) == 0 {
					return "the command never started"
				}
				return ""
			})
			t0 := time.Now()
			if how == "SIGTERM" {
				cmd.Process.Signal(syscall.SIGTERM)
			} else {
				stdin.Close()
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("agent-host mcp did not exit")
			}
			if d := time.Since(t0); d > 5*time.Second {
				t.Errorf("exit took %s", d)
			}
			eventually(t, func() string {
				if pids := pidsRunning("30.0417"); len(pids) > 0 {
					return fmt.Sprintf("the command (pids %v) outlived the server", pids)
				}
				return ""
			})
		})
	}
}

// pidsRunning returns the live processes whose command line holds arg.
func pidsRunning(arg string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), arg) {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
				out = append(out, pid)
			}
		}
	}
	return out
}
