package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/invalidation"
	"github.com/agenthost/agenthost/mcpserver"
	"github.com/agenthost/agenthost/tools"
)

// inProcess runs a Server on in-memory transports with a caller's
// Publisher and Options, for what a subprocess cannot show: the notices a
// call publishes, hooks, and that Run stops every goroutine it started.
func inProcess(t *testing.T, opts mcpserver.Options, roots ...*mcp.Root) (*host.Host, *mcp.ClientSession, func()) {
	h, cs, _, stop := inProcessClient(t, opts, roots...)
	return h, cs, stop
}

// inProcessClient is inProcess that also returns the client, whose roots a
// test may change.
func inProcessClient(t *testing.T, opts mcpserver.Options, roots ...*mcp.Root) (*host.Host, *mcp.ClientSession, *mcp.Client, func()) {
	t.Helper()
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	h, err := host.New(host.Config{WorkspaceRoot: ws})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Log == nil {
		opts.Log = log.New(io.Discard, "", 0)
	}
	srv, err := mcpserver.New(h, opts)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	runErr := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { runErr <- srv.Run(ctx, st) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "in-process", Version: "1"}, nil)
	client.AddRoots(roots...)
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatal(err)
	}
	stop := func() {
		cs.Close()
		select {
		case err := <-runErr:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after the client closed")
		}
		cancel()
		h.Close()
	}
	return h, cs, client, stop
}

// TestRunStopsItsGoroutines: after the client goes away, Run returns and
// nothing the server started (the notice sink, roots requests, the SDK's
// connection) is left running.
func TestRunStopsItsGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	croot := t.TempDir()
	h, cs, stop := inProcess(t, mcpserver.Options{AllowExec: true}, &mcp.Root{URI: mcpserver.FileURI(croot)})
	ctx := context.Background()
	uri := mcpserver.FileURI(filepath.Join(h.WorkspaceRoot(), "f"))
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*mcp.CallToolParams{
		{Name: "write_file", Arguments: map[string]any{"path": "f", "content": "x"}},
		{Name: "exec", Arguments: map[string]any{"command": "sleep 0.01"}},
		{Name: "list_roots"},
	} {
		res, err := cs.CallTool(ctx, c)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", c.Name, err, resultText(res))
		}
	}
	stop()
}

// TestEveryCallIsAnInvocation: each tool call publishes its own notice,
// named after the tool, with the canonical paths it changed, and a read
// publishes nothing.
func TestEveryCallIsAnInvocation(t *testing.T) {
	pub := &invalidation.Publisher{}
	var mu sync.Mutex
	var notices []invalidation.Notice
	cancel, err := pub.Subscribe(invalidation.SinkFunc(func(n invalidation.Notice) {
		mu.Lock()
		notices = append(notices, n)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	h, cs, stop := inProcess(t, mcpserver.Options{Publisher: pub, AllowExec: true})
	defer stop()
	ws := h.WorkspaceRoot()
	ctx := context.Background()
	call := func(name string, args map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		_ = res
	}
	call("write_file", map[string]any{"path": "a", "content": "1"})
	call("read_file", map[string]any{"path": "a"})
	call("move_file", map[string]any{"source": "a", "destination": "b"})
	call("create_directory", map[string]any{"path": "d/e"})
	call("remove_file", map[string]any{"path": "b"})
	call("write_file", map[string]any{"path": "../x", "content": "1"}) // refused: no change
	call("exec", map[string]any{"command": "true"})
	if err := pub.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	type want struct {
		tool  string
		all   bool
		paths []string
	}
	wants := []want{
		{"write_file", false, []string{filepath.Join(ws, "a")}},
		{"move_file", false, []string{filepath.Join(ws, "a"), filepath.Join(ws, "b")}},
		{"create_directory", false, []string{filepath.Join(ws, "d"), filepath.Join(ws, "d/e")}},
		{"remove_file", false, []string{filepath.Join(ws, "b")}},
		{"exec", true, nil},
	}
	if len(notices) != len(wants) {
		t.Fatalf("got %d notices, want %d: %+v", len(notices), len(wants), notices)
	}
	for i, w := range wants {
		n := notices[i]
		if n.Tool != w.tool || n.All != w.all || strings.Join(n.Paths, ",") != strings.Join(w.paths, ",") || !n.Executed {
			t.Errorf("notice %d = %+v, want %+v", i, n, w)
		}
	}
}

// TestHooks: Claude Code hooks given in Options run around each call; a
// PreToolUse hook that exits 2 refuses the call, which the model sees as an
// error result with the hook's reason.
func TestHooks(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	h, cs, stop := inProcess(t, mcpserver.Options{Hooks: []tools.Hook{
		{Event: tools.PreToolUse, Matcher: "write_file", Command: "echo 'writes are frozen' >&2; exit 2"},
	}})
	defer stop()
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "f", "content": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(resultText(res), "writes are frozen") {
		t.Fatalf("hook did not refuse: %s", resultText(res))
	}
	if _, err := os.Stat(filepath.Join(h.WorkspaceRoot(), "f")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused write happened")
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_roots"})
	if err != nil || res.IsError {
		t.Fatalf("an unmatched tool was refused: %v %s", err, resultText(res))
	}
}

// TestConcurrentCalls runs many calls at once, with subscriptions being
// made and dropped and the client's roots changing meanwhile: under -race
// this is the server's data-race test (the subprocess tests run a binary
// built without the detector).
func TestConcurrentCalls(t *testing.T) {
	h, cs, client, stop := inProcessClient(t, mcpserver.Options{AllowExec: true})
	defer stop()
	ws := h.WorkspaceRoot()
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 10 {
			client.AddRoots(&mcp.Root{URI: mcpserver.FileURI(t.TempDir())})
		}
	})
	errs := make(chan string, 1000)
	for i := range 16 {
		wg.Go(func() {
			name := fmt.Sprintf("f%d", i)
			uri := mcpserver.FileURI(filepath.Join(ws, name))
			for j := range 10 {
				for _, c := range []*mcp.CallToolParams{
					{Name: "write_file", Arguments: map[string]any{"path": name, "content": fmt.Sprint(j)}},
					{Name: "read_file", Arguments: map[string]any{"path": name}},
					{Name: "edit_file", Arguments: map[string]any{"path": name, "edits": []map[string]any{{"oldText": fmt.Sprint(j), "newText": "x"}}}},
					{Name: "walk", Arguments: map[string]any{}},
					{Name: "list_roots"},
				} {
					res, err := cs.CallTool(ctx, c)
					if err != nil || res.IsError {
						errs <- fmt.Sprintf("%s: %v %s", c.Name, err, resultText(res))
					}
				}
				if j%3 == 0 {
					cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
				} else {
					cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
				}
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "true"}})
			if err != nil || res.IsError {
				errs <- fmt.Sprintf("exec: %v", err)
			}
		}
	})
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	eventually(t, func() string {
		if n := len(h.Roots()); n != 11 {
			return fmt.Sprintf("%d roots, want the workspace and 10 from the client", n)
		}
		return ""
	})
}
