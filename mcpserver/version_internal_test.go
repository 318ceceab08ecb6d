package mcpserver

import (
	"context"
	"io"
	"log"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
)

// TestServerInfoVersion: without Options.Version, serverInfo.version is the
// module's version as the build recorded it (what agent-host --version
// prints), not a fixed "devel"; Options.Version still wins.
func TestServerInfoVersion(t *testing.T) {
	defer func(f func() string) { moduleVersion = f }(moduleVersion)
	moduleVersion = func() string { return "v1.2.3-test" }
	for _, c := range []struct{ opt, want string }{{"", "v1.2.3-test"}, {"v9", "v9"}} {
		h, err := host.New(host.Config{WorkspaceRoot: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := New(h, Options{Version: c.opt, Log: log.New(io.Discard, "", 0)})
		if err != nil {
			t.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx, st) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.InitializeResult().ServerInfo.Version; got != c.want {
			t.Errorf("Options.Version %q: serverInfo.version = %q, want %q", c.opt, got, c.want)
		}
		cs.Close()
		<-done
		cancel()
		h.Close()
	}
}
