package jail

import (
	"errors"
	"os"
	"testing"
	"time"
)

// TestOperationPanicReleasesJail: an operation that panics inside Do must
// not keep the jail busy (Close would hang), and the jail must refuse
// operations once closed.
func TestOperationPanicReleasesJail(t *testing.T) {
	j, err := New(t.TempDir(), nil, Jailed, "")
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() { recover() }()
		j.Do("", "x", false, func(*Location) error { panic("boom") })
	}()
	done := make(chan struct{})
	go func() { j.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung after a panicking operation")
	}
	if err := j.Do("", "x", false, func(*Location) error { return nil }); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}
