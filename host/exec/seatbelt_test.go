package exec

import (
	"regexp"
	"strings"
	"testing"
)

// TestSeatbeltProfile checks the text of the macOS profile: balanced,
// with each rule the Linux sandbox enforces, and protected-path
// expressions that match exactly the names they must (the profile itself
// cannot be run here).
func TestSeatbeltProfile(t *testing.T) {
	sb := &Sandbox{Roots: []string{"/Users/u/ws", `/Users/u/we"ird`}, Home: "/Users/u", DenyRead: []string{"/Users/u/secret.txt"}, WritePaths: []string{"/Users/u/cache"}}
	p := SeatbeltProfile(sb, "/private/tmp/agenthost-sandbox-1")
	if strings.Count(p, "(") != strings.Count(p, ")") {
		t.Fatalf("unbalanced parentheses:\n%s", p)
	}
	for _, want := range []string{
		"(deny default)", "(allow file-read*)", `(subpath "/Users/u/.ssh")`, `(subpath "/Users/u/.aws")`,
		`(subpath "/Users/u/.docker/config.json")`, `(subpath "/Users/u/secret.txt")`,
		`(subpath "/Users/u/ws")`, `(subpath "/Users/u/we\"ird")`, `(subpath "/private/tmp/agenthost-sandbox-1")`,
		`(subpath "/Users/u/cache")`, `(literal "/dev/null")`, "(deny file-write-setugid)", "(deny network*)",
		"(allow signal (target same-sandbox))",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %s", want)
		}
	}
	// The read rules: the denial comes before the roots' allowance (in
	// Seatbelt the last matching rule wins).
	if strings.Index(p, `(subpath "/Users/u/.ssh")`) > strings.LastIndex(p, `(subpath "/Users/u/ws")`) {
		t.Errorf("roots must be allowed after the secrets are denied")
	}
	if strings.Contains(SeatbeltProfile(&Sandbox{Roots: []string{"/w"}, Network: true}, "/t"), "(deny network*)") {
		t.Errorf("Network: the profile still denies the network")
	}

	res := seatbeltProtected([]string{"/Users/u/ws"}, []string{"secrets/*.pem"})
	var compiled []*regexp.Regexp
	for _, r := range res {
		compiled = append(compiled, regexp.MustCompile(r))
	}
	matches := func(path string) bool {
		for _, re := range compiled {
			if re.MatchString(path) {
				return true
			}
		}
		return false
	}
	for _, path := range []string{
		"/Users/u/ws/.git/hooks/pre-commit", "/Users/u/ws/.git/hooks", "/Users/u/ws/.git/config", "/Users/u/ws/.git/commondir",
		"/Users/u/ws/sub/deep/.git/hooks/post-checkout", "/Users/u/ws/.git/modules/a/b/hooks/pre-push", "/Users/u/ws/.git/modules/m/config",
		"/Users/u/ws/.git/worktrees/w/gitdir", "/Users/u/ws/wt/.git", "/Users/u/ws/.envrc", "/Users/u/ws/a/.envrc", "/Users/u/ws/.mcp.json",
		"/Users/u/ws/.claude/settings.json", "/Users/u/ws/.claude/settings.local.json", "/Users/u/ws/.codex/config.toml",
		"/Users/u/ws/.vscode/tasks.json", "/Users/u/ws/.vscode/settings.json", "/Users/u/ws/.husky/pre-commit", "/Users/u/ws/secrets/k.pem",
	} {
		if !matches(path) {
			t.Errorf("%s is not protected", path)
		}
	}
	for _, path := range []string{
		"/Users/u/ws/.git/index", "/Users/u/ws/.git/objects/ab/cdef", "/Users/u/ws/.git/refs/heads/main", "/Users/u/ws/.git/COMMIT_EDITMSG",
		"/Users/u/ws/.git/HEAD", "/Users/u/ws/src/config", "/Users/u/ws/hooks/x", "/Users/u/ws/.claude/commands/x.md",
		"/Users/u/ws/.vscode/launch.json", "/Users/u/ws/.envrc.example", "/Users/u/other/.envrc", "/Users/u/ws/secrets/k.txt",
	} {
		if matches(path) {
			t.Errorf("%s is protected, but git add/commit or an ordinary edit needs it", path)
		}
	}
}
