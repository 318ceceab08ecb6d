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
	// Home overrides $HOME for ~ expansion and for the secrets a
	// sandboxed command may not read; "" means os.UserHomeDir.
	Home string
	// Sandbox is the policy for the commands of Exec and RunCapture (and
	// so of the hooks run through the Host). The zero value sandboxes
	// every command with what this system offers (see SandboxPolicy).
	Sandbox SandboxPolicy
}

// SandboxPolicy is the Host's policy for commands. It is the embedder's:
// a request can only make it stricter (see Host.Exec).
//
// The zero value confines every command (on Linux: a view of the machine
// in new user, mount, network, PID and IPC namespaces, Landlock and
// seccomp; see host/exec.Sandbox and docs/adr/0014): it writes only
// inside the roots and a private temporary directory, sees no secret of
// the home directory, reaches no network, plants nothing that runs later
// and leaves no process behind. Where the system lacks a part, the
// command is refused (errors.Is(err, ErrNoSandbox), naming what is
// missing and how to get it); set BestEffort to run it with what there
// is, ExecOutput.Sandbox then saying what was enforced.
type SandboxPolicy struct {
	// Off runs commands unconfined, with every right of this process.
	Off bool
	// BestEffort runs commands with whatever parts of the sandbox this
	// system has (ExecOutput.Sandbox.Missing lists the others) instead of
	// refusing them with ErrNoSandbox.
	BestEffort bool
	// Required is the default now (BestEffort unset); it is kept so that
	// embedders that set it compile, and wins over BestEffort.
	Required bool
	// ReadHome are more entries of the home directory commands see,
	// read-only, beside the toolchains (host/exec.DefaultReadHome).
	ReadHome []string
	// Read are more absolute paths commands see, read-only, beside the
	// system directories and the roots.
	Read []string
	// Network lets commands use the network. It wins over AllowNet.
	Network bool
	// AllowNet names the hosts commands may reach, through a proxy the
	// Host runs outside the sandbox ("host", "host:port", "*.suffix", an
	// address; see host/exec.Sandbox.AllowNet): HTTP_PROXY, HTTPS_PROXY
	// and ALL_PROXY point at it, and nothing else leaves.
	// ExecOutput.Sandbox.NetDenied lists what it refused.
	AllowNet []string
	// DenyRead are more paths commands may not read, beside the default
	// secrets (host/exec.DefaultDenyRead); relative ones are under Home.
	DenyRead []string
	// WritePaths are more directories commands may write (a cache the
	// embedder trusts); nothing in them is checked after a run.
	WritePaths []string
	// AllowEnv names environment variables passed to commands although
	// they look like credentials (host/exec.DefaultScrubEnv).
	AllowEnv []string
	// ScrubEnv are more name patterns of variables not passed.
	ScrubEnv []string
	// Protect are more protected paths (host/exec.ProtectedPaths).
	Protect []string
	// SessionCache keeps commands' caches (XDG_CACHE_HOME, npm's) in the
	// Host's private temporary directory, gone at Close. Without it they
	// live beneath the workspace in host/exec.CacheDir, ignored by git
	// and kept across processes, when the workspace is a git work tree
	// (docs/adr/0013).
	SessionCache bool
}
