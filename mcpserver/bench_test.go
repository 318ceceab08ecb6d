package mcpserver_test

import (
	"context"
	"io"
	"log"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/mcpserver"
)

// BenchmarkNew measures building a Server up to its tools being registered
// (MCP waits for that): the schema inference start-up takes off the path
// to the initialize result.
func BenchmarkNew(b *testing.B) {
	h, err := host.New(host.Config{WorkspaceRoot: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	for b.Loop() {
		s, err := mcpserver.New(h, mcpserver.Options{AllowExec: true, Log: log.New(io.Discard, "", 0)})
		if err != nil {
			b.Fatal(err)
		}
		s.MCP()
	}
}

// BenchmarkReadFileInProcess is a read_file call through the SDK's client
// and server on in-memory transports: the protocol's cost without a
// process boundary (bench/mcp measures it across one).
func BenchmarkReadFileInProcess(b *testing.B) {
	ws := b.TempDir()
	h, err := host.New(host.Config{WorkspaceRoot: ws})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	if _, err := h.WriteFile(context.Background(), "", "small.txt", []byte("hello, world\n")); err != nil {
		b.Fatal(err)
	}
	srv, _ := mcpserver.New(h, mcpserver.Options{Log: log.New(io.Discard, "", 0)})
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "small.txt"}}
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cs.Close()
	<-done
}
