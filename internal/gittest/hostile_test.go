package gittest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostileChild marks the go test this test starts, which must not start
// another.
const hostileChild = "AGENTHOST_GITTEST_HOSTILE_CHILD"

// hostilePackages are the packages whose tests ask git; hostileTests
// selects their git-oracle tests.
var (
	hostilePackages = []string{"./host/walk", "./host", "./cmd/agent-host", "./mcpserver"}
	hostileTests    = "Conformance|Worktree|Git|Ignore|Walk|Jail|Confine|Checkout|Generated|ListDirectory|Missing|Bound|Slow"
)

// TestSuiteIgnoresTheDevelopersGitSetup runs the git-oracle tests of every
// package that has them with a developer's git setup that would change
// their answers if it leaked into git or into the code under test: a
// global excludes file ignoring a.go (the setup that failed three tests),
// *.log and sub/, core.ignoreCase in ~/.gitconfig, configuration from
// GIT_CONFIG_COUNT, and LANG. They must all pass. Skipped with -short
// (it builds and runs four test binaries).
func TestSuiteIgnoresTheDevelopersGitSetup(t *testing.T) {
	if testing.Short() || os.Getenv(hostileChild) != "" {
		t.Skip("runs the other packages' tests; not with -short")
	}
	Skip(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not installed")
	}
	// Where the build cache, modules and go env settings are, from the
	// real environment: a new HOME would otherwise mean a cold build.
	out, err := exec.Command(goBin, "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	var goenv map[string]string
	if err := json.Unmarshal(out, &goenv); err != nil {
		t.Fatal(err)
	}
	if goenv["GOMOD"] == "" {
		t.Skip("not in the module")
	}

	home := filepath.Join(t.TempDir(), "home")
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".config/git/ignore", "a.go\n*.log\nsub/\n!keep.tmp\n")
	write(".gitconfig", "[core]\n\tignoreCase = true\n")

	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !isGitVar(k) && !strings.HasPrefix(k, "GO") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"HOME="+home,
		"LANG=de_DE.UTF-8",
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=core.attributesFile",
		"GIT_CONFIG_VALUE_0="+filepath.Join(home, "attributes"),
		"GOCACHE="+goenv["GOCACHE"],
		"GOMODCACHE="+goenv["GOMODCACHE"],
		"GOPATH="+goenv["GOPATH"],
		"GOENV="+goenv["GOENV"],
		hostileChild+"=1",
	)
	// The setup is hostile: git run plainly in it ignores a.go.
	probe := t.TempDir()
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = probe, env
		b, err := cmd.Output()
		return string(b), err
	}
	if _, err := git("init", "-q"); err != nil {
		t.Fatal(err)
	}
	if got, _ := git("check-ignore", "--no-index", "a.go", "x.log"); !strings.Contains(got, "a.go") || !strings.Contains(got, "x.log") {
		t.Fatalf("git does not see the hostile setup (%q): the test tests nothing", got)
	}

	args := append([]string{"test", "-count=1", "-short", "-run", hostileTests}, hostilePackages...)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = filepath.Dir(goenv["GOMOD"])
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s with a hostile git setup in HOME: %v\n%s", strings.Join(args, " "), err, b)
	}
	t.Logf("%s", b)
}
