package invalidation_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agenthost/agenthost/invalidation"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// recorder is a Sink that keeps every notice it receives.
type recorder struct {
	mu  sync.Mutex
	got []invalidation.Notice
}

func (r *recorder) Notify(n invalidation.Notice) {
	r.mu.Lock()
	r.got = append(r.got, n)
	r.mu.Unlock()
}

func (r *recorder) notices() []invalidation.Notice {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// newPublisher returns a publisher with the given subscribers, closed (and
// checked to close in time) when the test ends.
func newPublisher(t *testing.T, qlen int, sinks ...invalidation.Sink) *invalidation.Publisher {
	t.Helper()
	p := &invalidation.Publisher{QueueLen: qlen, OnPanic: func(*invalidation.PanicError) {}}
	for _, s := range sinks {
		if _, err := p.Subscribe(s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

func flush(t *testing.T, p *invalidation.Publisher) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// checkContiguous checks that ns cover the sequence numbers first..last, in
// order, with no gap and no overlap.
func checkContiguous(t *testing.T, name string, ns []invalidation.Notice, first, last uint64) {
	t.Helper()
	next := first
	for _, n := range ns {
		if n.FirstSeq != next || n.Seq < n.FirstSeq {
			t.Fatalf("%s: notice [%d,%d], want it to start at %d", name, n.FirstSeq, n.Seq, next)
		}
		if want := int(n.Seq - n.FirstSeq + 1); n.Merged != want {
			t.Fatalf("%s: notice [%d,%d] says Merged %d, want %d", name, n.FirstSeq, n.Seq, n.Merged, want)
		}
		next = n.Seq + 1
	}
	if next != last+1 {
		t.Fatalf("%s: received up to %d, want %d", name, next-1, last)
	}
}

func covered(ns []invalidation.Notice, scope invalidation.Scope, path string) bool {
	for i := range ns {
		if ns[i].Covers(scope, path) {
			return true
		}
	}
	return false
}

func TestScopeString(t *testing.T) {
	for _, c := range []struct {
		s    invalidation.Scope
		want string
	}{
		{0, "none"},
		{invalidation.ScopeContent, "content"},
		{invalidation.ScopeTree | invalidation.ScopeGit, "tree|git"},
		{invalidation.ScopeAll, "content|tree|git"},
		{invalidation.ScopeContent | 0x80, "content|0x80"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("Scope(%d).String() = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestNoticeCovers(t *testing.T) {
	paths := invalidation.Notice{Scope: invalidation.ScopeContent | invalidation.ScopeTree, Paths: []string{"/a", "/b/c"}}
	all := invalidation.Notice{Scope: invalidation.ScopeGit, All: true}
	for _, c := range []struct {
		n     invalidation.Notice
		scope invalidation.Scope
		path  string
		want  bool
	}{
		{paths, invalidation.ScopeContent, "/a", true},
		{paths, invalidation.ScopeContent | invalidation.ScopeTree, "/b/c", true},
		{paths, invalidation.ScopeContent, "/b", false},
		{paths, invalidation.ScopeGit, "/a", false},
		{paths, 0, "/a", false},
		{all, invalidation.ScopeGit, "/anything", true},
		{all, invalidation.ScopeContent, "/anything", false},
	} {
		if got := c.n.Covers(c.scope, c.path); got != c.want {
			t.Errorf("%+v.Covers(%v, %q) = %v, want %v", c.n, c.scope, c.path, got, c.want)
		}
	}
}

// TestInvocationNotice is one table of recordings and the notice each must
// publish (or none).
func TestInvocationNotice(t *testing.T) {
	const (
		content = invalidation.ScopeContent
		tree    = invalidation.ScopeTree
		git     = invalidation.ScopeGit
	)
	many := make([]string, invalidation.MaxPaths+1)
	for i := range many {
		many[i] = fmt.Sprintf("/w/f%05d", i)
	}
	type want struct {
		scope     invalidation.Scope
		all       bool
		paths     []string
		confirmed bool
		cause     invalidation.Cause
	}
	for _, c := range []struct {
		name   string
		record func(inv *invalidation.Invocation)
		want   *want // nil: no notice
	}{
		{"nothing recorded", func(*invalidation.Invocation) {}, nil},
		{"empty scope or no paths", func(inv *invalidation.Invocation) {
			inv.Touch(0, "/a")
			inv.Touch(content)
			inv.MayChange(0, invalidation.CauseHook, "/a")
			inv.MayChangeAll(0, invalidation.CauseHook)
		}, nil},
		{"touch: cleaned, sorted, deduplicated", func(inv *invalidation.Invocation) {
			inv.Touch(content, "/w/b", "/w/a", "/w/b")
			inv.Touch(tree, "/w/x/../c", "/w/a/")
		}, &want{content | tree, false, []string{"/w/a", "/w/b", "/w/c"}, true, invalidation.CauseTool}},
		{"a relative path widens and is not confirmed", func(inv *invalidation.Invocation) {
			inv.Touch(content, "/w/a", "rel/b")
		}, &want{content, true, nil, false, invalidation.CauseTool}},
		{"possible change of paths", func(inv *invalidation.Invocation) {
			inv.MayChange(content|tree, invalidation.CauseHook, "/w/a")
		}, &want{content | tree, false, []string{"/w/a"}, false, invalidation.CauseHook}},
		{"confirmed plus possible is not confirmed", func(inv *invalidation.Invocation) {
			inv.Touch(content, "/w/a")
			inv.MayChange(content, invalidation.CauseTool, "/w/b")
		}, &want{content, false, []string{"/w/a", "/w/b"}, false, invalidation.CauseTool}},
		{"a hook that may write anywhere", func(inv *invalidation.Invocation) {
			inv.MayChangeAll(invalidation.ScopeAll, invalidation.CauseHook)
		}, &want{invalidation.ScopeAll, true, nil, false, invalidation.CauseHook}},
		{"a write, then a shell command", func(inv *invalidation.Invocation) {
			inv.Touch(content, "/w/a")
			inv.MayChangeAll(git, invalidation.CauseHook)
			inv.Touch(content, "/w/b")
		}, &want{content | git, true, nil, false, invalidation.CauseUnknown}},
		{"more than MaxPaths widens", func(inv *invalidation.Invocation) {
			inv.Touch(content, many...)
		}, &want{content, true, nil, false, invalidation.CauseTool}},
		{"MaxPaths exactly does not", func(inv *invalidation.Invocation) {
			inv.Touch(content, many[:invalidation.MaxPaths]...)
		}, &want{content, false, many[:invalidation.MaxPaths], true, invalidation.CauseTool}},
		{"one path many times does not", func(inv *invalidation.Invocation) {
			for range invalidation.MaxPaths + 10 {
				inv.Touch(content, "/w/same")
			}
		}, &want{content, false, []string{"/w/same"}, true, invalidation.CauseTool}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{}
			p := newPublisher(t, 0, rec)
			_, inv := p.Begin(context.Background(), "Edit")
			c.record(inv)
			inv.End()
			inv.End() // a second End does nothing
			flush(t, p)
			got := rec.notices()
			if c.want == nil {
				if len(got) != 0 {
					t.Fatalf("got %+v, want no notice", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d notices, want 1", len(got))
			}
			n := got[0]
			w := c.want
			if n.Scope != w.scope || n.All != w.all || !slices.Equal(n.Paths, w.paths) ||
				n.Confirmed != w.confirmed || n.Cause != w.cause {
				t.Fatalf("got scope %v all %v paths %d %.80q confirmed %v cause %v,\nwant scope %v all %v paths %d %.80q confirmed %v cause %v",
					n.Scope, n.All, len(n.Paths), n.Paths, n.Confirmed, n.Cause,
					w.scope, w.all, len(w.paths), w.paths, w.confirmed, w.cause)
			}
			if n.Invocation != inv.ID() || n.Invocation == 0 || n.Parent != 0 || n.Tool != "Edit" ||
				n.Seq != 1 || n.FirstSeq != 1 || n.Merged != 1 || n.Late {
				t.Fatalf("identity: %+v", n)
			}
		})
	}
}

// TestEveryExit: the notice is published after cleanup on a normal return,
// an error, a refusal and a panic, and the panic goes on.
func TestEveryExit(t *testing.T) {
	boom := errors.New("boom")
	for _, c := range []struct {
		name      string
		fn        func(ctx context.Context) error
		wantErr   error
		wantPanic bool
		outcome   invalidation.Outcome
	}{
		{"return", func(ctx context.Context) error { return nil }, nil, false, invalidation.OutcomeReturned},
		{"error", func(ctx context.Context) error { return boom }, boom, false, invalidation.OutcomeFailed},
		{"refusal", func(ctx context.Context) error {
			invalidation.FromContext(ctx).SetOutcome(invalidation.OutcomeRefused)
			return nil
		}, nil, false, invalidation.OutcomeRefused},
		{"panic", func(ctx context.Context) error { panic("tool panicked") }, nil, true, invalidation.OutcomePanicked},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{}
			p := newPublisher(t, 0, rec)
			var err error
			panicked := func() (v any) {
				defer func() { v = recover() }()
				err = p.Run(context.Background(), "Write", func(ctx context.Context) error {
					inv := invalidation.FromContext(ctx)
					inv.Touch(invalidation.ScopeContent, "/w/main.go")
					// Cleanup runs before the notice is built, on every exit.
					defer inv.Touch(invalidation.ScopeTree, "/w/cleanup.tmp")
					return c.fn(ctx)
				})
				return nil
			}()
			if (panicked != nil) != c.wantPanic || (c.wantPanic && panicked != "tool panicked") {
				t.Fatalf("panic = %v, want panic %v", panicked, c.wantPanic)
			}
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			flush(t, p)
			got := rec.notices()
			if len(got) != 1 {
				t.Fatalf("got %d notices, want 1", len(got))
			}
			n := got[0]
			if n.Outcome != c.outcome || !n.Executed || n.Late ||
				!slices.Equal(n.Paths, []string{"/w/cleanup.tmp", "/w/main.go"}) ||
				n.Scope != invalidation.ScopeContent|invalidation.ScopeTree {
				t.Fatalf("got %+v, want outcome %v with the cleanup's path", n, c.outcome)
			}
		})
	}
}

func TestNested(t *testing.T) {
	rec := &recorder{}
	p := newPublisher(t, 0, rec)
	ctx, parent := p.Begin(context.Background(), "Task")
	parent.SetExecuted()
	func() {
		defer func() { _ = recover() }()
		_ = p.Run(ctx, "Write", func(ctx context.Context) error {
			invalidation.FromContext(ctx).Touch(invalidation.ScopeContent, "/w/child")
			panic("child panicked")
		})
	}()
	invalidation.FromContext(ctx).Touch(invalidation.ScopeContent, "/w/parent")
	parent.End()
	flush(t, p)

	got := rec.notices()
	if len(got) != 2 {
		t.Fatalf("got %d notices, want 2: %+v", len(got), got)
	}
	child, par := got[0], got[1]
	if child.Parent != parent.ID() || child.Tool != "Write" || child.Outcome != invalidation.OutcomePanicked ||
		!slices.Equal(child.Paths, []string{"/w/child"}) || child.Seq >= par.Seq {
		t.Errorf("child notice %+v", child)
	}
	if par.Invocation != parent.ID() || par.Parent != 0 || !slices.Equal(par.Paths, []string{"/w/parent"}) ||
		par.Outcome != invalidation.OutcomeReturned {
		t.Errorf("parent notice %+v", par)
	}
}

func TestLateTouchIsPublished(t *testing.T) {
	rec := &recorder{}
	p := newPublisher(t, 0, rec)
	_, inv := p.Begin(context.Background(), "Bash")
	inv.Touch(invalidation.ScopeContent, "/w/a")
	inv.End()
	inv.Touch(invalidation.ScopeTree, "/w/late", "/w/late") // a goroutine the tool left behind
	inv.MayChangeAll(invalidation.ScopeGit, invalidation.CauseUnknown)
	flush(t, p)
	got := rec.notices()
	if len(got) != 3 {
		t.Fatalf("got %d notices, want 3: %+v", len(got), got)
	}
	if got[0].Late || !got[1].Late || !got[2].Late {
		t.Fatalf("Late flags: %+v", got)
	}
	if !slices.Equal(got[1].Paths, []string{"/w/late"}) || !got[1].Confirmed || got[1].Invocation != inv.ID() {
		t.Errorf("late touch: %+v", got[1])
	}
	if !got[2].All || got[2].Confirmed || got[2].Scope != invalidation.ScopeGit || got[2].Cause != invalidation.CauseUnknown {
		t.Errorf("late MayChangeAll: %+v", got[2])
	}
}

func TestNilPublisherAndInvocation(t *testing.T) {
	var p *invalidation.Publisher
	ctx := context.Background()
	ctx2, inv := p.Begin(ctx, "Edit")
	if ctx2 != ctx || inv != nil {
		t.Fatalf("Begin on nil Publisher = %v, %v; want ctx unchanged and nil", ctx2, inv)
	}
	if invalidation.FromContext(ctx) != nil {
		t.Fatal("FromContext of a bare context is not nil")
	}
	// Every method of a nil *Invocation is a no-op.
	inv.Touch(invalidation.ScopeContent, "/a")
	inv.MayChange(invalidation.ScopeContent, invalidation.CauseHook, "/a")
	inv.MayChangeAll(invalidation.ScopeAll, invalidation.CauseHook)
	inv.SetExecuted()
	inv.SetOutcome(invalidation.OutcomeFailed)
	inv.End()
	if inv.ID() != 0 || inv.Parent() != 0 || inv.Tool() != "" {
		t.Fatal("nil Invocation accessors")
	}
	called := false
	if err := p.Run(ctx, "Edit", func(c context.Context) error { called = c == ctx; return nil }); err != nil || !called {
		t.Fatalf("Run on nil Publisher: err %v, called with ctx %v", err, called)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if p.Stats() != (invalidation.Stats{}) {
		t.Fatal("nil Stats")
	}
}

func TestWithout(t *testing.T) {
	rec := &recorder{}
	p := newPublisher(t, 0, rec)
	ctx, outer := p.Begin(context.Background(), "Outer")
	defer outer.End()
	bare := invalidation.Without(ctx)
	if invalidation.FromContext(bare) != nil {
		t.Fatal("Without: FromContext is not nil")
	}
	if invalidation.Without(context.Background()) != context.Background() {
		t.Fatal("Without on a context with no invocation should return it unchanged")
	}
	_, inner := p.Begin(bare, "Inner")
	if inner.Parent() != 0 {
		t.Fatalf("Begin under Without: parent %d, want 0", inner.Parent())
	}
	inner.End()
}

func TestPublisherWithoutSubscriberPublishesNothing(t *testing.T) {
	p := newPublisher(t, 0)
	_, inv := p.Begin(context.Background(), "Edit")
	inv.Touch(invalidation.ScopeContent, "/w/a")
	inv.End()
	if st := p.Stats(); st.Published != 0 {
		t.Fatalf("published %d with no subscriber", st.Published)
	}
	// A subscriber that joins later gets the later invocations, numbered from 1.
	rec := &recorder{}
	if _, err := p.Subscribe(rec); err != nil {
		t.Fatal(err)
	}
	_, inv = p.Begin(context.Background(), "Edit")
	inv.Touch(invalidation.ScopeContent, "/w/b")
	inv.End()
	flush(t, p)
	checkContiguous(t, "late subscriber", rec.notices(), 1, 1)
}

func TestOrderAcrossGoroutines(t *testing.T) {
	fast, slow := &recorder{}, &recorder{}
	slowSink := invalidation.SinkFunc(func(n invalidation.Notice) {
		time.Sleep(50 * time.Microsecond)
		slow.Notify(n)
	})
	p := newPublisher(t, 4, fast, slowSink)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 300 {
				_, inv := p.Begin(context.Background(), "Write")
				inv.Touch(invalidation.ScopeContent, fmt.Sprintf("/w/%d/%d", g, i))
				inv.End()
			}
		})
	}
	wg.Wait()
	flush(t, p)
	last := p.Stats().Published
	if last != 1200 {
		t.Fatalf("published %d, want 1200", last)
	}
	checkContiguous(t, "fast", fast.notices(), 1, last)
	checkContiguous(t, "slow", slow.notices(), 1, last)
	for _, r := range []*recorder{fast, slow} {
		ns := r.notices()
		for g := range 4 {
			for i := range 300 {
				if p := fmt.Sprintf("/w/%d/%d", g, i); !covered(ns, invalidation.ScopeContent, p) {
					t.Fatalf("%s not covered", p)
				}
			}
		}
	}
}

// TestBlockedSubscriber: a subscriber that blocks does not slow the tools,
// and once it unblocks it receives notices covering everything published
// meanwhile.
func TestBlockedSubscriber(t *testing.T) {
	release := make(chan struct{})
	blocked := &recorder{}
	var once sync.Once
	entered := make(chan struct{})
	blocker := invalidation.SinkFunc(func(n invalidation.Notice) {
		once.Do(func() { close(entered) })
		<-release
		blocked.Notify(n)
	})
	healthy := &recorder{}
	p := newPublisher(t, 8, blocker, healthy)

	const n = 20000
	var slowest time.Duration
	start := time.Now()
	for i := range n {
		t0 := time.Now()
		_, inv := p.Begin(context.Background(), "Write")
		inv.Touch(invalidation.ScopeContent, fmt.Sprintf("/w/f%d", i))
		if i%1000 == 0 {
			inv.MayChangeAll(invalidation.ScopeGit, invalidation.CauseHook)
		}
		inv.End()
		slowest = max(slowest, time.Since(t0))
		if i == 0 {
			<-entered // the blocker now holds notice 1 and will not return
		}
	}
	elapsed := time.Since(start)
	t.Logf("%d invocations with a blocked subscriber: %v, slowest %v, %d widenings", n, elapsed, slowest, p.Stats().Widened)
	// The blocked subscriber would hold a blocking publisher forever; these
	// bounds only catch that (the benchmarks measure the speed).
	if slowest > 2*time.Second || elapsed > 10*time.Second {
		t.Fatalf("publishing was held up: slowest End %v, total %v", slowest, elapsed)
	}
	if p.Stats().Widened == 0 {
		t.Fatal("a blocked subscriber's queue was never merged")
	}
	// While blocked, the healthy subscriber goes on.
	flushCtx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	err := p.Flush(flushCtx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Flush with a blocked subscriber = %v, want deadline exceeded", err)
	}

	close(release)
	flush(t, p)
	for name, r := range map[string]*recorder{"blocked": blocked, "healthy": healthy} {
		ns := r.notices()
		checkContiguous(t, name, ns, 1, n)
		for i := range n {
			if p := fmt.Sprintf("/w/f%d", i); !covered(ns, invalidation.ScopeContent, p) {
				t.Fatalf("%s: %s not covered", name, p)
			}
		}
		if !covered(ns, invalidation.ScopeGit, "/w/f1") {
			t.Fatalf("%s: git scope lost", name)
		}
		if name == "blocked" && len(ns) > 2*8+1 {
			t.Fatalf("blocked subscriber got %d notices; its queue was not bounded", len(ns))
		}
	}
}

func TestPanickingSubscriber(t *testing.T) {
	var mu sync.Mutex
	var reported []*invalidation.PanicError
	calls := 0
	panicky := invalidation.SinkFunc(func(n invalidation.Notice) {
		mu.Lock()
		calls++
		mu.Unlock()
		if n.Seq%2 == 0 {
			panic(fmt.Sprintf("sink broke on %d", n.Seq))
		}
	})
	healthy := &recorder{}
	p := &invalidation.Publisher{OnPanic: func(e *invalidation.PanicError) {
		mu.Lock()
		reported = append(reported, e)
		mu.Unlock()
		panic("and the reporter panics too") // recovered and ignored
	}}
	defer func() { _ = p.Close(context.Background()) }()
	for _, s := range []invalidation.Sink{panicky, healthy} {
		if _, err := p.Subscribe(s); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 100 {
		_ = p.Run(context.Background(), "Write", func(ctx context.Context) error {
			invalidation.FromContext(ctx).Touch(invalidation.ScopeContent, fmt.Sprintf("/w/%d", i))
			return nil
		})
		if i%10 == 0 {
			runtime.Gosched()
		}
	}
	flush(t, p)
	checkContiguous(t, "healthy", healthy.notices(), 1, 100)
	mu.Lock()
	defer mu.Unlock()
	if len(reported) == 0 || uint64(len(reported)) != p.Stats().Panics {
		t.Fatalf("reported %d panics, Stats says %d", len(reported), p.Stats().Panics)
	}
	if calls < len(reported) || !strings.Contains(reported[0].Error(), "sink broke on") || len(reported[0].Stack) == 0 {
		t.Fatalf("calls %d, first report %v", calls, reported[0])
	}
}

func TestGoexitSinkIsUnsubscribed(t *testing.T) {
	healthy := &recorder{}
	var reports sync.WaitGroup
	reports.Add(1)
	p := &invalidation.Publisher{OnPanic: func(*invalidation.PanicError) { reports.Done() }}
	defer func() { _ = p.Close(context.Background()) }()
	if _, err := p.Subscribe(invalidation.SinkFunc(func(invalidation.Notice) { runtime.Goexit() })); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Subscribe(healthy); err != nil {
		t.Fatal(err)
	}
	_ = p.Run(context.Background(), "W", func(ctx context.Context) error {
		invalidation.FromContext(ctx).Touch(invalidation.ScopeContent, "/w/a")
		return nil
	})
	reports.Wait()
	if got := p.Stats().Subscribers; got != 1 {
		t.Fatalf("subscribers after a Goexit: %d, want 1", got)
	}
	flush(t, p)
	checkContiguous(t, "healthy", healthy.notices(), 1, 1)
}

func TestCloseDrainsAndCancelStops(t *testing.T) {
	drained := &recorder{}
	slow := invalidation.SinkFunc(func(n invalidation.Notice) {
		time.Sleep(time.Millisecond)
		drained.Notify(n)
	})
	cancelled := &recorder{}
	p := &invalidation.Publisher{}
	if _, err := p.Subscribe(slow); err != nil {
		t.Fatal(err)
	}
	cancel, err := p.Subscribe(cancelled)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	cancel() // twice is fine
	for i := range 20 {
		_, inv := p.Begin(context.Background(), "Write")
		inv.Touch(invalidation.ScopeContent, fmt.Sprintf("/w/%d", i))
		inv.End()
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkContiguous(t, "drained", drained.notices(), 1, 20)
	if got := cancelled.notices(); len(got) != 0 {
		t.Fatalf("a cancelled subscriber received %d notices", len(got))
	}
	if _, err := p.Subscribe(drained); !errors.Is(err, invalidation.ErrClosed) {
		t.Fatalf("Subscribe after Close = %v, want ErrClosed", err)
	}
	_, inv := p.Begin(context.Background(), "Write") // publishing after Close is a no-op
	inv.Touch(invalidation.ScopeContent, "/w/after")
	inv.End()
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(drained.notices()); got != 20 {
		t.Fatalf("after Close: %d notices", got)
	}
}

func TestCloseIsBoundedByContext(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	p := &invalidation.Publisher{}
	if _, err := p.Subscribe(invalidation.SinkFunc(func(invalidation.Notice) {
		close(entered)
		<-release
	})); err != nil {
		t.Fatal(err)
	}
	_, inv := p.Begin(context.Background(), "Write")
	inv.Touch(invalidation.ScopeContent, "/w/a")
	inv.End()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close with a stuck sink = %v, want deadline exceeded", err)
	}
	close(release)
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
