package fs

import (
	"testing"

	"github.com/agenthost/agenthost/internal/testbin"
)

// agentHost is the agent-host binary testbin.Main builds.
var agentHost string

func TestMain(m *testing.M) {
	runKillHelper() // a writer for the kill tests, when this process is one
	testbin.Main(m, &agentHost)
}
