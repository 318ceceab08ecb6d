// Package cli is the command line both agent-host programs share: the
// flag parser (flags anywhere, "--" ends them, errors that name the flag),
// the flags that open a Host, and the error voice (one line "agent-host
// NAME: MESSAGE", or with --json one object, and the exit-code table).
// cmd/agent-host and cmd/agent-host-mcp (which agent-host mcp runs) both
// speak through it, so a user meets one program whichever runs.
package cli

import "sync"

// describe is what the usage texts know of a subcommand.
type describe struct{ summary, synopsis string }

var (
	describedMu sync.Mutex
	described   = map[string]describe{}
)

// Describe records subcommand name's one-line summary and its synopsis
// (its usage line after "agent-host "), which PrintUsage and UsageFail
// print. A program calls it once per subcommand, from an init function.
func Describe(name, summary, synopsis string) {
	describedMu.Lock()
	defer describedMu.Unlock()
	described[name] = describe{summary, synopsis}
}

// Synopsis is name's usage line after "agent-host ": what Describe
// recorded, or "NAME [flags]" when it recorded none.
func Synopsis(name string) string {
	describedMu.Lock()
	defer describedMu.Unlock()
	if d, ok := described[name]; ok && d.synopsis != "" {
		return d.synopsis
	}
	return name + " [flags]"
}

// Summary is name's one-line summary as Describe recorded it, "" if none.
func Summary(name string) string {
	describedMu.Lock()
	defer describedMu.Unlock()
	return described[name].summary
}

// MCPSummary and MCPSynopsis describe the mcp subcommand, in agent-host's
// command list and in agent-host-mcp's usage alike.
const (
	MCPSummary  = "serve the jailed host as an MCP server on stdin/stdout ([--allow-exec] for exec and run_capture)"
	MCPSynopsis = "mcp [--root DIR]... [--add-dir DIR]... [--allow-exec] [--max-message-bytes N]"
)
