package exec

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The second layer (issue 22): where the kernel refuses a user namespace
// (Ubuntu 23.10 and later, Docker's default seccomp profile), the
// command still gets no network (seccomp refuses socket(2)) and nothing
// it started outlives the run (the helper, a child subreaper, kills its
// whole tree). TestNoUserNamespaces runs TestNoUserNSInner in a user
// namespace whose max_user_namespaces is 0, where a new one is refused
// with ENOSPC, as on those machines.
func TestNoUserNamespaces(t *testing.T) {
	if landlockABI() == 0 || !haveSeccomp {
		t.Skip("skipped: needs Landlock and a seccomp filter for this architecture")
	}
	if err := osexec.Command("unshare", "--user", "--map-root-user", "true").Run(); err != nil {
		t.Skipf("skipped: cannot make the user namespace that refuses others (unshare: %v)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, "unshare", "--user", "--map-root-user", "sh", "-c",
		`echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh",
		os.Args[0], "-test.run", "^TestNoUserNSInner$", "-test.v", "-test.count", "1")
	cmd.Env = append(os.Environ(), "AGENTHOST_TEST_NOUSERNS=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNoUserNSInner") {
		t.Fatalf("without user namespaces: %v\n%s", err, out)
	}
}

func TestNoUserNSInner(t *testing.T) {
	if os.Getenv("AGENTHOST_TEST_NOUSERNS") == "" {
		t.Skip("run by TestNoUserNamespaces")
	}
	if err := osexec.Command("unshare", "--user", "true").Run(); err == nil {
		t.Fatal("user namespaces are not refused here: the test would prove nothing")
	}
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	must(t, os.Mkdir(ws, 0o755))
	r := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace, DefaultTimeout: 30 * time.Second})
	defer r.Close()
	var reached atomic.Int32
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	must(t, err)
	defer udp.Close()
	go func() {
		b := make([]byte, 64)
		for {
			if _, _, err := udp.ReadFrom(b); err != nil {
				return
			}
			reached.Add(1)
		}
	}()
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	must(t, err)
	defer tcp.Close()
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			c.Close()
		}
	}()
	run := func(command string) Output {
		t.Helper()
		out, err := r.Exec(context.Background(), Request{Command: command, Cwd: ws,
			Sandbox: &Sandbox{Roots: []string{ws}, Home: base, BestEffort: true}})
		must(t, err)
		return out
	}
	// A refusal no setting shows (Docker's seccomp profile): the first
	// start is refused and the run made again without namespaces.
	noProbe = true
	nsBroken.Store(false)
	// Required: the refused start fails the run, and leaves no journal
	// (its baseline was made while the helper started), which the next
	// run would take for a dead run's and undo the user's changes by.
	_, err = r.Exec(context.Background(), Request{Command: "true", Cwd: ws,
		Sandbox: &Sandbox{Roots: []string{ws}, Home: base, Required: true}})
	if !errors.Is(err, ErrNoSandbox) {
		t.Fatalf("a required sandbox without namespaces: %v, want ErrNoSandbox", err)
	}
	if _, err := os.Lstat(filepath.Join(ws, journalDir, journalName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a start the kernel refused left its journal: %v", err)
	}
	nsBroken.Store(false)
	if out := run("echo fell back"); !strings.Contains(out.Stdout, "fell back") || !strings.Contains(strings.Join(out.Sandbox.Missing, ";"), "namespaces") {
		t.Fatalf("a start refused by the kernel was not made again without namespaces: %+v", out)
	}
	if !nsBroken.Load() {
		t.Fatal("a refused start was not remembered")
	}
	// Where a setting shows it (max_user_namespaces, as TestNoUserNamespaces
	// sets it), the first run makes its set-up once; where none does (the
	// seccomp refusal of TestHelperAttacksAsNobody) the probe says nothing.
	why := usernsSurelyRefused()
	if readSysctl("/proc/sys/user/max_user_namespaces") == "0" {
		if !strings.Contains(why, "max_user_namespaces") {
			t.Fatalf("the probe does not see max_user_namespaces=0: %q", why)
		}
	} else if why != "" {
		t.Fatalf("the probe says %q where no setting refuses user namespaces", why)
	}

	_, uport, _ := net.SplitHostPort(udp.LocalAddr().String())
	_, tport, _ := net.SplitHostPort(tcp.Addr().String())
	out := run(fmt.Sprintf(`echo x > /dev/udp/127.0.0.1/%s; echo x > /dev/tcp/127.0.0.1/%s; echo x > /dev/udp/127.0.0.1/53; echo done`, uport, tport))
	if !strings.Contains(out.Stdout, "done") {
		t.Fatalf("the command did not run: %+v", out)
	}
	if !strings.Contains(strings.Join(out.Sandbox.Missing, ";"), "namespaces") {
		t.Errorf("the run does not say the namespaces are missing: %+v", out.Sandbox)
	}
	time.Sleep(50 * time.Millisecond)
	if n := reached.Load(); n != 0 {
		t.Errorf("%d packets or connections reached the test's listeners:\n%s", n, out.Stderr)
	}

	// A secret no deny list names: unreadable, Landlock reading from the
	// list a view would show.
	must(t, os.WriteFile(filepath.Join(base, ".pgpass"), []byte("layer2-secret-91c\n"), 0o600))
	out = run("cat " + filepath.Join(base, ".pgpass") + "; true")
	if strings.Contains(out.Stdout, "layer2-secret-91c") {
		t.Errorf("without a view a command read an unlisted secret of the home directory")
	}

	// A daemon that double-forks into a new session and keeps writing.
	beat := filepath.Join(ws, "beat")
	// The command waits for its first beat, so that a slow start (a
	// loaded machine, the race detector) cannot pass for a daemon that
	// was ended.
	out = run(`setsid sh -c 'while :; do echo x >> beat; sleep 0.02; done' </dev/null >/dev/null 2>&1 & for i in $(seq 500); do [ -s beat ] && break; sleep 0.01; done; echo started`)
	if !strings.Contains(out.Stdout, "started") {
		t.Fatalf("the daemon did not start: %+v", out)
	}
	time.Sleep(100 * time.Millisecond)
	st1, err := os.Stat(beat)
	if err != nil {
		t.Fatalf("the daemon never wrote: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if st2, _ := os.Stat(beat); st2.Size() != st1.Size() {
		t.Errorf("a daemon outlived the run: %s grew from %d to %d bytes", beat, st1.Size(), st2.Size())
	}
}

// TestAttacksWithoutUserNamespaces runs the attack tables, the everyday
// list and the helper's and the check's attacks again where user
// namespaces are refused (issue 22): the second layer must let none of
// them through and break none of the everyday commands. Only what the
// tables check holds there; what that layer does not give (a /proc of
// its own, plants refused at write time) is `agent-host sandbox check`'s
// to report, and the view's tests skip.
func TestAttacksWithoutUserNamespaces(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: it runs the attack tables again")
	}
	if raceEnabled {
		// The same code as the first pass, run again in other
		// conditions: under the race detector it took 10 minutes of a
		// CI run. .ci/run runs it without -race, as a step of its own.
		t.Skip("skipped under -race: .ci/run runs it without the race detector")
	}
	if landlockABI() == 0 || !haveSeccomp {
		t.Skip("skipped: needs Landlock and a seccomp filter for this architecture")
	}
	if err := osexec.Command("unshare", "--user", "--map-root-user", "true").Run(); err != nil {
		t.Skipf("skipped: cannot make the user namespace that refuses others (unshare: %v)", err)
	}
	names := []string{"TestSandboxAttacks", "TestProtectAttacks", "TestSandboxStillWorks", "TestSandboxDeniesMoreSecrets",
		"TestSandboxScrubsMoreEnv", "TestHelperUnreachable", "TestHelperSignals",
		"TestSandboxNoCapabilities", "TestSandboxNoUnixSockets", "TestGitDirLinksRemoved", "TestKilledRunPlantUndone", "TestJournalGoneAfterRun",
		"TestMetadataOutsideRefused", "TestMetadataLinkSwapRace", "TestAllowNet", "TestAllowNetEmptyIsNoNetwork", "TestAllowNetGitClone", "TestAllowNetPackageManagers"}
	ctx, cancel := context.WithTimeout(context.Background(), 14*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, "unshare", "--user", "--map-root-user", "sh", "-c",
		`echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh",
		os.Args[0], "-test.run", "^("+strings.Join(names, "|")+")$", "-test.v", "-test.count", "1", "-test.timeout", "14m")
	cmd.Env = append(os.Environ(), "AGENTHOST_TEST_NOUSERNS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("without user namespaces: %v\n%s", err, out)
	}
	for _, name := range names {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass without user namespaces:\n%s", name, out)
		}
	}
}
