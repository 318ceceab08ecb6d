package walk

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a walk leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
