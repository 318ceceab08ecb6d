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
