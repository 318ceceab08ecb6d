package exec

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the sandbox helper when the test binary is started as
// one (SandboxMain), and fails the run if any test leaves a goroutine
// behind: every reader, waiter and timer of a run must be gone when the
// run returns.
func TestMain(m *testing.M) {
	SandboxMain()
	goleak.VerifyTestMain(m)
}
