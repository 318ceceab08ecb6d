package exec

import "time"

// The default limits. Each is what a zero field of Limits means.
const (
	// DefaultTimeout is the timeout of a run that asks for none: 2 minutes,
	// the default of Claude Code's Bash tool (120,000 ms), long enough for
	// a typical build or test run, short enough that a hung command gives
	// the agent its turn back.
	DefaultTimeout = 2 * time.Minute

	// DefaultMaxTimeout is the largest timeout a run may ask for: 10
	// minutes, the maximum of Claude Code's Bash tool (600,000 ms). A larger
	// request is clamped to it, not refused.
	DefaultMaxTimeout = 10 * time.Minute

	// DefaultMaxOutputBytes is how much of each stream the caller gets back:
	// 30,000 bytes, the output cap of Claude Code's Bash tool (30,000
	// characters), about 8k tokens, what a model can read without drowning.
	DefaultMaxOutputBytes = 30000

	// DefaultKillGrace is the time between SIGTERM and SIGKILL on a timeout
	// or a cancellation: 2 seconds, long enough for a test runner or a
	// server to flush its output and remove its temporary files, short
	// enough that a cancel still feels immediate.
	DefaultKillGrace = 2 * time.Second

	// DefaultDrainGrace is how long output is still read after the
	// command's leader (the shell, or the program of RunCapture) has
	// exited while some other process still holds the pipes, and again
	// after the process group was killed, before the pipes are closed
	// under a process that escaped the group: 250 ms. Output written
	// before the leader exited is already in the pipe and is read at once;
	// the grace only covers a background job racing the shell's exit, so
	// it is short: a command that ends in `server &` returns after about
	// this long.
	DefaultDrainGrace = 250 * time.Millisecond

	// minOutputBytes is the smallest MaxOutputBytes honoured: a smaller
	// value is raised to it, so the omission marker always fits with
	// some head and tail around it.
	minOutputBytes = 256
)

// Limits bounds a run. The zero value of a field means its default (the
// Default* constants); Runner.Limits reports the values in force.
type Limits struct {
	// DefaultTimeout is the timeout of a run that asks for none (a zero or
	// negative Request.Timeout). It is clamped to MaxTimeout.
	DefaultTimeout time.Duration
	// MaxTimeout is the largest timeout a run gets; a larger request is
	// clamped to it.
	MaxTimeout time.Duration
	// MaxOutputBytes caps each stream the caller gets back (Stdout,
	// Stderr, Combined), in bytes of the returned UTF-8 string, the
	// omission marker included. Reading never stops: what does not fit is
	// dropped from the middle, keeping the head and the tail. Values below
	// 256 are raised to 256.
	MaxOutputBytes int
	// KillGrace is the time between SIGTERM and SIGKILL to the process
	// group on a timeout or a cancellation.
	KillGrace time.Duration
	// DrainGrace is how long output is still read once the leader has
	// exited (see DefaultDrainGrace).
	DrainGrace time.Duration
}

// withDefaults returns l with every zero or negative field replaced by its
// default and the default timeout clamped to the maximum.
func (l Limits) withDefaults() Limits {
	if l.MaxTimeout <= 0 {
		l.MaxTimeout = DefaultMaxTimeout
	}
	if l.DefaultTimeout <= 0 {
		l.DefaultTimeout = DefaultTimeout
	}
	l.DefaultTimeout = min(l.DefaultTimeout, l.MaxTimeout)
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = DefaultMaxOutputBytes
	}
	l.MaxOutputBytes = max(l.MaxOutputBytes, minOutputBytes)
	if l.KillGrace <= 0 {
		l.KillGrace = DefaultKillGrace
	}
	if l.DrainGrace <= 0 {
		l.DrainGrace = DefaultDrainGrace
	}
	return l
}

// timeout returns the timeout a run asking for want gets.
func (l Limits) timeout(want time.Duration) time.Duration {
	if want <= 0 {
		return l.DefaultTimeout
	}
	return min(want, l.MaxTimeout)
}

// maxOutput returns the capture limit of a run asking for want (0: the
// Limits' own).
func (l Limits) maxOutput(want int) int {
	if want <= 0 {
		return l.MaxOutputBytes
	}
	return max(want, minOutputBytes)
}
