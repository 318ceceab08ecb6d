package exec

import (
	"path"
	"slices"
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
			if want && c.mask&^charMask(up) != 0 {
				t.Fatalf("mask of %q rejects %q, which it matches", c.pat, up)
			}
		}
	})
}

// FuzzCredentialValue: the value checks take any bytes without
// panicking, and a value found in a longer one is still found (a token
// or a URL is a word of the value: what surrounds it is separated).
func FuzzCredentialValue(f *testing.F) {
	for _, c := range scrubEnvCases {
		_, v, _ := strings.Cut(c.kv, "=")
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if credentialValue(v) && !credentialValue("x "+v+" y") {
			t.Fatalf("%q is a credential, but not between spaces", v)
		}
	})
}

// scrubEnvCases is one table of variables, each dropped or passed by the
// default scrub, by class: every unit test of the scrub runs it, and so
// does a real sandboxed command (TestSandboxScrubsEnvClasses). The
// values are fake but shaped as the real ones.
var scrubEnvCases = []struct {
	class string
	kv    string
	drop  bool
}{
	// Password managers' sessions.
	{"password manager", "BW_SESSION=5PBYGU4mWLbaQ6fKxGq3Y1cjfR7sZT9v0vXbPq3c8GzN2Hk1m6sL4dA2rE7tY9uI0oP3aS5dF8gH1jK4lZ6xC==", true},
	{"password manager", "BW_CLIENTID=user.1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d", true},
	{"password manager", "OP_SESSION_my=Vh3kT9qLmZ2xW8pR4sN6yB1cD5fG7hJ0kL3mN9pQ2rS", true},
	{"password manager", "OP_SESSION_acme_team=Xk2mP9vQ4wL7rT1yN6bC3dF8gH5jK0lZ", true},
	{"password manager", "OP_SERVICE_ACCOUNT_TOKEN=ops_eyJzaWduSW5BZGRyZXNzIjoibXkuMXBhc3N3b3JkLmNvbSJ9", true},
	{"password manager", "OP_CONNECT_HOST=http://localhost:8080", true},
	{"password manager", "LPASS_HOME=/home/dev/.config/lpass", true},
	// Passphrases.
	{"passphrase", "GPG_PASSPHRASE=correct horse battery staple", true},
	{"passphrase", "SIGNING_KEY_PASSPHRASE=hunter2hunter2", true},
	{"passphrase", "PASSPHRASE=s3cr3t", true},
	// Webhooks, by name and by value.
	{"webhook", "SLACK_WEBHOOK=https://example.com/x", true},
	{"webhook", "DISCORD_WEBHOOK_URL=x", true},
	{"webhook", "NOTIFY=https://hooks.slack.com/services/T0ABCDEFG/B0ABCDEFG/aBcDeFgHiJkLmNoPqRsTuVwX", true},
	{"webhook", "ALERTS=https://discord.com/api/webhooks/1234567890123456789/aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789-_abcdefghij", true},
	{"webhook", "OLD_ALERTS=https://discordapp.com/api/v10/webhooks/123/abc", true},
	{"webhook", "TEAMS=https://acme.webhook.office.com/webhookb2/0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e@0a1b/IncomingWebhook/abc/def", true},
	{"webhook", "ZAP=https://hooks.zapier.com/hooks/catch/123456/abcdef/", true},
	{"webhook", "TG=https://api.telegram.org/bot123456789:AAFakeFakeFakeFakeFakeFakeFakeFake12/sendMessage", true},
	// Credentials inside URLs.
	{"url", "PROXY=http://user:pw@proxy.example:3128", true},
	{"url", "REDIS=redis://:pw@localhost:6379/0", true},
	{"url", "REMOTE=https://ghp_FAKEfake0123456789FAKEfake0123456789@github.com/o/r.git", true},
	{"url", "ORIGIN=https://x-access-token:ghs_FAKEfake0123456789FAKEfake01234567@github.com/o/r.git", true},
	{"url", "MIRROR=https://0123456789abcdef0123456789abcdef01234567@github.com/o/r.git", true},
	{"url", "FEED=https://api.example.com/v1/feed?format=json&access_token=abc123", true},
	{"url", "BLOB=https://acct.blob.core.windows.net/c/f.tgz?sv=2022-11-02&se=2030-01-01T00%3A00Z&sr=b&sp=r&sig=Zm9vYmFyYmF6%3D", true},
	{"url", "S3=https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240101T000000Z&X-Amz-Signature=0a1b2c3d", true},
	{"url", "GEO=https://geo.example.com/lookup?q=paris&key=abc", true},
	{"url", "CALLBACK=https://app.example.com/cb#state=x&id_token=abc.def.ghi", true},
	{"url", "CLONE=git clone https://oauth2:glpat-FAKEfakeFAKEfake1234@gitlab.com/o/r.git", true},
	// Names holding '/' or ':'.
	{"npm", "npm_config_//registry.npmjs.org/:_authToken=npm_FAKEfake0123456789FAKEfake0123456789", true},
	{"npm", "npm_config_//npm.pkg.example.com/:_authToken=${NPM_TOKEN}", true},
	{"npm", "npm_config_//registry.example.com/:_password=cGFzc3dvcmQ=", true},
	{"npm", "NPM_CONFIG_//registry.example.com/:_auth=dXNlcjpwYXNz", true},
	{"npm", "npm_config__auth=dXNlcjpwYXNz", true},
	{"npm", "npm_config__authToken=x", true},
	// Git configuration and programs injected through the environment.
	{"git", "GIT_CONFIG_COUNT=1", true},
	{"git", "GIT_CONFIG_KEY_0=http.https://github.com/.extraheader", true},
	{"git", "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hz", true},
	{"git", "GIT_CONFIG_PARAMETERS='credential.helper'='!f() { echo password=x; }; f'", true},
	{"git", "GIT_CONFIG=/tmp/evil.gitconfig", true},
	{"git", "GIT_ASKPASS=/usr/share/code/resources/app/extensions/git/dist/askpass.sh", true},
	{"git", "SSH_ASKPASS=/usr/lib/ssh/x11-ssh-askpass", true},
	{"git", "SUDO_ASKPASS=/usr/bin/ssh-askpass", true},
	{"git", "GIT_SSH_COMMAND=ssh -i /home/dev/.ssh/deploy_key -o IdentitiesOnly=yes", true},
	{"git", "GIT_SSH=/usr/local/bin/myssh", true},
	{"git", "GIT_PROXY_COMMAND=/usr/local/bin/proxy-with-creds", true},
	{"git", "GIT_EXTERNAL_DIFF=/usr/local/bin/difftool", true},
	{"git", "GIT_EXEC_PATH=/tmp/evil-git-core", true},
	{"git", "VSCODE_GIT_IPC_HANDLE=/run/user/1000/vscode-git-1f2e3d4c5b.sock", true},
	{"git", "VSCODE_GIT_ASKPASS_MAIN=/usr/share/code/resources/app/extensions/git/dist/askpass-main.js", true},
	// Tokens of well-known shapes, whatever the name.
	{"token", "NOTES=ghp_FAKEfake0123456789FAKEfake0123456789", true},
	{"token", "A1=gho_FAKEfake0123456789FAKEfake0123456789", true},
	{"token", "A2=ghu_FAKEfake0123456789FAKEfake0123456789", true},
	{"token", "A3=ghs_FAKEfake0123456789FAKEfake0123456789", true},
	{"token", "A4=ghr_FAKEfake0123456789FAKEfake0123456789", true},
	{"token", "A5=github_pat_11FAKEFAKE0123456789_FAKEfake0123456789FAKEfake0123456789FAKEfake0123456789fa", true},
	{"token", "A6=glpat-FAKEfake0123456789_x", true},
	{"token", "A7=xoxb-123456789012-1234567890123-FAKEfakeFAKEfakeFAKEfake", true},
	{"token", "A8=xoxp-123456789012-123456789012-1234567890123-0123456789abcdef0123456789abcdef", true},
	{"token", "A9=xoxa-2-123456789012-1234567890123-FAKEfake", true},
	{"token", "B1=xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef", true},
	{"token", "B2=sk-FAKEfake0123456789FAKEfake0123456789FAKEfake0123", true},
	{"token", "B3=sk-proj-FAKEfake0123456789FAKEfake0123456789FAKEfake0123456789", true},
	{"token", "B4=sk-ant-api03-FAKEfake0123456789FAKEfake0123456789FAKEfake0123456789-FAKEfakeAA", true},
	{"token", "B5=AKIAIOSFODNN7EXAMPLE", true},
	{"token", "B6=ASIAZ2FAKE3EXAMPLE45", true},
	{"token", "B7=AIzaSyFAKEfake0123456789FAKEfake0123456", true},
	{"token", "B8=npm_FAKEfake0123456789FAKEfake0123456789", true},
	{"token", "B9=hf_FAKEfake0123456789FAKEfake0123456789", true},
	{"token", "C1=pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKlszLCJGQUtFIl0AAAYgFAKE", true},
	{"token", "C2=sk_live_FAKEfake0123456789FAKEfake", true},
	{"token", "C3=-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n", true},
	{"token", "C4=-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAFAKE\n-----END RSA PRIVATE KEY-----", true},
	{"token", "C5=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", true},
	{"token", "HEADERS=Authorization: Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", true},
	{"token", "ARGS=--registry-token=ghp_FAKEfake0123456789FAKEfake0123456789 --verbose", true},
	// Ordinary variables that pass.
	{"ordinary", "PATH=/home/dev/.cargo/bin:/home/dev/go/bin:/usr/local/go/bin:/nix/store/0c7shpmfl2dq7mdlyl5ip4gvk0y9gc7f-git-2.44.0/bin:/usr/bin:/bin", false},
	{"ordinary", "HOME=/home/dev", false},
	{"ordinary", "LANG=en_US.UTF-8", false},
	{"ordinary", "LC_ALL=C.UTF-8", false},
	{"ordinary", "TERM=xterm-256color", false},
	{"ordinary", "GOPATH=/home/dev/go", false},
	{"ordinary", "GOPROXY=https://proxy.golang.org,direct", false},
	{"ordinary", "GOFLAGS=-mod=mod -trimpath", false},
	{"ordinary", "GIT_AUTHOR_NAME=Dev Eloper", false},
	{"ordinary", "GIT_AUTHOR_EMAIL=dev@example.com", false},
	{"ordinary", "GIT_COMMITTER_NAME=Dev Eloper", false},
	{"ordinary", "GIT_CONFIG_GLOBAL=/home/dev/.config/git/work.gitconfig", false},
	{"ordinary", "GIT_CONFIG_SYSTEM=/etc/gitconfig", false},
	{"ordinary", "GIT_CONFIG_NOSYSTEM=1", false},
	{"ordinary", "GIT_EDITOR=vim", false},
	{"ordinary", "EDITOR=vim", false},
	{"ordinary", "LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:st=37;44:ex=01;32:*.tar=01;31:*.tgz=01;31:*.zip=01;31:*.jpg=01;35:*.png=01;35:*.mp3=00;36:", false},
	{"ordinary", "UPSTREAM_COMMIT=9fceb02d0ae598e95dc970b74767f19372d61af8", false},
	{"ordinary", "CHECKSUM=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", false},
	{"ordinary", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus,guid=0123456789abcdef0123456789abcdef", false},
	{"ordinary", "BUILD_ID=4f9a2c1e-7b3d-4e8f-9a1b-2c3d4e5f6a7b", false},
	{"ordinary", "DOCS=https://example.com/search?q=token&page=2", false},
	{"ordinary", "EMPTY_PARAM=https://example.com/?token=", false},
	{"ordinary", "CI_JOB_URL=https://gitlab.com/acme/x/-/jobs/123456", false},
	{"ordinary", "HOMEPAGE=https://example.com/a@b", false},
	{"ordinary", "PLAIN_URL=https://u@example.com/", false},
	{"ordinary", "SSH_URL=ssh://git@github.com/o/r.git", false},
	{"ordinary", "NAMED_USER=https://first.last@example.com/repo.git", false},
	{"ordinary", "SLACK_CHANNEL=https://slack.com/app_redirect?channel=C0123", false},
	{"ordinary", "npm_config_@acme:registry=https://npm.pkg.example.com/", false},
	{"ordinary", "npm_config_loglevel=warn", false},
	{"ordinary", "PIP_PACKAGES=sk-learn-contrib-helpers-for-everyone scikit-learn", false},
	{"ordinary", "ENCODED=dGhpcyBpcyBub3QgYSBzZWNyZXQgYXQgYWxsLCBqdXN0IHRleHQ=", false},
	{"ordinary", "KEYBOARD_LAYOUT=us", false},
	{"ordinary", "MY_AUTHOR=keep-author", false},
	{"ordinary", "XDG_SESSION_TYPE=wayland", false},
	{"ordinary", "DISPLAY=:0", false},
}

// TestScrubEnv: the default scrub drops each credential of the table and
// passes each ordinary variable, alone and all together.
func TestScrubEnv(t *testing.T) {
	sb := &Sandbox{}
	var all, wantKept []string
	for _, c := range scrubEnvCases {
		name, _, _ := strings.Cut(c.kv, "=")
		kept, dropped := sb.scrubEnv([]string{c.kv})
		if c.drop && (len(kept) != 0 || len(dropped) != 1 || dropped[0] != name) {
			t.Errorf("%s: %q was passed", c.class, c.kv)
		}
		if !c.drop && (len(kept) != 1 || len(dropped) != 0) {
			t.Errorf("%s: %q was dropped", c.class, c.kv)
		}
		all = append(all, c.kv)
		if !c.drop {
			wantKept = append(wantKept, c.kv)
		}
	}
	if kept, _ := sb.scrubEnv(all); !slices.Equal(kept, wantKept) {
		t.Errorf("the whole table kept\n%q\nwant\n%q", kept, wantKept)
	}
}

// TestScrubEnvAllowAndMore: AllowEnv passes a variable whatever its name
// or value; ScrubEnv drops more names, matched as the default list's are.
func TestScrubEnvAllowAndMore(t *testing.T) {
	for _, c := range []struct {
		sb   Sandbox
		kv   string
		drop bool
	}{
		{Sandbox{AllowEnv: []string{"GITHUB_TOKEN"}}, "GITHUB_TOKEN=ghp_FAKEfake0123456789FAKEfake0123456789", false},
		{Sandbox{AllowEnv: []string{"REMOTE"}}, "REMOTE=https://bob:pw@example.com/", false},
		{Sandbox{AllowEnv: []string{"NOTES"}}, "NOTES=AKIAIOSFODNN7EXAMPLE", false},
		{Sandbox{AllowEnv: []string{"GIT_SSH_COMMAND"}}, "GIT_SSH_COMMAND=ssh -v", false},
		{Sandbox{AllowEnv: []string{"npm_config_//r.example/:_authToken"}}, "npm_config_//r.example/:_authToken=x", false},
		{Sandbox{AllowEnv: []string{"github_token"}}, "GITHUB_TOKEN=x", true}, // exact, case included
		{Sandbox{ScrubEnv: []string{"MY_*"}}, "my_thing=1", true},
		{Sandbox{ScrubEnv: []string{"MY_*"}}, "YOUR_THING=1", false},
		{Sandbox{ScrubEnv: []string{"REGISTRY"}}, "npm_config_@acme:registry=https://r.example/", true},
		{Sandbox{ScrubEnv: []string{"MY_*"}, AllowEnv: []string{"MY_OK"}}, "MY_OK=1", false},
		{Sandbox{ScrubEnv: []string{"[Q]UIET"}}, "QUIET=1", true},
	} {
		kept, _ := c.sb.scrubEnv([]string{c.kv})
		if got := len(kept) == 0; got != c.drop {
			t.Errorf("AllowEnv %q ScrubEnv %q: %q dropped = %v, want %v", c.sb.AllowEnv, c.sb.ScrubEnv, c.kv, got, c.drop)
		}
	}
}

// TestScrubEnvDefaultChanged: a program that changes DefaultScrubEnv has
// its change applied at the next scrub (the compiled list is a cache).
func TestScrubEnvDefaultChanged(t *testing.T) {
	sb := &Sandbox{}
	if kept, _ := sb.scrubEnv([]string{"QUIETLY=1"}); len(kept) != 1 {
		t.Fatal("QUIETLY was dropped")
	}
	saved := DefaultScrubEnv
	t.Cleanup(func() { DefaultScrubEnv = saved })
	DefaultScrubEnv = append(slices.Clone(saved), "QUIET*")
	if kept, _ := sb.scrubEnv([]string{"QUIETLY=1"}); len(kept) != 0 {
		t.Error("QUIETLY was passed after QUIET* was added to DefaultScrubEnv")
	}
	DefaultScrubEnv[len(DefaultScrubEnv)-1] = "LOUD*" // changed in place
	if kept, _ := sb.scrubEnv([]string{"QUIETLY=1"}); len(kept) != 1 {
		t.Error("QUIETLY was dropped after QUIET* was replaced in DefaultScrubEnv")
	}
}

// TestCharMaskNeverRejectsAMatch: the mask pre-filter never skips a
// pattern that matches (the patterns and names of
// TestEnvPatternMatchesPathMatch and the table's).
func TestCharMaskNeverRejectsAMatch(t *testing.T) {
	pats := compileEnvPatterns(DefaultScrubEnv, []string{"A*B*C", "*AB*AB*", "**", "*", "X", "A-B*", "*.*", "É*"})
	for _, c := range scrubEnvCases {
		name, _, _ := strings.Cut(c.kv, "=")
		for _, n := range []string{name, "A-BX", "X.Y", "ÉTÉ", "AXBYC"} {
			up := strings.ToUpper(n)
			for _, p := range pats {
				if p.match(up) && p.mask&^charMask(up) != 0 {
					t.Errorf("mask of %q rejects %q, which it matches", p.pat, up)
				}
			}
		}
	}
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
