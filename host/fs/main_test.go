package fs

import (
	"os"
	"testing"

	"github.com/agenthost/agenthost/internal/testbin"
)

// agentHost is the agent-host binary testbin.Main builds.
var agentHost string

func TestMain(m *testing.M) {
	if args := os.Getenv(killHelperEnv); args != "" {
		os.Exit(killHelper(args)) // a writer for the kill tests, not the tests
	}
	testbin.Main(m, &agentHost)
}
