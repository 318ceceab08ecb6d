package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/mcpserver"
)

func init() {
	register("mcp", "serve the jailed host as an MCP server on stdin/stdout ([--allow-exec] for exec and run_capture)", cmdMCP)
}

// cmdMCP serves MCP over stdio until the client closes stdin (or a
// SIGINT/SIGTERM). Everything that is not protocol goes to stderr, which
// MCP clients show in their logs. Exit 0 after a clean end, 1 when the
// session failed, 2 for bad flags or roots.
func cmdMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, hf := newRootsFlagSet("mcp", stderr)
	allowExec := fs.Bool("allow-exec", false, "offer the exec and run_capture tools (commands are not confined by the jail)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 0 {
		fmt.Fprintln(stderr, "usage: agent-host mcp [--root DIR]... [--add-dir DIR]... [--allow-exec]")
		return 2
	}
	h, err := hf.open()
	if err != nil {
		return fail(stderr, "mcp", err, 2)
	}
	defer h.Close()

	srv, err := mcpserver.New(h, mcpserver.Options{
		AllowExec: *allowExec,
		Log:       log.New(stderr, "", log.LstdFlags),
	})
	if err != nil {
		return fail(stderr, "mcp", err, 2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := srv.Run(ctx, t); err != nil {
		return fail(stderr, "mcp", err, 1)
	}
	return 0
}

// nopWriteCloser is stdout for the transport: closing the session must not
// close the process's stdout under the deferred writes of others.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
