package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestExecWithoutUserNamespaces (issue 22): where the kernel refuses a
// user namespace (here a user namespace whose max_user_namespaces is 0,
// as on Ubuntu's AppArmor default or in Docker), `agent-host exec`
// refuses to run the command by default, naming what is missing and how
// to fix it, and with --sandbox=best-effort says what is not enforced
// before the command runs, then runs it.
func TestExecWithoutUserNamespaces(t *testing.T) {
	if err := exec.Command("unshare", "--user", "--map-root-user", "true").Run(); err != nil {
		t.Skipf("skipped: cannot make the user namespace that refuses others (unshare: %v)", err)
	}
	w := newWorld(t)
	run := func(args ...string) result {
		t.Helper()
		cmd := w.cmd()
		cmd.Path, _ = exec.LookPath("unshare")
		cmd.Args = append([]string{"unshare", "--user", "--map-root-user", "sh", "-c",
			`echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh", bin}, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		r := result{stdout: out.String(), stderr: errb.String()}
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		}
		return r
	}
	r := run("exec", "--", "echo ran")
	if r.code == 0 || strings.Contains(r.stdout, "ran") || !strings.Contains(r.stderr, "namespaces") || !strings.Contains(r.stderr, "best-effort") {
		t.Errorf("default: want a refusal naming the namespaces and the fix, got exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	r = run("exec", "--sandbox=best-effort", "--", "echo ran")
	if r.code != 0 || !strings.Contains(r.stdout, "ran") {
		t.Fatalf("best effort: exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "not enforced: namespaces") {
		t.Errorf("best effort: no word before the run of what is not enforced: %q", r.stderr)
	}
}

// TestSandboxCheck: `agent-host sandbox check` runs its live self-test
// and agrees with what the attack tables see here: every promise held
// where user namespaces work, and, where they are refused, the view's
// promises (metadata outside, outside processes) reported missing with
// exit 1, the others still held.
func TestSandboxCheck(t *testing.T) {
	w := newWorld(t)
	if err := exec.Command("unshare", "-Urm", "true").Run(); err == nil {
		r := w.run("", "sandbox", "check")
		if r.code != 0 || strings.Contains(r.stdout, "MISSING") || !strings.Contains(r.stdout, "ok      no-secret-read") || strings.Contains(r.stdout, "net-by-name") {
			t.Errorf("sandbox check with user namespaces: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		r = w.run("", "sandbox", "check", "--allow-net", "allowed.test")
		if r.code != 0 || strings.Contains(r.stdout, "MISSING") || !strings.Contains(r.stdout, "ok      net-by-name") || !strings.Contains(r.stdout, "ok      no-network") {
			t.Errorf("sandbox check --allow-net with user namespaces: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
	if err := exec.Command("unshare", "--user", "--map-root-user", "true").Run(); err != nil {
		return
	}
	cmd := w.cmd()
	cmd.Path, _ = exec.LookPath("unshare")
	cmd.Args = []string{"unshare", "--user", "--map-root-user", "sh", "-c",
		`echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh", bin, "sandbox", "check", "--allow-net", "allowed.test"}
	out, err := cmd.CombinedOutput()
	ee, _ := err.(*exec.ExitError)
	if ee == nil || ee.ExitCode() != 1 {
		t.Errorf("sandbox check without user namespaces: want exit 1, got %v\n%s", err, out)
	}
	for _, want := range []string{"MISSING layer: namespaces", "MISSING no-outside-process", "ok      no-write-outside", "ok      no-network", "ok      no-secret-read", "ok      no-daemon-left", "ok      no-plant", "ok      net-by-name"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("sandbox check without user namespaces: no %q in\n%s", want, out)
		}
	}
	pr := w.run("", "sandbox", "apparmor-profile")
	if pr.code != 0 || !strings.Contains(pr.stdout, "userns,") || !strings.Contains(pr.stdout, "profile agent-host ") {
		t.Errorf("apparmor-profile: exit %d\n%s", pr.code, pr.stdout)
	}
}
