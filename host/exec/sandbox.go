package exec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/agenthost/agenthost/host/exec/internal/helper"
)

// ErrNoSandbox is wrapped by the error of a run whose Sandbox is Required
// when this kernel, this operating system or this program cannot give
// every part of it; the message names the parts that are missing
// ("landlock", "user namespaces", "helper: SandboxMain not called", ...).
// Nothing was started.
var ErrNoSandbox = errors.New("exec: sandbox not available")

// ErrNoStartDir is wrapped by the error of an unsandboxed run given an
// open directory (Request.Dir) when the command cannot be started in that
// descriptor: /proc/self/fd is missing and the sandbox helper (see
// SandboxMain) is not installed. Falling back to the directory's path
// would let a directory swapped for a symbolic link redirect the start, so
// nothing is started.
var ErrNoStartDir = errors.New("exec: cannot start in the opened directory")

// Sandbox confines one command. A run with a non-nil Request.Sandbox (or
// Capture.Sandbox) is started through the sandbox helper (see
// SandboxMain), which applies these rules to the command and to
// everything it starts, before the command runs:
//
//   - Write only beneath Roots and WritePaths, a private temporary
//     directory (TMPDIR, TMP and TEMP point at it; one per Runner, kept for
//     its life) and the device files /dev/null, /dev/zero and /dev/tty.
//     Nothing else: not the home directory, not the shared /tmp, not
//     /dev/shm. The caches (XDG_CACHE_HOME, so GOCACHE's default, and
//     npm's cache) point beneath the first root, at CacheDir, which
//     lasts across Runners and processes and is ignored by git, when
//     that root is in a git work tree (see SessionCache); a variable of
//     Request.Env replaces these.
//   - Read everything but the secrets: DefaultDenyRead under Home plus
//     DenyRead. Reading beneath Roots is always allowed, so a secret that
//     lies inside a root is readable (Landlock can only add rights).
//   - No network unless Network: no TCP or UDP of either family, no DNS,
//     not even loopback (the command runs in a network namespace of its
//     own, and Landlock denies TCP bind and connect besides). With
//     Network or without, no unix socket can be created (socketpair
//     still works; an ssh-agent, a session bus or docker.sock is out of
//     reach: local sockets are not network) and no abstract socket or
//     signal reaches a process outside the command's own tree.
//   - Plant nothing that runs later: after the command's whole tree has
//     ended, the protected set (ProtectedPaths plus Protect, in every
//     repository at any depth inside the roots) is checked against what it
//     was before the run and restored; no setuid or setgid bit and no
//     extended attribute can be set.
//   - Credentials in the environment (DefaultScrubEnv plus ScrubEnv) are
//     not passed, unless named in AllowEnv; Request.Env is passed as
//     given.
//   - The command's whole tree ends with it: it runs in a PID namespace
//     whose first process is the helper, so a daemon in a new session dies
//     with the run.
//
// A sandboxed command can only write inside the roots, WritePaths and its
// private temporary directory: nothing outside them has changed after a
// run (the notice contract of the host package relies on this).
type Sandbox struct {
	// Roots are the directories the command may read and write; the
	// first is usually the workspace. The host facade fills them from
	// its roots at the start of each run.
	Roots []string
	// RootDirs, when set, are the roots opened by the caller (the same
	// length and order as Roots). The rules are then attached to these
	// descriptors, so a root swapped for a link after it was opened
	// cannot widen the rules. The caller keeps them open until the call
	// returns.
	RootDirs []*os.File
	// WritePaths are more directories the command may write (a cache
	// the embedder trusts). Their contents are not checked after a run.
	WritePaths []string
	// Home is the home directory the default secrets are found under;
	// "" means os.UserHomeDir.
	Home string
	// DenyRead are more paths the command may not read (absolute, or
	// relative to Home).
	DenyRead []string
	// Network lets the command use the network as any program can.
	Network bool
	// AllowEnv names variables passed even though they look like
	// credentials.
	AllowEnv []string
	// ScrubEnv are more patterns (as path.Match, on the variable's name)
	// of variables not passed.
	ScrubEnv []string
	// Protect are more protected paths, patterns relative to any
	// directory inside a root (see ProtectedPaths).
	Protect []string
	// SessionCache keeps the caches in the private temporary directory,
	// gone when the Runner is closed, instead of beneath the first root
	// at CacheDir (a workspace that must not grow, a build context that
	// does not read .gitignore). The caches are there too when the first
	// root was not given as a descriptor (RootDirs), when it is in no git
	// work tree (where the cache's .gitignore would hide it from
	// nothing), or when a link stands where CacheDir goes.
	SessionCache bool
	// WorkTree answers whether a directory is in a git work tree as the
	// caller's listings see it; the caches go beneath the first root only
	// when it says so for that root's path. The Host passes its walk's
	// answer (walk.Cache.InWorkTree through its Jail), so the cache is
	// put where the Host's own walk hides it and nowhere else. nil asks
	// a walk.Cache of the run's own, with no Jail.
	WorkTree func(dir string) bool
	// Required makes the run fail with ErrNoSandbox, starting nothing,
	// when any part above cannot be enforced here. Otherwise the run
	// starts with what can be enforced and Output.Sandbox says what that
	// was.
	Required bool
}

// CacheDir is where, beneath the workspace (the first root), a sandboxed
// command's caches go on Linux (XDG_CACHE_HOME, so Go's build cache,
// pip's, ...; npm's in its "npm" subdirectory) when that root is in a git
// work tree, unless Sandbox.SessionCache is set: kept across runs,
// Runners and processes, so a build in a new `agent-host exec` is as warm
// as the last one, and ignored by git (a .gitignore of "*" inside it).
// See docs/adr/0013.
const CacheDir = ".agent-harness/sandbox-cache"

// Report says what the sandbox of a run enforced.
type Report struct {
	// Enforced lists the parts in force, e.g. "landlock-fs",
	// "landlock-net", "landlock-scope", "netns", "pidns", "seccomp",
	// "env", "protect".
	Enforced []string `json:"enforced"`
	// Missing lists the parts the policy asked for that this system could
	// not give, each with the reason.
	Missing []string `json:"missing,omitempty"`
	// Restored lists the protected paths the command changed and that
	// were put back (or removed, when they were new) after it ended.
	Restored []string `json:"restored,omitempty"`
	// LandlockABI is the Landlock ABI version the rules were made for, 0
	// when Landlock was not used.
	LandlockABI int `json:"landlock_abi,omitempty"`
}

// On reports whether part is among r.Enforced.
func (r *Report) On(part string) bool {
	if r == nil {
		return false
	}
	for _, p := range r.Enforced {
		if p == part {
			return true
		}
	}
	return false
}

// DefaultDenyRead are the secrets under the home directory that a
// sandboxed command may not read: keys and tokens (the agents' own among
// them), shell and REPL histories (tokens get pasted) and browser
// profiles (cookies).
var DefaultDenyRead = []string{
	".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube",
	".docker/config.json", ".netrc", ".git-credentials", ".npmrc", ".pypirc",
	".config/gh", ".config/gh/hosts.yml", ".password-store", ".vault-token",
	".claude/.credentials.json", ".codex/auth.json", ".cargo/credentials.toml", ".cargo/credentials",
	".terraform.d/credentials.tfrc.json", ".config/hub", ".config/op", ".config/rclone",
	".m2/settings.xml", ".gem/credentials", ".local/share/keyrings",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
	".node_repl_history", ".sqlite_history", ".local/share/fish/fish_history",
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
}

// DefaultScrubEnv are the patterns (path.Match on the upper-cased name)
// of environment variables that are not passed to a sandboxed command. A
// variable whose value holds a URL with a password in it
// (scheme://user:pass@host) is not passed either, whatever its name
// (see urlWithPassword). *_AUTH* is spelled out (*_AUTH, *_AUTH_*,
// *_AUTHTOKEN*, *_AUTHORIZATION*) so that GIT_AUTHOR_NAME still passes.
var DefaultScrubEnv = []string{
	"*_TOKEN", "*_TOKEN_*", "*TOKEN", "*_SECRET", "*_SECRET_*", "*SECRET",
	"*_KEY", "*_KEY_*", "*APIKEY*", "*_PASSWORD", "*PASSWORD*", "*PASSWD*",
	"*_PAT", "*_PASS", "*_PWD", "*_DSN", "*_JWT", "*_JWT_*",
	"*_CREDENTIALS", "*CREDENTIAL*", "*_AUTH", "*_AUTH_*", "*_AUTHTOKEN*", "*_AUTHORIZATION*",
	"DATABASE_URL", "NETRC",
	"AWS_*", "AZURE_*", "GOOGLE_APPLICATION_CREDENTIALS", "GCP_*",
	"GITHUB_TOKEN", "GH_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
	"NPM_TOKEN", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DOCKER_AUTH_CONFIG",
	"KUBECONFIG", "VAULT_*",
}

// ProtectedPaths is the protected set: patterns (path.Match per
// component) relative to any directory inside a root; a pattern naming a
// directory protects everything beneath it. Within a repository's git
// directory (.git, the directories under .git/modules and .git/worktrees,
// and any directory git would take as a git directory: HEAD with objects/
// and refs/, or a commondir file, such as a bare repository under any
// name) the hooks directory, config, config.worktree, commondir and
// gitdir are protected, and so are the directories that core.hooksPath
// names in any config git reads for it (system, global, the repository's,
// config.worktree, and the files they include, which inside a root are
// protected too), as they were before the run and as they are after it.
// A changed git config is kept when it parses (in Go: no program is run
// for the check) and holds only harmless keys, each allowed exactly (see
// safeGitConfigEntry), so `git remote add` and `git config user.name`
// still work.
var ProtectedPaths = []string{
	".git", // a .git file (gitdir:); a .git directory is looked into instead
	".envrc",
	".mcp.json",
	".claude/settings*.json",
	".codex",
	".vscode/tasks.json",
	".vscode/settings.json",
	".husky",
	".pre-commit-config.yaml",
	"lefthook.yml", ".lefthook.yml", "lefthook-local.yml", ".lefthook-local.yml",
	".devcontainer",
}

// helperInstalled is set by SandboxMain when this program can run the
// helper.
var helperInstalled atomic.Bool

// helperEnv is the variable that makes a process the helper (the
// instructions are its arguments).
const helperEnv = helper.Env

// SandboxMain must be called first thing in main by every program whose
// Runner runs sandboxed commands (agent-host does), and in TestMain by
// test binaries that do:
//
//	func main() {
//		hostexec.SandboxMain()
//		...
//	}
//
// A sandboxed command is started by running this same program again as a
// helper (like Docker's reexec), which confines itself and then starts
// the command. From its second sandboxed run on, a Runner starts the
// helper of its next run ahead, in the background, and keeps it waiting
// until that run comes or the Runner is closed (docs/adr/0012). When the process is such a helper, SandboxMain does the
// helper's work and never returns. Otherwise it returns at once (it looks at
// argv[0]; the program's path is found at its first helper's start) and
// marks the program as able to run the helper; without that mark a sandboxed run reports the
// sandbox missing (ErrNoSandbox when Required).
//
// The helper's work in fact starts earlier, from the initializer of
// host/exec/internal/helper, which imports almost nothing so that it runs
// before the initializers of the packages the helper does not need
// (crypto, encoding/json, an MCP SDK, ...): SandboxMain is the program's
// declaration that re-running it is safe, and its fallback should the
// initializer not have run.
func SandboxMain() {
	helper.RunIfHelper()
	helperInstalled.Store(true)
}

// denyPaths returns the absolute paths sb denies reading, each also as
// its target when it is a symbolic link.
func (sb *Sandbox) denyPaths() []string {
	home := sb.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	var out []string
	add := func(p string) {
		if !filepath.IsAbs(p) {
			if home == "" {
				return
			}
			p = filepath.Join(home, p)
		}
		p = filepath.Clean(p)
		out = append(out, p)
		// One lstat first: most of the list is missing from any one home,
		// and EvalSymlinks would lstat every component of the path to
		// fail the same way (the hook pays this at every call).
		if _, err := os.Lstat(p); err != nil {
			return
		}
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			out = append(out, r)
		}
	}
	if home != "" {
		if r, err := filepath.EvalSymlinks(home); err == nil {
			home = r
		}
	}
	for _, p := range DefaultDenyRead {
		add(p)
	}
	for _, p := range sb.DenyRead {
		add(p)
	}
	return out
}

// missingError is the error of a Required sandbox lacking parts.
func missingError(missing []string) error {
	return fmt.Errorf("%w: %s", ErrNoSandbox, strings.Join(missing, "; "))
}
