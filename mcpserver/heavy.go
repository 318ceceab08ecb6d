package mcpserver

import (
	"context"
	"fmt"
)

// heavyTools are the tools whose calls load repositories through the
// walk Cache (ignore files compiled, configuration and index read) and
// walk trees: each holds memory in proportion to the repository for as
// long as it runs. The Cache shares what it has loaded, but calls that
// start together each load the same files before any of them keeps them:
// 64 check_ignore calls in flight on a repository whose rules take 53 MB
// peaked at 370 MB.
var heavyTools = map[string]bool{
	"walk":           true,
	"check_ignore":   true,
	"directory_tree": true,
	"search_files":   true,
}

// maxHeavyCalls is how many heavy calls run at once; the others wait
// their turn (in the order they came, each still cancellable), so that a
// burst of them queues rather than multiplies the memory one takes. Two
// keeps a quick check_ignore from waiting for the whole of one long walk,
// and the server's two threads of work busy.
const maxHeavyCalls = 2

// heavySlots is the semaphore of heavy calls: a token taken for each.
type heavySlots chan struct{}

func newHeavySlots() heavySlots { return make(heavySlots, maxHeavyCalls) }

// enter waits for a turn when name is a heavy tool and returns the
// function that gives it back (a no-op for any other tool). When ctx ends
// first it returns an error saying the call was cancelled while it waited
// (wrapping ctx's error), and no turn is taken.
func (h heavySlots) enter(ctx context.Context, name string) (leave func(), err error) {
	if !heavyTools[name] || h == nil {
		return func() {}, nil
	}
	select {
	case h <- struct{}{}:
		return func() { <-h }, nil
	default:
	}
	select {
	case h <- struct{}{}:
		return func() { <-h }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s cancelled while waiting for the %d calls of walk, check_ignore, directory_tree and search_files in flight: %w", name, maxHeavyCalls, context.Cause(ctx))
	}
}
