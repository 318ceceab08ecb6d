// Command hookonly is agent-host hook with nothing else linked in: the same
// call of senduserfile.Hook, in a binary that carries no other subcommand.
// The benchmark runs it next to agent-host hook to tell the hook's own
// cost from the start-up cost of the packages the other subcommands link
// into agent-host (their init functions run before any subcommand).
package main

import (
	"context"
	"io"
	"os"

	"github.com/agenthost/agenthost/tools/senduserfile"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil || len(in) == 0 {
		return
	}
	if out := senduserfile.Hook(context.Background(), in, senduserfile.HookConfig{}); out != nil {
		os.Stdout.Write(out)
	}
}
