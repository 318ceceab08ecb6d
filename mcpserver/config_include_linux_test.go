package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/gittest"
)

// TestCheckIgnoreSelfIncludedConfig: check_ignore in a repository whose
// .git/config includes itself six times (a file the model can write
// through the jail) answers at once with git's refusal, "exceeded maximum
// include depth" (git check-ignore dies on it), and a walk after it is
// answered too, with the server's peak RSS under 64 MiB. Before, the
// config was followed 6^10 times: check_ignore never returned, and every
// later walk queued behind it.
func TestCheckIgnoreSelfIncludedConfig(t *testing.T) {
	r := startRaw(t)
	g := gittest.New(t)
	g.Init(t, r.ws)
	if _, code := g.Run(t, r.ws, "", "check-ignore", "a.log"); code != 1 {
		t.Fatalf("git check-ignore exits %d before the config is made hostile", code)
	}
	f, err := os.OpenFile(filepath.Join(r.ws, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[include]\n" + strings.Repeat("\tpath = config\n", 6))
	f.Close()
	mustWrite(t, filepath.Join(r.ws, ".gitignore"), "*.log\n")
	mustWrite(t, filepath.Join(r.ws, "b.txt"), "")
	if _, code := g.Run(t, r.ws, "", "check-ignore", "a.log"); code != 128 {
		t.Fatalf("git check-ignore exits %d, want 128 (git refuses the config)", code)
	}

	t0 := time.Now()
	r.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"check_ignore","arguments":{"paths":["a.log"]}}}`)
	reply := parseReply(t, r.line())
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("check_ignore answered after %v", d)
	}
	if string(reply.ID) != "7" || !strings.Contains(string(reply.Result), "exceeded maximum include depth") {
		t.Fatalf("check_ignore: %s, want git's refusal of the config", reply.Result)
	}
	t0 = time.Now()
	r.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"walk","arguments":{}}}`)
	reply = parseReply(t, r.line())
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("walk answered after %v", d)
	}
	if string(reply.ID) != "8" || !strings.Contains(string(reply.Result), "b.txt") {
		t.Fatalf("walk: %s, want b.txt listed", reply.Result)
	}
	if peak := vmKiB(t, r.cmd.Process.Pid, "VmHWM"); peak > 64<<10 {
		t.Errorf("the server's peak RSS is %d KiB (bound 64 MiB)", peak)
	}
}
