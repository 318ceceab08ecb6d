package exec

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRootHoldWaitEnds: a run waiting for another run's hold on its root
// gives up when its context ends (a cancelled MCP call must not wait for
// a long command on the same root) or its timeout passes (ErrRootBusy),
// holding nothing; once the hold is let go the root can be taken.
func TestRootHoldWaitEnds(t *testing.T) {
	ws := t.TempDir()
	release, err := lockRoots(context.Background(), []string{ws}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if _, err := lockRoots(ctx, []string{ws}, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled wait: %v, want context.DeadlineExceeded", err)
	}
	if _, err := lockRoots(context.Background(), []string{ws}, 50*time.Millisecond); !errors.Is(err, ErrRootBusy) {
		t.Errorf("timed-out wait: %v, want ErrRootBusy", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the waits took %s", d)
	}
	release()
	again, err := lockRoots(context.Background(), []string{ws}, time.Second)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
}
