package main

import (
	"context"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/agenthost/agenthost/mcpserver"
)

func init() {
	register("mcp", "serve the jailed host as an MCP server on stdin/stdout ([--allow-exec] for exec and run_capture)", cmdMCP)
}

// mcpMemoryLimit is the Go runtime's soft memory limit for `agent-host
// mcp` when GOMEMLIMIT does not set one: 32 MiB, three times what an idle
// server holds. The transport bounds what is live at a few MiB of replies
// (mcpserver.MaxPendingBytes), but making a reply of 1 MiB allocates about
// 7 MiB (the file, its text, the SDK's two encodings), and with the
// default pacing (GOGC=100) a burst of such replies lets the heap, and the
// RSS, grow to several times what is live before the garbage is collected.
// Near the limit the collector runs sooner; above it (when more than
// 32 MiB is really live, say 64 reads of 16 MiB files at once) it works
// harder but never fails an allocation.
const mcpMemoryLimit = 32 << 20

// cmdMCP serves MCP over stdio until the client closes stdin (or a
// SIGINT/SIGTERM). Everything that is not protocol goes to stderr, which
// MCP clients show in their logs. Exit 0 after a clean end, 1 when the
// session failed, 2 for bad flags or roots.
func cmdMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, hf := newRootsFlagSet("mcp", stderr)
	allowExec := fs.Bool("allow-exec", false, "offer the exec and run_capture tools (sandboxed unless --no-sandbox)")
	maxMsg := fs.Int("max-message-bytes", mcpserver.DefaultMaxMessageBytes, "the longest message (one line) read from the client, in `N` bytes; a longer one is answered with an error naming the limit")
	warn := addSandboxFlags(fs, hf, stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 0 {
		return usageFail(stderr, "mcp", "takes no arguments, got %d", len(pos))
	}
	if *maxMsg <= 0 {
		return usageFail(stderr, "mcp", "--max-message-bytes must be a positive number of bytes, not %d", *maxMsg)
	}
	warn()
	h, err := hf.open()
	if err != nil {
		return fail(stderr, "mcp", err, 2)
	}
	defer h.Close()

	srv, err := mcpserver.New(h, mcpserver.Options{
		AllowExec:       *allowExec,
		MaxMessageBytes: *maxMsg,
		Log:             log.New(stderr, "", log.LstdFlags),
	})
	if err != nil {
		return fail(stderr, "mcp", err, 2)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(mcpMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// stdout is not closed with the session (hidden behind a plain
	// io.Writer): the deferred writes of others may still go there.
	t := &mcpserver.LineTransport{Reader: stdin, Writer: struct{ io.Writer }{stdout}}
	if err := srv.Run(ctx, t); err != nil {
		return fail(stderr, "mcp", err, 1)
	}
	return 0
}
