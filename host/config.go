package host

import (
	hostexec "github.com/agenthost/agenthost/host/exec"
	"github.com/agenthost/agenthost/host/jail"
)

// PathPolicy says how far a Host lets a path reach: Jailed (the default)
// or Unrestricted. It is [jail.Policy], where the values are documented:
// go doc github.com/agenthost/agenthost/host/jail Policy.
type PathPolicy = jail.Policy

const (
	// Jailed is the default: every path must lie inside a root.
	Jailed = jail.Jailed
	// Unrestricted only makes paths absolute (with ~ expansion); nothing is refused.
	Unrestricted = jail.Unrestricted
)

// ExecLimits bounds what Exec and RunCapture may take; the zero value of a
// field means its default. It is [hostexec.Limits], where each field and
// default is documented: go doc github.com/agenthost/agenthost/host/exec Limits.
type ExecLimits = hostexec.Limits

// Config is what New needs to build a Host. The zero value of every field
// but WorkspaceRoot is a sensible default.
type Config struct {
	// WorkspaceRoot is required; it must exist and be a directory. It is
	// made absolute, ~-expanded and canonicalized.
	WorkspaceRoot string
	// ExtraRoots are added as by AddRoot at construction; a missing one is
	// an error (ErrInvalidRoot).
	ExtraRoots []string
	// PathPolicy is Jailed unless set.
	PathPolicy PathPolicy
	// Exec limits for Exec and RunCapture; zero fields mean defaults.
	Exec ExecLimits
	// MaxReadBytes caps ReadFile; 0 means hostfs.DefaultMaxReadBytes.
	MaxReadBytes int64
	// Home overrides $HOME for ~ expansion; "" means os.UserHomeDir.
	Home string
}
