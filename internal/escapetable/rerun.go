package escapetable

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host/jail"
)

// WithoutOpenat2 reports whether this process runs with openat2 switched
// off (jail.NoOpenat2Env set): the run RerunWithoutOpenat2 starts.
func WithoutOpenat2() bool { return os.Getenv(jail.NoOpenat2Env) != "" }

// RerunWithoutOpenat2 runs the tests of this test binary that match the
// -test.run pattern run a second time, in a child process with
// jail.NoOpenat2Env set, so that every resolution takes the portable
// descriptor walk alone (the macOS and BSD path), and fails t if any of
// them fails. Processes the tests start (agent-host under test) inherit
// the variable. It skips in the child itself and where there is no
// openat2 to switch off (the first run was already walk-only).
func RerunWithoutOpenat2(t *testing.T, run string) {
	t.Helper()
	if WithoutOpenat2() {
		t.Skip("this is the run without openat2")
	}
	if runtime.GOOS != "linux" {
		t.Skip("no openat2 on this platform: the tests ran walk-only already")
	}
	args := []string{"-test.run=" + run, "-test.count=1"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), jail.NoOpenat2Env+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("without openat2 (%s=1 %s %s): %v\n%s", jail.NoOpenat2Env, os.Args[0], strings.Join(args, " "), err, out)
	}
	if strings.Contains(string(out), "no tests to run") {
		t.Fatalf("without openat2: %s matched no test\n%s", run, out)
	}
	t.Logf("without openat2:\n%s", out)
}
