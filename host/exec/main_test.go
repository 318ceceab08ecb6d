package exec

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the sandbox helper when the test binary is started as
// one (SandboxMain), and fails the run if any test leaves a goroutine
// behind: every reader, waiter and timer of a run must be gone when the
// run returns. Started by TestLandlockRefused with
// AGENTHOST_TEST_NOLANDLOCK set, it first refuses Landlock to itself and
// every process it starts (refuseLandlock), as a kernel without it would;
// with AGENTHOST_TEST_REFUSE_USERNS set it refuses new user namespaces
// the way Docker's default seccomp profile does (refuseUserNamespaces),
// which works for any uid, unlike the unshare wrapper.
func TestMain(m *testing.M) {
	if err := testRefusals(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	SandboxMain()
	goleak.VerifyTestMain(m)
}
