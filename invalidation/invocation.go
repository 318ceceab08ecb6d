package invalidation

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// MaxPaths is how many distinct paths one invocation's notice lists before it
// is widened to all paths. A tool that touches more files than this (a
// formatter over the tree, a generator) is better served by one "refresh
// everything" than by a notice that costs its subscribers more to walk than a
// rescan would; 4096 is well above what an editing tool touches in one call.
const MaxPaths = 4096

// lastID numbers invocations across every Publisher of the process, so that
// a parent id from one publisher never collides with a child id of another.
var lastID atomic.Uint64

type ctxKey struct{}

// Invocation collects the changes of one tool invocation until End publishes
// them as one Notice. Its methods are safe for concurrent use, and every
// method is a no-op on a nil *Invocation (what Begin returns for a nil
// Publisher and FromContext returns when there is none), so recorders never
// need to check.
type Invocation struct {
	pub    *Publisher
	id     uint64
	parent uint64
	tool   string

	mu       sync.Mutex
	scope    Scope
	all      bool
	possible bool  // some change recorded was only possible
	causes   uint8 // bit 1<<Cause for each cause recorded
	paths    []string
	pathBuf  [1]string // paths' first backing array: most tools touch one path
	executed bool
	outcome  Outcome
	ended    bool
}

// invocationContext carries an Invocation and is the context Begin returns:
// one allocation holds both.
type invocationContext struct {
	context.Context
	inv Invocation
}

// Value returns the invocation for ctxKey and asks the parent otherwise.
func (c *invocationContext) Value(key any) any {
	if key == (ctxKey{}) {
		return &c.inv
	}
	return c.Context.Value(key)
}

// String names the invocation, like the context package's own types do.
func (c *invocationContext) String() string {
	return "invalidation.Begin(" + strconv.Quote(c.inv.tool) + ")"
}

// Begin starts an invocation of the named tool and returns a context that
// carries it (for FromContext) together with the invocation. The invocation
// current in ctx, if any, becomes its parent: the new one publishes on its own
// End and names the parent in Notice.Parent.
//
// On a nil Publisher, Begin returns ctx unchanged and a nil *Invocation, on
// which every method is a no-op: no allocation, nothing published. Changes
// made under the returned ctx then go to the parent invocation, if any.
//
// The caller must call End exactly once, normally in a defer right after
// Begin (further calls do nothing).
func (p *Publisher) Begin(ctx context.Context, tool string) (context.Context, *Invocation) {
	if p == nil {
		return ctx, nil
	}
	c := &invocationContext{Context: ctx}
	inv := &c.inv
	inv.pub, inv.id, inv.tool, inv.outcome = p, lastID.Add(1), tool, OutcomeReturned
	if parent := FromContext(ctx); parent != nil {
		inv.parent = parent.id
	}
	return c, inv
}

// Run runs fn inside a new invocation of the named tool: it begins the
// invocation, marks it executed, calls fn with a context that carries it, and
// ends it whatever way fn leaves. It returns fn's error. The outcome recorded
// is OutcomeReturned, OutcomeFailed when fn returns an error, and
// OutcomePanicked when fn panics (the notice is published, then the panic goes
// on, unrecovered). On a nil Publisher, Run just calls fn(ctx).
func (p *Publisher) Run(ctx context.Context, tool string, fn func(ctx context.Context) error) (err error) {
	ctx, inv := p.Begin(ctx, tool)
	returned := false
	defer func() {
		switch {
		case !returned: // a panic or runtime.Goexit: recover is not called, so it goes on
			inv.SetOutcome(OutcomePanicked)
		case err != nil:
			inv.SetOutcome(OutcomeFailed)
		}
		inv.End()
	}()
	inv.SetExecuted()
	err = fn(ctx)
	returned = true
	return err
}

// FromContext returns the invocation that ctx carries, or nil when there is
// none (or when Without removed it).
func FromContext(ctx context.Context) *Invocation {
	inv, _ := ctx.Value(ctxKey{}).(*Invocation)
	return inv
}

// Without returns a context that carries no invocation: FromContext on it (and
// on contexts derived from it) returns nil, and Begin under it starts a
// top-level invocation. A runner uses it around work whose changes it records
// itself, such as a hook process whose declared effects it knows better than
// the shell runner does.
func Without(ctx context.Context) context.Context {
	if FromContext(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, (*Invocation)(nil))
}

// ID returns the invocation's id (unique in the process, never 0), or 0 for a
// nil *Invocation.
func (inv *Invocation) ID() uint64 {
	if inv == nil {
		return 0
	}
	return inv.id
}

// Parent returns the id of the invocation that was current when this one
// began, 0 when none was (or for a nil *Invocation).
func (inv *Invocation) Parent() uint64 {
	if inv == nil {
		return 0
	}
	return inv.parent
}

// Tool returns the tool name given to Begin ("" for a nil *Invocation).
func (inv *Invocation) Tool() string {
	if inv == nil {
		return ""
	}
	return inv.tool
}

// Touch records a confirmed change of scope to the given paths: the change was
// made and observed, as the Host's WriteFile, CreateDir and RemoveFile do.
// Paths should be canonical and absolute; they are cleaned, and a path that is
// not absolute cannot be placed, so it widens the notice to all paths (and
// makes it unconfirmed). An empty scope or no paths records nothing. More than
// MaxPaths distinct paths widen the notice to all paths.
//
// Touch after End is not lost: the change is published at once as its own
// notice (Notice.Late). Touch on a nil *Invocation does nothing.
func (inv *Invocation) Touch(scope Scope, paths ...string) {
	if inv == nil || scope == 0 || len(paths) == 0 {
		return
	}
	inv.record(scope, CauseTool, true, false, paths)
}

// MayChange records a possible change of scope to the given paths by cause:
// something ran that may have changed them (a hook declared to write only the
// tool's own paths). Paths are treated as in Touch. An empty scope or no
// paths records nothing; a nil *Invocation does nothing.
func (inv *Invocation) MayChange(scope Scope, cause Cause, paths ...string) {
	if inv == nil || scope == 0 || len(paths) == 0 {
		return
	}
	inv.record(scope, cause, false, false, paths)
}

// MayChangeAll records a possible change of scope to every path by cause:
// something ran whose effects are unknown (a shell command, a hook that
// declared nothing). The notice then covers all paths and is not confirmed.
// An empty scope records nothing; a nil *Invocation does nothing.
func (inv *Invocation) MayChangeAll(scope Scope, cause Cause) {
	if inv == nil || scope == 0 {
		return
	}
	inv.record(scope, cause, false, true, nil)
}

// SetExecuted records that the tool itself was entered (Notice.Executed). A
// runner calls it right before it calls the tool, so that a tool refused
// before it ran publishes Executed false. Nil-safe.
func (inv *Invocation) SetExecuted() {
	if inv == nil {
		return
	}
	inv.mu.Lock()
	inv.executed = true
	inv.mu.Unlock()
}

// SetOutcome records how the invocation ends (Notice.Outcome); the last call
// before End wins, and the default is OutcomeReturned. Nil-safe.
func (inv *Invocation) SetOutcome(o Outcome) {
	if inv == nil {
		return
	}
	inv.mu.Lock()
	inv.outcome = o
	inv.mu.Unlock()
}

func (inv *Invocation) record(scope Scope, cause Cause, confirmed, all bool, paths []string) {
	inv.mu.Lock()
	if inv.ended {
		n := inv.noticeLocked()
		inv.mu.Unlock()
		late := Invocation{scope: scope, causes: 1 << cause, possible: !confirmed}
		late.add(all, paths)
		n.Scope, n.All, n.Paths = late.scope, late.all, late.normalizedPaths()
		n.Confirmed, n.Cause, n.Late = !late.possible && !late.all, late.cause(), true
		inv.pub.publish(n)
		return
	}
	inv.scope |= scope
	inv.causes |= 1 << cause
	if !confirmed {
		inv.possible = true
	}
	inv.add(all, paths)
	inv.mu.Unlock()
}

// add records paths (or all) into inv; the caller holds inv.mu or owns inv.
func (inv *Invocation) add(all bool, paths []string) {
	if inv.all {
		return
	}
	if all {
		inv.all, inv.paths = true, nil
		return
	}
	if inv.paths == nil {
		inv.paths = inv.pathBuf[:0]
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			inv.all, inv.paths = true, nil
			return
		}
		inv.paths = append(inv.paths, filepath.Clean(p))
	}
	if len(inv.paths) > MaxPaths {
		// Duplicates are common (one file written many times): compact
		// before deciding.
		slices.Sort(inv.paths)
		inv.paths = slices.Compact(inv.paths)
		if len(inv.paths) > MaxPaths {
			inv.all, inv.paths = true, nil
		}
	}
}

// normalizedPaths returns inv.paths sorted and deduplicated, nil when all.
func (inv *Invocation) normalizedPaths() []string {
	if inv.all || len(inv.paths) == 0 {
		return nil
	}
	if len(inv.paths) > 1 {
		slices.Sort(inv.paths)
		inv.paths = slices.Compact(inv.paths)
	}
	return slices.Clip(inv.paths)
}

func (inv *Invocation) cause() Cause {
	switch inv.causes {
	case 1 << CauseTool:
		return CauseTool
	case 1 << CauseHook:
		return CauseHook
	default:
		return CauseUnknown
	}
}

// noticeLocked returns the identity part of inv's notice; inv.mu is held.
func (inv *Invocation) noticeLocked() Notice {
	return Notice{
		Invocation: inv.id,
		Parent:     inv.parent,
		Tool:       inv.tool,
		Executed:   inv.executed,
		Outcome:    inv.outcome,
	}
}

// End publishes the invocation's notice, once: later calls do nothing. Call
// it in a defer right after Begin, so that it runs after the tool's cleanup on
// every exit, a panic included (End does not recover: the panic goes on).
//
// An invocation that recorded nothing publishes nothing (a refused tool whose
// hooks never ran has nothing to refresh); so does one whose publisher has no
// subscriber or is closed. Otherwise the notice goes to every subscriber's
// queue without waiting for any of them. End on a nil *Invocation does
// nothing.
func (inv *Invocation) End() {
	if inv == nil {
		return
	}
	inv.mu.Lock()
	if inv.ended {
		inv.mu.Unlock()
		return
	}
	inv.ended = true
	if inv.scope == 0 || inv.pub.nsubs.Load() == 0 {
		inv.paths = nil
		inv.mu.Unlock()
		return
	}
	n := inv.noticeLocked()
	n.Scope, n.All, n.Paths = inv.scope, inv.all, inv.normalizedPaths()
	n.Confirmed, n.Cause = !inv.possible && !inv.all, inv.cause()
	inv.paths = nil // the notice owns them now
	inv.mu.Unlock()
	inv.pub.publish(n)
}
