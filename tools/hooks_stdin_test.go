package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agenthost/agenthost/tools"
)

// TestHookReadsItsJSONOnStdin: the hook's command is the user's, as
// written, and its standard input is the JSON: read in pieces by the
// shell's own read, parsed whole by another program, and nothing is left
// in the temporary directory, even by a hook killed on its timeout.
func TestHookReadsItsJSONOnStdin(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	e := newEnv(t)

	// The shell reads the first bytes itself, then hands the rest on: the
	// two pieces make the JSON, so stdin is one stream, not a file
	// reopened.
	hook := tools.Hook{Event: tools.PreToolUse, Writes: tools.WritesNothing,
		Command: `IFS= read -r -n 1 first; rest=$(cat); printf '%s%s' "$first" "$rest"`}
	res, err := e.invoker(hook).Invoke(context.Background(), writeTool{}, tools.Call{ID: "toolu_7", Input: input("a.txt", "x")})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ToolName  string          `json:"tool_name"`
		ToolUseID string          `json:"tool_use_id"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if err := json.Unmarshal([]byte(res.Hooks[0].Stdout), &got); err != nil {
		t.Fatalf("hook echoed %q: %v", res.Hooks[0].Stdout, err)
	}
	if got.ToolName != "Write" || got.ToolUseID != "toolu_7" || string(got.ToolInput) != `{"file_path":"a.txt","content":"x"}` {
		t.Fatalf("hook read %+v", got)
	}
	// The command reaches the shell as written: $0 and the first line
	// are the user's (no line was put before it).
	hook.Command = `echo "$LINENO"`
	res, err = e.invoker(hook).Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", "x")})
	if err != nil || strings.TrimSpace(res.Hooks[0].Stdout) != "1" {
		t.Fatalf("first line of the command is line %q (%v)", res.Hooks[0].Stdout, err)
	}

	// Its standard input is a pipe, not a file on disk.
	hook.Command = `[ -p /dev/stdin ] && echo pipe`
	res, err = e.invoker(hook).Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", "x")})
	if err != nil || res.Hooks[0].Stdout != "pipe\n" {
		t.Fatalf("stdin is not a pipe: %q (%v)", res.Hooks[0].Stdout, err)
	}

	// A hook that never reads its input and is killed on its timeout.
	hook = tools.Hook{Event: tools.PreToolUse, Writes: tools.WritesNothing, Command: "sleep 30", Timeout: 300 * time.Millisecond}
	t0 := time.Now()
	res, err = e.invoker(hook).Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", strings.Repeat("y", 1<<20))})
	if res.Hooks == nil || !res.Hooks[0].TimedOut || time.Since(t0) > 10*time.Second {
		t.Fatalf("%+v, %v after %v", res.Hooks, err, time.Since(t0))
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range ents {
		if !strings.HasPrefix(ent.Name(), "agenthost-sandbox-") { // the sandboxes' own, removed by Host.Close
			t.Errorf("left in the temporary directory: %s", ent.Name())
		}
	}
}
