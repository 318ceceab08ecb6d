package exec

import (
	"context"
	"io"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The helper shares nothing with the command (issue 21): the helper is
// pid 1 of the command's PID namespace, and only its locked thread is
// confined, so a command that reached it (ptrace, its memory, its
// descriptors) would act with its unconfined threads or forge the exit
// status on its socket. Each test runs real commands in the sandbox and
// checks what they did from outside. TestHelperAttacksAsNobody runs them
// again as uid 65534 when the tests run as root (as in CI).

// attackBinary compiles testdata/attackhelper.c into the workspace (a
// root, so the command may run it) and returns its path there; it skips
// without cc. AGENTHOST_TEST_ATTACKBIN names one already built (the
// non-root run, whose user may not read the package directory).
func attackBinary(t *testing.T, f *sbFixture) string {
	t.Helper()
	dst := filepath.Join(f.ws, "attackhelper")
	if src := os.Getenv("AGENTHOST_TEST_ATTACKBIN"); src != "" {
		b, err := os.ReadFile(src)
		must(t, err)
		must(t, os.WriteFile(dst, b, 0o755))
		return dst
	}
	cc, err := osexec.LookPath("cc")
	if err != nil {
		t.Skip("skipped: no cc to build testdata/attackhelper.c")
	}
	if out, err := osexec.Command(cc, "-O", "-o", dst, "testdata/attackhelper.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return dst
}

// TestHelperUnreachable: the command can neither trace pid 1 (its
// helper), nor open its memory, nor write to it, nor copy its
// descriptors (the status socket among them), nor read what /proc shows
// only to a tracer. Each attack is reported by the program on its own
// line; the run must also be reported with the program's own exit code.
func TestHelperUnreachable(t *testing.T) {
	f := newSBFixture(t)
	bin := attackBinary(t, f)
	for _, attack := range []string{"ptrace", "mem", "vmwrite", "getfd", "procfiles"} {
		t.Run(attack, func(t *testing.T) {
			out := f.run(t, bin+" "+attack)
			all := out.Stdout + out.Stderr
			if strings.Contains(all, "BREACH") || !strings.Contains(all, "refused ") {
				t.Errorf("pid 1 was reached:\n%s", all)
			}
			if out.ExitCode != 0 || out.Signal != "" {
				t.Errorf("exit %d %s, want 0:\n%s", out.ExitCode, out.Signal, all)
			}
		})
	}
}

// TestHelperSignals: signals the command sends to pid 1 neither end the
// run early nor change the status it reports (a SIGSEGV from kill(2)
// used to crash the helper's Go runtime, which then reported nothing).
func TestHelperSignals(t *testing.T) {
	f := newSBFixture(t)
	// The helper is the command's parent: pid 1 of its namespace, or,
	// in the second layer, a process of this machine's.
	all := "for s in $(seq 1 64); do [ $s = 9 ] || [ $s = 19 ] || kill -$s $PPID 2>/dev/null; done"
	for _, tc := range []struct{ name, cmd string }{
		{"USR1", "kill -USR1 $PPID"},
		{"SEGV", "kill -SEGV $PPID"},
		{"BUS", "kill -BUS $PPID"},
		{"TERM", "kill -TERM $PPID"},
		{"32 and 34", "kill -32 $PPID; kill -34 $PPID"},
		{"every catchable", all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := f.run(t, tc.cmd+"; sleep 0.3; echo still-here; exit 3")
			if out.ExitCode != 3 || out.Signal != "" || !strings.Contains(out.Stdout, "still-here") || out.TimedOut {
				t.Errorf("after %q: exit %d %s (want 3), timed out %v, output:\n%s%s",
					tc.cmd, out.ExitCode, out.Signal, out.TimedOut, out.Stdout, out.Stderr)
			}
		})
	}
}

// TestSandboxNoCapabilities: the command holds no capability in its user
// namespace, also when it is uid 0 there (the tests run as root in CI,
// mapped to 0), so it cannot trace its helper (CAP_SYS_PTRACE) nor gain
// one again by execve. The bounding set is emptied only by a helper
// that has a capability to drop (started by root): a helper started by
// another user has none after its own execve, and neither has its
// command, which no_new_privs keeps from gaining one by a file.
func TestSandboxNoCapabilities(t *testing.T) {
	f := newSBFixture(t)
	out := f.run(t, `grep ^Cap /proc/self/status; sh -c 'grep ^Cap /proc/self/status' | sed s/^/child-/`)
	sets := map[string]int{}
	for _, line := range strings.Split(out.Stdout, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		sets[k]++
		n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if strings.HasSuffix(k, "CapBnd") && os.Geteuid() != 0 {
			continue
		}
		if n != 0 {
			t.Errorf("%s is %x, want none", k, n)
		}
	}
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "child-CapEff"} {
		if sets[k] != 1 {
			t.Errorf("no %s in the command's status:\n%s%s", k, out.Stdout, out.Stderr)
		}
	}
}

// TestSandboxNoUnixSockets: with or without Network, the command cannot
// connect to a unix socket listener of a process outside (an ssh-agent,
// a session bus, docker.sock; here one the test starts in its temporary
// directory), nor to an abstract one, while socketpair(2) still works.
func TestSandboxNoUnixSockets(t *testing.T) {
	f := newSBFixture(t)
	bin := attackBinary(t, f)
	path := filepath.Join(f.base, "agent.sock")
	abstract := "agenthost-test-" + strconv.Itoa(os.Getpid()) + "-" + filepath.Base(f.base)
	var reached atomic.Int32
	for _, addr := range []string{path, "@" + abstract} {
		l, err := net.Listen("unix", addr)
		must(t, err)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				reached.Add(1)
				c.Close()
			}
		}()
		defer l.Close()
	}
	for _, network := range []bool{false, true} {
		t.Run("network="+strconv.FormatBool(network), func(t *testing.T) {
			sb := f.sandbox()
			sb.Network = network
			out, err := f.r.Exec(context.Background(), f.request(bin+" unix "+path+" abstract "+abstract+" socketpair", sb))
			must(t, err)
			all := out.Stdout + out.Stderr
			if n := reached.Swap(0); n != 0 || strings.Contains(all, "BREACH") || strings.Count(all, "refused ") != 2 {
				t.Errorf("%d connections reached the listeners:\n%s", n, all)
			}
			if !strings.Contains(all, "socketpair works") {
				t.Errorf("socketpair broke:\n%s", all)
			}
		})
	}
}

// TestHelperAttacksAsNobody runs the tests above again as uid 65534, in
// a copy of the test binary that user may run: CI runs as root, where
// the helper and the command have capabilities to drop, and an ordinary
// user's case (no capability, but the same uid as the helper) must hold
// too. It needs root to change its uid, and skips otherwise.
func TestHelperAttacksAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: only root can run the tests as another user")
	}
	requireSandbox(t)
	const nobody = 65534
	dir := t.TempDir()
	must(t, os.Chmod(dir, 0o755))
	for d := filepath.Dir(dir); d != "/" && d != "/tmp"; d = filepath.Dir(d) {
		must(t, os.Chmod(d, 0o755)) // the test's own temporary directories
	}
	self, err := os.Executable()
	must(t, err)
	exe := filepath.Join(dir, "exec.test")
	copyFile(t, self, exe, 0o755)
	f := &sbFixture{ws: dir}
	bin := attackBinary(t, f)
	home := filepath.Join(dir, "home")
	must(t, os.Mkdir(home, 0o700))
	must(t, os.Chown(home, nobody, nobody))

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	names := []string{"TestHelperUnreachable", "TestHelperSignals", "TestSandboxNoCapabilities", "TestSandboxNoUnixSockets",
		// The view (view_attacks_linux_test.go): an ordinary user's
		// helper must still build it (its capabilities in its namespace
		// come through the exec as ambient ones).
		"TestViewSecretsAbsent", "TestMetadataOutsideRefused", "TestViewProcShowsNoOutsideProcess",
		"TestViewProtectedRefusedAtWrite", "TestViewProtectedParentSwapped", "TestViewSharedTmpAbsent",
		"TestViewLinkedWorktree", "TestViewForgedWorktree", "TestAllowNet"}
	run := func(names []string, env ...string) {
		t.Helper()
		cmd := osexec.CommandContext(ctx, exe, "-test.run", "^("+strings.Join(names, "|")+")$", "-test.v", "-test.count", "1")
		cmd.Dir = home
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home, "AGENTHOST_TEST_ATTACKBIN=" + bin}, env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("as uid %d %v: %v\n%s", nobody, env, err, out)
		}
		for _, name := range names {
			if !strings.Contains(string(out), "--- PASS: "+name+" ") {
				t.Errorf("%s did not pass as uid %d %v:\n%s", name, nobody, env, out)
			}
		}
	}
	run(names)
	// Again with user namespaces refused the way Docker's seccomp
	// profile refuses them (issue 22): the second layer, as an ordinary
	// user, against the attack table, the everyday list and the
	// metadata attacks.
	if landlockABI() != 0 && haveSeccomp && !testing.Short() && !raceEnabled { // under -race: .ci/run's own step
		run([]string{"TestNoUserNSInner", "TestSandboxAttacks", "TestSandboxStillWorks", "TestHelperUnreachable",
			"TestHelperSignals", "TestSandboxNoUnixSockets", "TestMetadataOutsideRefused", "TestMetadataLinkSwapRace", "TestAllowNet"},
			"AGENTHOST_TEST_NOUSERNS=1", "AGENTHOST_TEST_REFUSE_USERNS=1")
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	must(t, err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	must(t, err)
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	must(t, out.Close())
}
