package host

import "github.com/agenthost/agenthost/host/walk"

// WalkVerdict is a WalkOptions.Override answer about one entry, as a
// ripgrep -g glob gives it: WalkInclude, WalkExclude or WalkUndecided. It
// is [walk.Verdict]: go doc github.com/agenthost/agenthost/host/walk
// Verdict. Front ends take it from here, not from host/walk.
type WalkVerdict = walk.Verdict

const (
	// WalkUndecided leaves the entry to the hidden and ignore rules (and
	// WalkOptions.Filter).
	WalkUndecided = walk.Undecided
	// WalkInclude lists the entry, and enters a directory, whatever the
	// hidden and ignore rules say.
	WalkInclude = walk.Include
	// WalkExclude leaves the entry out; a directory is not entered.
	WalkExclude = walk.Exclude
)
