package netproxy

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a test leaves a goroutine behind: every
// connection of a Server must be gone once Close (or its context's end)
// returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
