package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/mcpserver"
)

// BenchmarkWalkTool is a walk call of the whole tree at
// $MCP_WALK_BENCH_DIR (a plain copy of GOROOT, as bench/mcp -walk uses),
// through the server's own line transport over a pipe, spoken to in raw
// JSON-RPC lines: the server's whole cost of the call, reply written,
// without a process boundary. Skipped when the variable is unset.
func BenchmarkWalkTool(b *testing.B) { benchTreeTool(b, "walk") }

// BenchmarkDirectoryTreeTool is BenchmarkWalkTool for directory_tree.
func BenchmarkDirectoryTreeTool(b *testing.B) { benchTreeTool(b, "directory_tree") }

func benchTreeTool(b *testing.B, tool string) {
	dir := os.Getenv("MCP_WALK_BENCH_DIR")
	if dir == "" {
		b.Skip("MCP_WALK_BENCH_DIR not set")
	}
	h, err := host.New(host.Config{WorkspaceRoot: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	srv, _ := mcpserver.New(h, mcpserver.Options{Log: log.New(io.Discard, "", 0)})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	out := bufio.NewReaderSize(outR, 4<<20)
	send := func(l string) { io.WriteString(inW, l+"\n") }
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if l, err := out.ReadString('\n'); err != nil || !strings.Contains(l, `"result"`) {
		b.Fatalf("initialize: %v %s", err, l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	id := 1
	for b.Loop() {
		id++
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"hidden":true,"maxEntries":50000}}}`, id, tool))
		l, err := out.ReadString('\n')
		if err != nil || !strings.Contains(l[:min(len(l), 100)], `"result"`) || strings.Contains(l, `"isError":true`) {
			b.Fatalf("%s: %v %.300s", tool, err, l)
		}
		b.SetBytes(int64(len(l)))
	}
	b.StopTimer()
	inW.Close()
	<-done
}
