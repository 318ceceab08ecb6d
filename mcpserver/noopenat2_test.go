package mcpserver_test

import (
	"testing"

	"github.com/agenthost/agenthost/internal/escapetable"
)

// TestWithoutOpenat2 runs the MCP escape table and race tests again with
// openat2 switched off, in agent-host too (it inherits the variable): the
// descriptor walk alone must keep every promise over MCP as well.
func TestWithoutOpenat2(t *testing.T) {
	escapetable.RerunWithoutOpenat2(t, "^(TestEscapeTable|TestSendUserFileSwapRace|TestSendUserFileLinkOutside|TestMoveFileRefusesNestedRoot|TestClientRootWithdrawn|TestClientRootSwapRace)$")
}
