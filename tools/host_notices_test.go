package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/invalidation"
	"github.com/agenthost/agenthost/tools"
)

// TestHostRecordsIntoTheInvocation is one table of Host operations run by a
// tool, each with the notice it must publish: confirmed content/tree changes
// of exactly the canonical paths for the file operations (through a symbolic
// link: the target's path), a possible change of everything for commands,
// nothing for reads and for failed operations.
func TestHostRecordsIntoTheInvocation(t *testing.T) {
	const (
		content = invalidation.ScopeContent
		tree    = invalidation.ScopeTree
	)
	type want struct {
		none      bool
		all       bool
		scope     invalidation.Scope
		paths     []string // relative to the workspace
		confirmed bool
	}
	for _, c := range []struct {
		name string
		op   func(ctx context.Context, h *host.Host) error
		want want
	}{
		{"WriteFile", func(ctx context.Context, h *host.Host) error {
			_, err := h.WriteFile(ctx, "", "a.txt", []byte("a"))
			return err
		}, want{scope: content | tree, paths: []string{"a.txt"}, confirmed: true}},
		{"WriteFile relative to cwd with ..", func(ctx context.Context, h *host.Host) error {
			_, err := h.WriteFile(ctx, "real", "../real/./b.txt", []byte("b"))
			return err
		}, want{scope: content | tree, paths: []string{"real/b.txt"}, confirmed: true}},
		{"WriteFile through a symbolic link", func(ctx context.Context, h *host.Host) error {
			_, err := h.WriteFile(ctx, "", "link.txt", []byte("via link"))
			return err
		}, want{scope: content | tree, paths: []string{"real/target.txt"}, confirmed: true}},
		{"WriteFile through a linked directory", func(ctx context.Context, h *host.Host) error {
			_, err := h.WriteFile(ctx, "", "linkdir/c.txt", []byte("c"))
			return err
		}, want{scope: content | tree, paths: []string{"real/c.txt"}, confirmed: true}},
		{"WriteFile twice", func(ctx context.Context, h *host.Host) error {
			for range 2 {
				if _, err := h.WriteFile(ctx, "", "real/target.txt", []byte("again")); err != nil {
					return err
				}
			}
			return nil
		}, want{scope: content | tree, paths: []string{"real/target.txt"}, confirmed: true}},
		{"CreateDir with parents", func(ctx context.Context, h *host.Host) error {
			return h.CreateDir(ctx, "", "d1/d2", true, false)
		}, want{scope: tree, paths: []string{"d1", "d1/d2"}, confirmed: true}},
		{"RemoveFile", func(ctx context.Context, h *host.Host) error {
			return h.RemoveFile(ctx, "", "real/target.txt")
		}, want{scope: content | tree, paths: []string{"real/target.txt"}, confirmed: true}},
		{"Exec", func(ctx context.Context, h *host.Host) error {
			_, err := h.Exec(ctx, host.ExecRequest{Command: "true"})
			return err
		}, want{all: true, scope: invalidation.ScopeAll}},
		{"RunCapture", func(ctx context.Context, h *host.Host) error {
			_, err := h.RunCapture(ctx, "true", nil, "", 0)
			return err
		}, want{all: true, scope: invalidation.ScopeAll}},
		{"a write and a command", func(ctx context.Context, h *host.Host) error {
			if _, err := h.WriteFile(ctx, "", "a.txt", []byte("a")); err != nil {
				return err
			}
			_, err := h.Exec(ctx, host.ExecRequest{Command: "git status >/dev/null 2>&1; true"})
			return err
		}, want{all: true, scope: invalidation.ScopeAll}},
		{"ReadFile and Stat", func(ctx context.Context, h *host.Host) error {
			if _, err := h.ReadFile(ctx, "", "real/target.txt"); err != nil {
				return err
			}
			_, err := h.Stat(ctx, "", "link.txt")
			return err
		}, want{none: true}},
		{"a write that escapes fails and records nothing", func(ctx context.Context, h *host.Host) error {
			if _, err := h.WriteFile(ctx, "", "../escape.txt", []byte("x")); err == nil {
				return fmt.Errorf("the escape was written")
			}
			return nil
		}, want{none: true}},
		{"a command that cannot start records nothing", func(ctx context.Context, h *host.Host) error {
			if _, err := h.Exec(ctx, host.ExecRequest{Command: "true", Cwd: "missing"}); err == nil {
				return fmt.Errorf("started in a missing cwd")
			}
			return nil
		}, want{none: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if err := os.Mkdir(e.path("real"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(e.path("real/target.txt"), []byte("t"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("real/target.txt", e.path("link.txt")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("real", e.path("linkdir")); err != nil {
				t.Fatal(err)
			}
			tool := funcTool{"Op", func(ctx context.Context, call tools.Call) (json.RawMessage, error) {
				return nil, c.op(ctx, call.Host)
			}}
			if _, err := e.invoker().Invoke(context.Background(), tool, tools.Call{}); err != nil {
				t.Fatal(err)
			}
			ns := e.notices()
			if c.want.none {
				if len(ns) != 0 {
					t.Fatalf("got %+v, want no notice", ns)
				}
				return
			}
			if len(ns) != 1 {
				t.Fatalf("got %d notices, want 1: %+v", len(ns), ns)
			}
			n := ns[0]
			var paths []string
			for _, p := range c.want.paths {
				paths = append(paths, e.path(p))
			}
			if n.All != c.want.all || n.Scope != c.want.scope || !slices.Equal(n.Paths, paths) ||
				n.Confirmed != c.want.confirmed || n.Cause != invalidation.CauseTool || !n.Executed {
				t.Fatalf("notice %+v,\nwant all %v scope %v paths %q confirmed %v", n, c.want.all, c.want.scope, paths, c.want.confirmed)
			}
		})
	}
}

// TestPropertyHostWritesAreCovered: many goroutines invoke a write tool that
// writes random files through the real Host; every file written is covered
// by some notice that each subscriber received, a slow one included. Run it
// under -race.
func TestPropertyHostWritesAreCovered(t *testing.T) {
	e := newEnv(t)
	slow := &recorder{}
	if _, err := e.pub.Subscribe(invalidation.SinkFunc(func(n invalidation.Notice) {
		time.Sleep(100 * time.Microsecond)
		slow.Notify(n)
	}), invalidation.WithQueueLen(2)); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a", "b", "c"} {
		if err := os.Mkdir(e.path(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	iv := e.invoker()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	var mu sync.Mutex
	written := map[string]bool{}
	var wg sync.WaitGroup
	for g := range 6 {
		r := rand.New(rand.NewPCG(seed, uint64(g)))
		wg.Go(func() {
			for range 25 {
				rel := filepath.Join([]string{"a", "b", "c"}[r.IntN(3)], fmt.Sprintf("f%03d.txt", r.IntN(200)))
				if _, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input(rel, fmt.Sprint(r.Int()))}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				written[e.path(rel)] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	ns := e.notices()
	slow.mu.Lock()
	slowNs := slices.Clone(slow.got)
	slow.mu.Unlock()
	for path := range written {
		if _, err := os.Stat(path); err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string][]invalidation.Notice{"fast": ns, "slow": slowNs} {
			if !slices.ContainsFunc(got, func(n invalidation.Notice) bool { return n.Covers(invalidation.ScopeContent, path) }) {
				t.Fatalf("%s subscriber: %s written but not covered", name, path)
			}
		}
	}
	if len(ns) != 150 {
		t.Fatalf("fast subscriber got %d notices, want 150", len(ns))
	}
}

// TestBlockedSubscriberDoesNotHoldTools: with a subscriber blocked in Notify,
// Invoke goes on (each call returns without waiting for it), and once it is
// released it receives notices covering every file written meanwhile.
func TestBlockedSubscriberDoesNotHoldTools(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	entered := make(chan struct{})
	var once sync.Once
	blocked := &recorder{}
	if _, err := e.pub.Subscribe(invalidation.SinkFunc(func(n invalidation.Notice) {
		once.Do(func() { close(entered) })
		<-release
		blocked.Notify(n)
	}), invalidation.WithQueueLen(4)); err != nil {
		t.Fatal(err)
	}
	iv := e.invoker(tools.Hook{Event: tools.PostToolUse, Command: "true", Writes: tools.WritesToolPaths})
	var slowest time.Duration
	for i := range 40 {
		t0 := time.Now()
		if _, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input(fmt.Sprintf("f%d.txt", i), "x")}); err != nil {
			t.Fatal(err)
		}
		slowest = max(slowest, time.Since(t0))
		if i == 0 {
			<-entered
		}
	}
	// A blocking publisher would never get here; the bound only catches that.
	if slowest > 5*time.Second {
		t.Fatalf("slowest Invoke %v", slowest)
	}
	close(release)
	e.notices() // flushes every subscriber, the released one included
	blocked.mu.Lock()
	got := slices.Clone(blocked.got)
	blocked.mu.Unlock()
	if len(got) > 2*4+1 {
		t.Fatalf("the blocked subscriber got %d notices; its queue was not bounded", len(got))
	}
	for i := range 40 {
		p := e.path(fmt.Sprintf("f%d.txt", i))
		if !slices.ContainsFunc(got, func(n invalidation.Notice) bool { return n.Covers(invalidation.ScopeContent, p) }) {
			t.Fatalf("%s not covered after the subscriber unblocked", p)
		}
	}
	t.Logf("slowest Invoke with a blocked subscriber: %v; it then got %d notices", slowest, len(got))
}
