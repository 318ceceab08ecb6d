package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/invalidation"
	"github.com/agenthost/agenthost/tools"
)

// noteTool is a tool that writes {"path", "content"} through the Host.
type noteTool struct{}

func (noteTool) Name() string { return "Write" }

func (noteTool) Run(ctx context.Context, call tools.Call) (json.RawMessage, error) {
	var in struct{ Path, Content string }
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	st, err := call.Host.WriteFile(ctx, call.Cwd, in.Path, []byte(in.Content))
	if err != nil {
		return nil, err
	}
	return json.Marshal(fmt.Sprintf("wrote %d bytes", st.Size))
}

// An Invoker runs the user's hooks around a tool, as Claude Code does: this
// PreToolUse hook refuses writes to .env files (exit code 2, the reason on
// standard error), and the subscriber hears of every call that ran a hook
// or changed a file.
func ExampleInvoker() {
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	dir, _ = filepath.EvalSymlinks(dir)
	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	var pub invalidation.Publisher
	defer pub.Close(context.Background())
	notices := make(chan invalidation.Notice, 8)
	pub.Subscribe(invalidation.SinkFunc(func(n invalidation.Notice) { notices <- n }))
	iv := &tools.Invoker{
		Host:      h,
		Publisher: &pub,
		Hooks: []tools.Hook{{
			Event:   tools.PreToolUse,
			Matcher: "Write",
			Command: `grep -q '"path":"[^"]*\.env"' && { echo 'secrets stay out of the agent' >&2; exit 2; }; exit 0`,
			Writes:  tools.WritesNothing, // the hook only reads its input
		}},
	}
	ctx := context.Background()
	for _, input := range []string{
		`{"path":"notes.md","content":"hello"}`,
		`{"path":".env","content":"TOKEN=x"}`,
	} {
		res, err := iv.Invoke(ctx, noteTool{}, tools.Call{Input: json.RawMessage(input)})
		switch {
		case errors.Is(err, tools.ErrRefused):
			fmt.Printf("refused: %s\n", res.Reason)
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Printf("ran: %s\n", res.Output)
		}
		pub.Flush(ctx) // the subscriber has had the call's notice, if any
		for len(notices) > 0 {
			n := <-notices
			fmt.Printf("  notice: %v of %v, executed=%v confirmed=%v\n", n.Scope, relative(dir, n.Paths), n.Executed, n.Confirmed)
		}
	}
	_, err = os.Stat(filepath.Join(dir, ".env"))
	fmt.Println(".env exists:", err == nil)
	// Output:
	// ran: "wrote 5 bytes"
	//   notice: content|tree of [notes.md], executed=true confirmed=true
	// refused: secrets stay out of the agent
	// .env exists: false
}

// relative makes paths relative to dir, for printing.
func relative(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i], _ = filepath.Rel(dir, p)
	}
	return out
}
