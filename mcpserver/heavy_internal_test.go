package mcpserver

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A heavy call waits while maxHeavyCalls others run, and returns at once,
// with an error wrapping its context's, when the context ends first;
// another tool never waits; a turn given back lets the next one in.
func TestHeavySlots(t *testing.T) {
	h := newHeavySlots()
	var leaves []func()
	for range maxHeavyCalls {
		leave, err := h.enter(context.Background(), "walk")
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, leave)
	}
	if leave, err := h.enter(context.Background(), "read_file"); err != nil {
		t.Fatalf("read_file waited: %v", err)
	} else {
		leave()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := h.enter(ctx, "check_ignore"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a third heavy call: %v, want it to wait and give up with its context", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 5*time.Second {
		t.Fatalf("gave up after %v, want at its 50 ms deadline", d)
	}
	got := make(chan error, 1)
	go func() {
		leave, err := h.enter(context.Background(), "check_ignore")
		if err == nil {
			leave()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("entered with every turn taken: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	leaves[0]()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a turn given back did not let the waiting call in")
	}
	leaves[1]()
}
