package exec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSandboxNestedRun: a sandboxed command that itself runs a sandboxed
// command on the same root (agent-host exec inside agent-host exec; here
// this test binary, as TestNestedInner) does not wait for the outer run's
// hold on the root, which lasts until the inner run has ended: it runs at
// once, and says what its own sandbox lacks inside the outer one.
func TestSandboxNestedRun(t *testing.T) {
	f := newSBFixture(t)
	sb := f.sandbox()
	// The test binary lies in a temporary directory of go test's, which
	// the command's view does not hold unless asked.
	sb.Read = []string{filepath.Dir(os.Args[0])}
	req := f.request(`"$SELF" -test.run '^TestNestedInner$' -test.v`, sb,
		"SELF="+os.Args[0], "NESTED_WS="+f.ws, "AGENTHOST_TEST_NESTED=1")
	req.Timeout = 20 * time.Second
	t0 := time.Now()
	out, err := f.r.Exec(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if out.TimedOut || !strings.Contains(out.Stdout, "inner: exit 0, stdout inner-ok") {
		t.Fatalf("the nested run did not run (after %v): %+v", time.Since(t0), out)
	}
	// Inside the outer run's view every directory may be listed (nothing
	// in it is secret), so the inner run's read rules are whole; only
	// its namespaces are refused (Landlock refuses it the uid_map).
	if !strings.Contains(out.Stdout, "missing: [namespaces") || strings.Contains(out.Stdout, "landlock-read") {
		t.Errorf("the nested run should report only its namespaces missing: %s", out.Stdout)
	}
}

// TestNestedInner is TestSandboxNestedRun's inner run (it skips
// otherwise): a sandboxed run on NESTED_WS, best effort, reported on
// standard output.
func TestNestedInner(t *testing.T) {
	if os.Getenv("AGENTHOST_TEST_NESTED") == "" {
		t.Skip("run by TestSandboxNestedRun")
	}
	r := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace, DefaultTimeout: 10 * time.Second})
	defer r.Close()
	ws := os.Getenv("NESTED_WS")
	out, err := r.Exec(context.Background(), Request{Command: "echo inner-ok", Cwd: ws, Sandbox: &Sandbox{Roots: []string{ws}, BestEffort: true}})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, m := range out.Sandbox.Missing {
		missing = append(missing, strings.SplitN(m, ":", 2)[0])
	}
	fmt.Printf("inner: exit %d, stdout %s\nmissing: %v\n", out.ExitCode, strings.TrimSpace(out.Stdout), missing)
}

// TestHeldEnvNotBelievedOutside: the variable an outer run sets for its
// command is ignored in a process that is not a sandboxed command (no
// no_new_privs): set in an embedding program's environment, it would
// otherwise skip the roots' lock and widen read grants there.
func TestHeldEnvNotBelievedOutside(t *testing.T) {
	if noNewPrivs() {
		t.Skip("this test process already has no_new_privs (it runs inside a sandbox)")
	}
	t.Setenv(heldEnv, "1:2")
	if believeHeldEnv() {
		t.Fatalf("%s believed in a process without no_new_privs", heldEnv)
	}
}
