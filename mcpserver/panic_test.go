package mcpserver

import (
	"bytes"
	"context"
	"log"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/invalidation"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestToolPanicIsAResult: a tool that panics (a bug) gives an error result,
// its invocation still publishes, the stack goes to the log, and the
// session goes on.
func TestToolPanicIsAResult(t *testing.T) {
	h, err := host.New(host.Config{WorkspaceRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var logs lockedBuffer
	pub := &invalidation.Publisher{}
	var notices []invalidation.Notice
	var mu sync.Mutex
	cancel, _ := pub.Subscribe(invalidation.SinkFunc(func(n invalidation.Notice) { mu.Lock(); notices = append(notices, n); mu.Unlock() }))
	defer cancel()
	s, err := New(h, Options{Publisher: pub, Log: log.New(&logs, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	<-s.ready
	addTool(s, &mcp.Tool{Name: "boom", Description: "panics"}, func(ctx context.Context, _ struct{}) (*mcp.CallToolResult, any, error) {
		if _, err := s.h.WriteFile(ctx, "", "before-panic", []byte("x")); err != nil {
			return nil, nil, err
		}
		panic("a bug")
	})
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "boom"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "internal error (a bug)") {
		t.Fatalf("boom: %v %+v", err, res)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_roots"})
	if err != nil || res.IsError {
		t.Fatalf("the session did not go on: %v", err)
	}
	pub.Flush(context.Background())
	mu.Lock()
	if len(notices) != 1 || notices[0].Tool != "boom" || notices[0].Outcome != invalidation.OutcomePanicked {
		t.Errorf("notices = %+v", notices)
	}
	mu.Unlock()
	if !strings.Contains(logs.String(), "boom panicked: a bug") || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("log: %q", logs.String())
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
