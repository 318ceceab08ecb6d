package invalidation

import (
	"slices"
	"strconv"
	"strings"
)

// Scope is a set of kinds of change. The zero Scope is the empty set.
type Scope uint8

const (
	// ScopeContent: the bytes of a file changed.
	ScopeContent Scope = 1 << iota
	// ScopeTree: names changed: a file or directory was created, removed or
	// renamed, or its metadata (mode, times) changed.
	ScopeTree
	// ScopeGit: git metadata changed (the index, HEAD, refs, the stash):
	// whatever shows git status must look again even where no worktree file
	// changed.
	ScopeGit
)

// ScopeAll is every kind of change: content, tree and git metadata.
const ScopeAll = ScopeContent | ScopeTree | ScopeGit

// Has reports whether s holds every kind in t. Has(0) is true.
func (s Scope) Has(t Scope) bool { return s&t == t }

// String returns the kinds joined by "|" ("content|tree|git"), or "none" for
// the empty set.
func (s Scope) String() string {
	if s == 0 {
		return "none"
	}
	var parts []string
	for _, k := range [...]struct {
		bit  Scope
		name string
	}{{ScopeContent, "content"}, {ScopeTree, "tree"}, {ScopeGit, "git"}} {
		if s&k.bit != 0 {
			parts = append(parts, k.name)
		}
	}
	if rest := s &^ ScopeAll; rest != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(uint64(rest), 16))
	}
	return strings.Join(parts, "|")
}

// Cause says who made (or may have made) a change.
type Cause uint8

const (
	// CauseTool: the tool itself, through the Host.
	CauseTool Cause = iota
	// CauseHook: a user's hook run around the tool.
	CauseHook
	// CauseUnknown: several causes were merged, or the recorder could not say.
	CauseUnknown
)

// String returns "tool", "hook" or "unknown".
func (c Cause) String() string {
	switch c {
	case CauseTool:
		return "tool"
	case CauseHook:
		return "hook"
	default:
		return "unknown"
	}
}

// Outcome is how an invocation ended.
type Outcome uint8

const (
	// OutcomeUnknown: the notice merges several invocations that ended
	// differently, or nothing said how it ended.
	OutcomeUnknown Outcome = iota
	// OutcomeReturned: the invocation ended without an error recorded.
	OutcomeReturned
	// OutcomeFailed: the tool (or what ran it) returned an error.
	OutcomeFailed
	// OutcomeRefused: the tool was refused (by a hook or a policy); see
	// Notice.Executed for whether it had been entered.
	OutcomeRefused
	// OutcomePanicked: the invocation ended by a panic, which went on after
	// the notice was published.
	OutcomePanicked
)

// String returns "returned", "failed", "refused", "panicked" or "unknown".
func (o Outcome) String() string {
	switch o {
	case OutcomeReturned:
		return "returned"
	case OutcomeFailed:
		return "failed"
	case OutcomeRefused:
		return "refused"
	case OutcomePanicked:
		return "panicked"
	default:
		return "unknown"
	}
}

// Notice is what a subscriber receives: the parts of the workspace that one
// invocation (or, when Merged > 1, several) changed or may have changed. It
// is a request to refresh, not proof that bytes changed.
//
// The covered region is Scope times (All, or Paths): a superset of every
// change recorded. A Notice is shared between subscribers: do not modify
// Paths.
type Notice struct {
	// Seq is the sequence number the publisher gave this notice: 1, 2, 3, ...
	// per Publisher. For a merged notice it is the last number merged.
	Seq uint64
	// FirstSeq is the first sequence number this notice covers: Seq for an
	// ordinary notice, smaller for a merged one. Each subscriber receives
	// ranges [FirstSeq, Seq] with no gap between them.
	FirstSeq uint64
	// Merged is how many published notices this one stands for: 1 for an
	// ordinary notice, more when a subscriber's queue overflowed and its
	// queued notices were merged into this one.
	Merged int

	// Invocation is the id of the invocation that published the notice
	// (unique in the process, never 0), or 0 when notices of several
	// invocations were merged.
	Invocation uint64
	// Parent is the id of the invocation that was current in the context
	// when this one began, or 0 for a top-level invocation (and when merged
	// from several).
	Parent uint64
	// Tool is the name given to Begin, or "" when merged from several.
	Tool string

	// Scope is the union of the kinds of change recorded; never empty.
	Scope Scope
	// All is true when every path of the workspace (and of any other root)
	// may have changed in Scope; Paths is then nil.
	All bool
	// Paths, when All is false, are the changed paths as recorded (absolute
	// and cleaned; canonical when the recorder canonicalized them, as the
	// Host does), sorted and deduplicated; never empty.
	Paths []string
	// Confirmed is true when every change covered was observed (a write
	// through the Host), false when some part is only possible (a shell
	// command, a hook, a widening). All implies !Confirmed.
	Confirmed bool
	// Cause is who made the changes: CauseTool or CauseHook when all share
	// that cause, CauseUnknown otherwise.
	Cause Cause

	// Executed is true when the tool itself was entered (as opposed to being
	// refused before it ran). Merged: true if any was.
	Executed bool
	// Outcome is how the invocation ended (OutcomeUnknown when merged from
	// invocations that ended differently).
	Outcome Outcome
	// Late is true when the change was recorded after the invocation had
	// ended (a goroutine the tool left running): it is published at once as
	// its own notice rather than lost.
	Late bool
}

// Covers reports whether n asks to refresh path for every kind in scope:
// n.Scope holds scope, and n.All is set or path is one of n.Paths (compared
// exactly, after the recorder's cleaning; path must be cleaned the same way).
func (n *Notice) Covers(scope Scope, path string) bool {
	if scope == 0 || !n.Scope.Has(scope) {
		return false
	}
	if n.All {
		return true
	}
	_, found := slices.BinarySearch(n.Paths, path)
	return found
}

// widen folds src (published after dst) into dst: the union of the scopes
// over all paths, covering both ranges of sequence numbers. It never narrows.
func widen(dst *Notice, src *Notice) {
	dst.FirstSeq = min(dst.FirstSeq, src.FirstSeq)
	dst.Seq = max(dst.Seq, src.Seq)
	dst.Merged += src.Merged
	if dst.Invocation != src.Invocation {
		dst.Invocation, dst.Parent, dst.Tool = 0, 0, ""
	}
	dst.Scope |= src.Scope
	dst.All = true
	dst.Paths = nil
	dst.Confirmed = false
	if dst.Cause != src.Cause {
		dst.Cause = CauseUnknown
	}
	dst.Executed = dst.Executed || src.Executed
	if dst.Outcome != src.Outcome {
		dst.Outcome = OutcomeUnknown
	}
	dst.Late = dst.Late || src.Late
}
