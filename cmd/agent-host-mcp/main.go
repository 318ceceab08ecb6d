// Command agent-host-mcp serves the jailed host as an MCP server on
// stdin/stdout. Users run it as "agent-host mcp [flags]": agent-host finds
// this program beside itself (or on PATH) and replaces itself with it,
// passing the flags after "mcp". Run directly, it takes the same flags
// ("agent-host-mcp --root DIR"), not a leading "mcp". It is a program of
// its own so that agent-host does not link the MCP SDK (ADR 0011); both
// install with one go install of ./cmd/... .
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/buildinfo"
	"github.com/agenthost/agenthost/internal/cli"
	"github.com/agenthost/agenthost/mcpserver"
)

func init() {
	cli.Describe("mcp", cli.MCPSummary, cli.MCPSynopsis)
}

func main() {
	host.SandboxMain() // a sandboxed command's helper runs here and never returns
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run serves MCP with args (the flags after "agent-host mcp") and returns
// the exit code; -h or --help (before any "--") prints the usage and
// flags on stdout with exit 0, --version the module version.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		switch a {
		case "-h", "--help", "-help":
			cmdMCP([]string{"--help"}, nil, io.Discard, stdout)
			return cli.ExitOK
		}
	}
	if len(args) == 1 && (args[0] == "--version" || args[0] == "version") {
		fmt.Fprintln(stdout, "agent-host-mcp", version())
		return cli.ExitOK
	}
	return cmdMCP(args, stdin, stdout, &cli.ErrOut{Writer: stderr})
}

// version is the module's version as the build recorded it ("devel" for a
// build from a work tree without one): the same as the MCP server's
// serverInfo.version (see internal/buildinfo).
func version() string { return buildinfo.Version() }

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

// mcpGCPercent is the collector's pacing for `agent-host mcp` when GOGC
// does not set one: 400, so that a big walk (directory_tree of 16,702
// entries) is not collected several times over while the heap is far
// below the memory limit, which still bounds it. Measured on a GOROOT
// copy against the reference server: 0.14× its CPU at 400, 0.19× at the
// default, for a peak of 38 MiB instead of 29 (issue 25; the goal of
// issue 23 is 64 MiB).
const mcpGCPercent = 400

// cmdMCP serves MCP over stdio until the client closes stdin (or a
// SIGINT/SIGTERM). Everything that is not protocol goes to stderr, which
// MCP clients show in their logs. Exit 0 after a clean end, 1 when the
// session failed, 2 for bad flags or roots.
func cmdMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, hf := cli.NewRootsFlagSet("mcp", stderr)
	allowExec := fs.Bool("allow-exec", false, "offer the exec and run_capture tools (sandboxed unless --no-sandbox)")
	maxMsg := fs.Int("max-message-bytes", mcpserver.DefaultMaxMessageBytes, "the longest message (one line) read from the client, in `N` bytes; a longer one is answered with an error naming the limit")
	warn := cli.AddSandboxFlags(fs, &hf.Sandbox, stderr)
	pos, err := cli.ParseArgs(fs, args)
	if err != nil {
		return cli.ExitUsage
	}
	if len(pos) != 0 {
		return cli.UsageFail(stderr, "mcp", "takes no arguments, got %d", len(pos))
	}
	if *maxMsg <= 0 {
		return cli.UsageFail(stderr, "mcp", "--max-message-bytes must be a positive number of bytes, not %d", *maxMsg)
	}
	warn()
	h, err := hf.Open()
	if err != nil {
		return cli.Fail(stderr, "mcp", err, cli.ExitUsage)
	}
	defer h.Close()
	if *allowExec {
		cli.WarnBestEffort(h, stderr)
	}

	srv, err := mcpserver.New(h, mcpserver.Options{
		AllowExec:       *allowExec,
		MaxMessageBytes: *maxMsg,
		Log:             log.New(stderr, "", log.LstdFlags),
	})
	if err != nil {
		return cli.Fail(stderr, "mcp", err, cli.ExitUsage)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(mcpMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mcpGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// stdout is not closed with the session (hidden behind a plain
	// io.Writer): the deferred writes of others may still go there.
	t := &mcpserver.LineTransport{Reader: stdin, Writer: struct{ io.Writer }{stdout}}
	if err := srv.Run(ctx, t); err != nil {
		return cli.Fail(stderr, "mcp", err, cli.ExitOther)
	}
	return cli.ExitOK
}
