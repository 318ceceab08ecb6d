package exec

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: every
// reader, waiter and timer of a run must be gone when the run returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
