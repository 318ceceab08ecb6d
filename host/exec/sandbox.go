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

// ErrNoSandbox is wrapped by the error of a sandboxed run (one whose
// Sandbox is not BestEffort) when this kernel, this operating system or
// this program cannot give every part of it; the message names the parts
// that are missing ("landlock", "namespaces", "helper: ... SandboxMain
// ...") and how to get each. Nothing was started.
var ErrNoSandbox = errors.New("exec: sandbox not available")

// ErrNoStartDir is wrapped by the error of an unsandboxed run given an
// open directory (Request.Dir) when the command cannot be started in that
// descriptor: /proc/self/fd is missing and the sandbox helper (see
// SandboxMain) is not installed. Falling back to the directory's path
// would let a directory swapped for a symbolic link redirect the start, so
// nothing is started.
var ErrNoStartDir = errors.New("exec: cannot start in the opened directory")

// ErrUnsafeWorkspace is wrapped by the error of a sandboxed run after
// which a protected path the command created or changed (a hook, a git
// config, an .envrc; see ProtectedPaths) could not be removed or put
// back: the message names each path and why. The run's Output is
// complete; the workspace may hold a plant that runs later, and should
// be looked at before git, direnv or an agent runs in it.
var ErrUnsafeWorkspace = errors.New("exec: a protected path could not be put back after the command")

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
//     WorkTree says that root is in a git work tree (see SessionCache
//     and WorkTree); a variable of
//     Request.Env replaces these.
//   - Read everything but the secrets: DefaultDenyRead under Home plus
//     DenyRead. Reading beneath Roots is always allowed, so a secret that
//     lies inside a root is readable (Landlock can only add rights).
//   - No network unless Network: no TCP or UDP of either family, no DNS,
//     not even loopback (the command runs in a network namespace of its
//     own, and Landlock denies TCP bind and connect besides). With
//     AllowNet, the hosts it names and nothing else, through a proxy the
//     run starts outside the sandbox (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY
//     and their lower-case forms point at it; docs/adr/0022). With
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
	// Network lets the command use the network as any program can. It
	// wins over AllowNet.
	Network bool
	// AllowNet names the hosts the command may reach, through an HTTP
	// proxy outside the sandbox that checks each request's name (HTTPS
	// by CONNECT, with the TLS name checked; plain HTTP by an absolute
	// URI): "host", "host:port", "*.suffix" (names under it), an IPv4
	// address or a "[v6]" address. An entry without a port allows 80
	// and 443. Names are compared in lower case without a trailing dot;
	// one that resolves to a loopback, private or link-local address
	// is refused unless that address is itself allowed. Nothing else
	// leaves: no direct TCP or UDP, no DNS, no unix socket (a client
	// that ignores the proxy variables reaches nothing). What was
	// refused is in Report.NetDenied. An entry that is no host name
	// fails the run with ErrBadAllowNet, starting nothing.
	AllowNet []string
	// AllowEnv names variables (exactly, case included) passed even
	// though their name or their value looks like a credential (see
	// DefaultScrubEnv).
	AllowEnv []string
	// ScrubEnv are more patterns of names of variables not passed, as
	// DefaultScrubEnv's: path.Match on the upper-cased name, or on the
	// part after its last '/' or ':'. The checks of values apply
	// whatever these are.
	ScrubEnv []string
	// Protect are more protected paths, patterns relative to any
	// directory inside a root (see ProtectedPaths).
	Protect []string
	// SessionCache keeps the caches in the private temporary directory,
	// gone when the Runner is closed, instead of beneath the first root
	// at CacheDir (a workspace that must not grow, a build context that
	// does not read .gitignore). The caches are there too when the first
	// root was not given as a descriptor (RootDirs), when WorkTree is nil
	// or says it is in no git work tree (where the cache's .gitignore
	// would hide it from nothing), or when a link stands where CacheDir
	// goes.
	SessionCache bool
	// WorkTree answers whether a directory is in a git work tree as the
	// caller's listings see it; the caches go beneath the first root only
	// when it says so for that root's path. The Host passes its walk's
	// answer (walk.Cache.InWorkTree through its Jail), so the cache is
	// put where the Host's own walk hides it and nowhere else. nil keeps
	// the caches in the private temporary directory, as SessionCache
	// does: this package imports no walk and cannot know how the
	// caller's listings see the tree (docs/adr/0013, amended for issue 21).
	WorkTree func(dir string) bool
	// ReadHome are more entries of the home directory (relative to Home)
	// the command sees, read-only, beside DefaultReadHome. Where user
	// namespaces work the command runs in a view whose home directory is
	// empty but for these (docs/adr/0014).
	ReadHome []string
	// Read are more absolute paths the command sees, read-only, beside
	// the system directories, the toolchains and the roots (a shared
	// data set, another checkout to compare with).
	Read []string
	// BestEffort runs the command with whatever parts of the sandbox
	// this system gives, and Output.Sandbox says what was missing.
	// Without it (the default) a run fails with ErrNoSandbox, starting
	// nothing, when any part above cannot be enforced here: a program
	// that did not call SandboxMain, a kernel without Landlock, a system
	// that refuses user namespaces (no view), no seccomp filter for the
	// architecture. The error names each part and how to get it.
	BestEffort bool
	// Required is the default now (BestEffort unset); it is kept so that
	// callers that set it compile, and wins over BestEffort.
	Required bool
}

// CacheDir is where, beneath the workspace (the first root), a sandboxed
// command's caches go on Linux (XDG_CACHE_HOME, so Go's build cache,
// pip's, ...; npm's in its "npm" subdirectory) when Sandbox.WorkTree says
// that root is in a git work tree, unless Sandbox.SessionCache is set:
// kept across runs, Runners and processes, so a build in a new
// `agent-host exec` is as warm as the last one, and ignored by git (a
// .gitignore of "*" inside it).
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
	// NetDenied lists the hosts the proxy refused to the command
	// (Sandbox.AllowNet), in the order each was first refused, at most
	// 256 (NetDeniedMore counts refusals of further hosts).
	NetDenied     []NetDenial `json:"net_denied,omitempty"`
	NetDeniedMore int         `json:"net_denied_more,omitempty"`
}

// NetDenial is one host:port the proxy refused to a sandboxed command.
type NetDenial struct {
	Host   string `json:"host"` // the name in lower case, an address ("[v6]" bracketed), or the quoted text that was no name
	Port   int    `json:"port"` // 0 when the request had no valid port
	Count  int    `json:"count"`
	Reason string `json:"reason"`           // "not allowed", "non-public address", "TLS name differs", ...
	Detail string `json:"detail,omitempty"` // what was seen: the TLS name, the Host header, the address it resolved to
	// Message is the line agent-host exec prints for it, e.g.
	// "network: refused example.org:443 (3 times); --allow-net
	// example.org allows it".
	Message string `json:"message"`
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

// DefaultReadHome are the entries of the home directory a sandboxed
// command sees (read-only, those that exist) where it runs in a view
// (docs/adr/0014): the toolchains' install directories and caches that
// builds read, and git's excludes. Everything else in the home directory
// is absent: a secret no list names cannot be read. The home
// directory's .gitconfig is generated from the user's with only harmless
// keys (identity, aliases, excludes; no credential helper, URL rewrite,
// include or signing key). The same entries of the process's own home
// directory (os.UserHomeDir), when Home is another, are shown too, so
// that a toolchain on PATH keeps working.
var DefaultReadHome = []string{
	"go", // GOPATH: the module cache and installed tools
	".cargo/bin", ".cargo/registry", ".cargo/git", ".cargo/env", ".rustup",
	".nvm", ".volta", ".fnm", ".bun/bin", ".deno/bin", ".local/share/pnpm",
	".pyenv", ".rbenv", ".local/bin", ".local/lib",
	".sdkman/candidates", ".m2/repository", ".gradle/wrapper", ".gradle/caches",
	".config/git/ignore", ".gitignore_global", ".gitignore",
}

// DefaultScrubEnv are the patterns (path.Match on the upper-cased name)
// of environment variables that are not passed to a sandboxed command.
// Only the environment the command inherits is scrubbed: Request.Env is
// the caller's and is passed as given. A name holding '/' or ':' (npm's
// npm_config_//registry.npmjs.org/:_authToken) is also matched by the
// part after its last '/' or ':', since '*' does not cross '/'.
//
// By name, the list catches:
//   - credentials by their word: a name ending in TOKEN or SECRET or
//     holding _TOKEN_ or _SECRET_; *_KEY, *_KEY_* and *APIKEY*;
//     PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL or WEBHOOK anywhere;
//     *_PAT, *_PASS, *_PWD, *_DSN, *_JWT, *_JWT_*, *_COOKIE; *_AUTH* is
//     spelled out (*_AUTH, *_AUTH_*, *_AUTHTOKEN*, *_AUTHORIZATION*) so
//     that GIT_AUTHOR_NAME still passes;
//   - clouds' and tools' variables (AWS_*, AZURE_*, GCP_*, VAULT_*,
//     KUBECONFIG, NETRC, DATABASE_URL, the agents' sockets);
//   - password managers' sessions: Bitwarden's BW_SESSION and BW_CLIENT*,
//     1Password's OP_SESSION_<account>, OP_SERVICE_ACCOUNT_TOKEN and
//     OP_CONNECT_*, LastPass's LPASS_*;
//   - git configuration and programs injected through the environment,
//     each of which can make git run a program or send a credential:
//     GIT_CONFIG, GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n>, GIT_CONFIG_VALUE_<n>,
//     GIT_CONFIG_PARAMETERS, *ASKPASS* (GIT_ASKPASS, SSH_ASKPASS,
//     SUDO_ASKPASS), GIT_SSH, GIT_SSH_COMMAND, GIT_PROXY_COMMAND,
//     GIT_EXTERNAL_DIFF, GIT_EXEC_PATH and an editor's VSCODE_GIT_* (its
//     askpass and the socket that answers it). GIT_CONFIG_GLOBAL,
//     GIT_CONFIG_SYSTEM and GIT_CONFIG_NOSYSTEM pass: they name a file,
//     or none, and reading that file is the sandbox's to allow or deny.
//
// By value, whatever the name (see credentialValue), a variable is not
// passed either when its value holds:
//   - a URL with a credential: a password (scheme://user:pass@host,
//     https://x-access-token:T@host), a token as the whole userinfo
//     (https://ghp_...@github.com), a query or fragment parameter named
//     for a secret (?access_token=, &key=, &sig=, X-Amz-Signature=,
//     #id_token=), or a well-known webhook (hooks.slack.com/services/...,
//     discord.com/api/webhooks/..., *.webhook.office.com, hooks.zapier.com,
//     api.telegram.org/bot...);
//   - a token of a well-known shape as a whole word: GitHub's ghp_, gho_,
//     ghu_, ghs_, ghr_ and github_pat_, GitLab's glpat- and kin, Slack's
//     xoxb-, xoxp-, xoxa-, xapp- and kin, OpenAI's and Anthropic's sk-,
//     Stripe's sk_live_, an AWS access key id (AKIA or ASIA and 16 upper-case
//     letters or digits), Google's AIza, npm_, Hugging Face's hf_, pypi-, a
//     JWT (eyJ....eyJ...) and a PEM private key (-----BEGIN ... PRIVATE
//     KEY-----).
//
// Not caught by value: a secret of no recognisable shape, and hex strings
// however long (a commit id, a checksum or a D-Bus guid cannot be told
// from a hex secret). So PATH, LS_COLORS, GOPROXY, a commit id and a URL
// without credentials (https://example.com/a@b: the '@' is in its path)
// pass.
var DefaultScrubEnv = []string{
	"*_TOKEN", "*_TOKEN_*", "*TOKEN", "*_SECRET", "*_SECRET_*", "*SECRET",
	"*_KEY", "*_KEY_*", "*APIKEY*", "*_PASSWORD", "*PASSWORD*", "*PASSWD*", "*PASSPHRASE*",
	"*_PAT", "*_PASS", "*_PWD", "*_DSN", "*_JWT", "*_JWT_*", "*_COOKIE", "*WEBHOOK*",
	"*_CREDENTIALS", "*CREDENTIAL*", "*_AUTH", "*_AUTH_*", "*_AUTHTOKEN*", "*_AUTHORIZATION*",
	"DATABASE_URL", "NETRC",
	"AWS_*", "AZURE_*", "GOOGLE_APPLICATION_CREDENTIALS", "GCP_*",
	"GITHUB_TOKEN", "GH_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
	"NPM_TOKEN", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DOCKER_AUTH_CONFIG",
	"KUBECONFIG", "VAULT_*",
	"BW_SESSION", "BW_CLIENT*", "OP_SESSION_*", "OP_SERVICE_ACCOUNT_TOKEN", "OP_CONNECT_*", "LPASS_*",
	"GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_*", "GIT_CONFIG_VALUE_*", "GIT_CONFIG_PARAMETERS",
	"*ASKPASS*", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_EXEC_PATH",
	"VSCODE_GIT_*",
}

// ProtectedPaths is the protected set: patterns (path.Match per
// component) relative to any directory inside a root; a pattern naming a
// directory protects everything beneath it. Within a repository's git
// directory (.git, the directories under .git/modules and .git/worktrees,
// and any directory git would take as a git directory: HEAD with objects/
// and refs/, or a commondir file, such as a bare repository under any
// name) the hooks and info directories, config, config.worktree,
// commondir and gitdir are protected, and so are the directories that core.hooksPath
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
	".claude/hooks", // the scripts the settings' hooks run
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
// sandbox missing (ErrNoSandbox unless BestEffort).
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

// strict reports whether a run of sb fails when a part is missing.
func (sb *Sandbox) strict() bool { return sb.Required || !sb.BestEffort }

// proxied reports whether the command's network goes through the proxy:
// AllowNet without Network.
func (sb *Sandbox) proxied() bool { return len(sb.AllowNet) > 0 && !sb.Network }

// missingError is the error of a strict sandbox lacking parts.
func missingError(missing []string) error {
	return fmt.Errorf("%w: %s", ErrNoSandbox, strings.Join(missing, "; "))
}
