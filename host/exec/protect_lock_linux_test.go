package exec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRootHoldWaitEnds: a run waiting for another run's hold on its root
// gives up when its context ends (a cancelled MCP call must not wait for
// a long command on the same root) or its timeout passes (ErrRootBusy),
// holding nothing; once the hold is let go the root can be taken.
func TestRootHoldWaitEnds(t *testing.T) {
	ws := t.TempDir()
	release, _, err := lockRoots(context.Background(), []string{ws}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if _, _, err := lockRoots(ctx, []string{ws}, nil, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled wait: %v, want context.DeadlineExceeded", err)
	}
	if _, _, err := lockRoots(context.Background(), []string{ws}, nil, 50*time.Millisecond); !errors.Is(err, ErrRootBusy) {
		t.Errorf("timed-out wait: %v, want ErrRootBusy", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the waits took %s", d)
	}
	release()
	again, _, err := lockRoots(context.Background(), []string{ws}, nil, time.Second)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
}

// TestRootHoldTakesTheDescriptor: given the roots' descriptors, the hold
// is on the directory they opened, whatever its path names now: after the
// root is moved away and another directory put at its path, the new one
// is free and the moved one is held.
func TestRootHoldTakesTheDescriptor(t *testing.T) {
	base := t.TempDir()
	ws, moved := filepath.Join(base, "ws"), filepath.Join(base, "moved")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.Rename(ws, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	release, _, err := lockRoots(context.Background(), []string{ws}, []*os.File{d}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	free, _, err := lockRoots(context.Background(), []string{ws}, nil, time.Second)
	if err != nil {
		t.Fatalf("the directory now at the path is held: %v", err)
	}
	free()
	if _, _, err := lockRoots(context.Background(), []string{moved}, nil, 50*time.Millisecond); !errors.Is(err, ErrRootBusy) {
		t.Errorf("the directory the descriptor opened is not held: %v", err)
	}
}

// TestRootHoldNested: a root inside another run's root, or around it, is
// not taken while that run holds its own (each would take the other's
// plant as its baseline); sibling roots are taken at once.
func TestRootHoldNested(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"ws/sub", "ws/sub2", "other"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := func(d string) []string { return []string{filepath.Join(base, d)} }
	for _, c := range []struct {
		held     string
		busy, ok []string
	}{
		{"ws", []string{"ws/sub", "ws", "."}, []string{"other"}},
		{"ws/sub", []string{"ws", ".", "ws/sub"}, []string{"ws/sub2", "other"}},
	} {
		release, _, err := lockRoots(context.Background(), p(c.held), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range c.busy {
			r, _, err := lockRoots(context.Background(), p(b), nil, 30*time.Millisecond)
			if !errors.Is(err, ErrRootBusy) {
				t.Errorf("%s held: taking %s gives %v, want ErrRootBusy", c.held, b, err)
			}
			if r != nil {
				r()
			}
		}
		for _, o := range c.ok {
			r, _, err := lockRoots(context.Background(), p(o), nil, time.Second)
			if err != nil {
				t.Errorf("%s held: taking %s gives %v", c.held, o, err)
				continue
			}
			r()
		}
		release()
	}
}
