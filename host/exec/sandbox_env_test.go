package exec

import (
	"path"
	"strings"
	"testing"
)

// TestEnvPatternMatchesPathMatch: the scrub patterns' matcher says what
// path.Match says, for the default list and for patterns and names made
// to catch a greedy or overlapping match.
func TestEnvPatternMatchesPathMatch(t *testing.T) {
	pats := append(append([]string(nil), DefaultScrubEnv...),
		"A*B*C", "*AB*AB*", "**", "*", "X", "A*A", "*_K?Y", "[AB]*", `A\*B`, "AB*BA", "*A*")
	names := []string{"", "A", "AB", "ABA", "ABAB", "ABABAB", "AXBXC", "ABC", "ACB", "AA", "A_KEY", "MY_TOKEN", "TOKEN",
		"GITHUB_TOKEN", "GIT_AUTHOR_NAME", "AWS_REGION", "PATH", "HOME", "MY_KEY_ID", "A/B", "A*B", "X_PAT", "PAT",
		"DB_PASSWORD_FILE", "KUBECONFIG", "SSH_AUTH_SOCK", "npm_config_cache", "BABA", "AB/AB", "A/BC"}
	for _, c := range compileEnvPatterns(pats) {
		for _, n := range names {
			up := strings.ToUpper(n)
			want, _ := path.Match(c.pat, up)
			if got := c.match(up); got != want {
				t.Errorf("match(%q, %q) = %v, path.Match says %v", c.pat, up, got, want)
			}
		}
	}
}

// FuzzEnvPattern: the matcher agrees with path.Match everywhere.
func FuzzEnvPattern(f *testing.F) {
	f.Add("*_TOKEN_*", "MY_TOKEN_X")
	f.Add("A*B*A", "ABA")
	f.Fuzz(func(t *testing.T, pat, name string) {
		for _, c := range compileEnvPatterns([]string{pat}) {
			up := strings.ToUpper(name)
			want, err := path.Match(c.pat, up)
			if err != nil {
				return // a bad pattern: path.Match's own answer stands
			}
			if got := c.match(up); got != want {
				t.Fatalf("match(%q, %q) = %v, path.Match says %v", c.pat, up, got, want)
			}
		}
	})
}

// benchEnv is a realistic environment of 60 variables, as a developer's
// shell in a terminal of an editor hands it to agent-host: a long
// LS_COLORS, a PATH of toolchains, the editor's own variables and a few
// credentials.
var benchEnv = []string{
	"SHELL=/bin/bash", "HOME=/home/dev", "USER=dev", "LOGNAME=dev", "LANG=en_US.UTF-8", "LC_ALL=en_US.UTF-8",
	"TERM=xterm-256color", "COLORTERM=truecolor", "SHLVL=2", "PWD=/home/dev/src/project", "OLDPWD=/home/dev",
	"PATH=/home/dev/.cargo/bin:/home/dev/go/bin:/usr/local/go/bin:/home/dev/.nvm/versions/node/v20.11.0/bin:/home/dev/.pyenv/shims:/home/dev/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/games:/usr/local/games:/snap/bin",
	"LS_COLORS=" + strings.Repeat("rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:st=37;44:ex=01;32:*.tar=01;31:*.tgz=01;31:*.arc=01;31:*.arj=01;31:*.taz=01;31:*.lha=01;31:*.lz4=01;31:*.lzh=01;31:*.lzma=01;31:*.tlz=01;31:*.txz=01;31:*.tzo=01;31:*.t7z=01;31:*.zip=01;31:*.z=01;31:*.dz=01;31:*.gz=01;31:*.lrz=01;31:*.lz=01;31:*.lzo=01;31:*.xz=01;31:*.zst=01;31:*.tzst=01;31:*.bz2=01;31:*.bz=01;31:*.tbz=01;31:*.tbz2=01;31:*.tz=01;31:*.deb=01;31:*.rpm=01;31:*.jar=01;31:*.war=01;31:*.ear=01;31:*.sar=01;31:*.rar=01;31:*.alz=01;31:*.ace=01;31:*.zoo=01;31:*.cpio=01;31:*.7z=01;31:*.rz=01;31:*.cab=01;31:*.wim=01;31:*.swm=01;31:*.dwm=01;31:*.esd=01;31:", 3),
	"EDITOR=vim", "VISUAL=vim", "PAGER=less", "LESS=-FRX", "LESSOPEN=| /usr/bin/lesspipe %s",
	"GOPATH=/home/dev/go", "GOROOT=/usr/local/go", "GOFLAGS=-mod=mod", "GOPROXY=https://proxy.golang.org,direct",
	"CARGO_HOME=/home/dev/.cargo", "RUSTUP_HOME=/home/dev/.rustup", "NVM_DIR=/home/dev/.nvm",
	"NVM_BIN=/home/dev/.nvm/versions/node/v20.11.0/bin", "PYENV_ROOT=/home/dev/.pyenv", "JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64",
	"XDG_RUNTIME_DIR=/run/user/1000", "XDG_CONFIG_DIRS=/etc/xdg/xdg-ubuntu:/etc/xdg",
	"XDG_DATA_DIRS=/usr/share/ubuntu:/usr/local/share/:/usr/share/:/var/lib/snapd/desktop",
	"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0",
	"SSH_AUTH_SOCK=/run/user/1000/keyring/ssh", "SSH_CONNECTION=10.0.0.2 50122 10.0.0.5 22",
	"TERM_PROGRAM=vscode", "TERM_PROGRAM_VERSION=1.86.2", "VSCODE_IPC_HOOK_CLI=/run/user/1000/vscode-ipc-3c1e.sock",
	"VSCODE_GIT_ASKPASS_NODE=/usr/share/code/code", "VSCODE_GIT_IPC_HANDLE=/run/user/1000/vscode-git-1f2e.sock",
	"GIT_ASKPASS=/usr/share/code/resources/app/extensions/git/dist/askpass.sh",
	"GIT_AUTHOR_NAME=Dev Eloper", "GIT_AUTHOR_EMAIL=dev@example.com", "HISTSIZE=100000", "HISTFILE=/home/dev/.bash_history",
	"MAIL=/var/mail/dev", "DOCKER_HOST=unix:///run/user/1000/docker.sock", "KUBECONFIG=/home/dev/.kube/config", "AWS_PROFILE=dev",
	"AWS_REGION=eu-west-1", "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345", "NPM_CONFIG_PREFIX=/home/dev/.npm-global",
	"CI=false", "NODE_OPTIONS=--max-old-space-size=4096",
	"VIRTUAL_ENV=/home/dev/src/project/.venv", "DATABASE_URL=postgres://app:s3cret@localhost:5432/app",
	"UPSTREAM_COMMIT=9fceb02d0ae598e95dc970b74767f19372d61af8", "HOMEPAGE=https://example.com/docs", "_=/usr/bin/env",
}

// BenchmarkScrubEnv is the scrub of one sandboxed command's inherited
// environment.
func BenchmarkScrubEnv(b *testing.B) {
	if len(benchEnv) != 60 {
		b.Fatalf("benchEnv has %d variables, want 60", len(benchEnv))
	}
	sb := &Sandbox{AllowEnv: []string{"AWS_PROFILE"}}
	b.ReportAllocs()
	for b.Loop() {
		sb.scrubEnv(benchEnv)
	}
}
