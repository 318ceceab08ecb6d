package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// testRefusals applies what the environment asks TestMain to refuse:
// Landlock (AGENTHOST_TEST_NOLANDLOCK) and new user namespaces
// (AGENTHOST_TEST_REFUSE_USERNS).
func testRefusals() error {
	if os.Getenv("AGENTHOST_TEST_NOLANDLOCK") != "" {
		if err := refuseLandlock(); err != nil {
			return fmt.Errorf("refusing Landlock: %w", err)
		}
	}
	if os.Getenv("AGENTHOST_TEST_REFUSE_USERNS") != "" {
		if err := refuseUserNamespaces(); err != nil {
			return fmt.Errorf("refusing user namespaces: %w", err)
		}
	}
	return nil
}

// refuseLandlock installs, on every thread of this process, a seccomp
// filter that fails the three Landlock calls with ENOSYS, as a kernel
// built without Landlock (or a container profile that filters it) does.
// The filter is inherited by every process started after it.
func refuseLandlock() error {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	prog := []unix.SockFilter{
		{Code: ld, K: 0},
		{Code: jeq, K: unix.SYS_LANDLOCK_CREATE_RULESET, Jt: 3},
		{Code: jeq, K: unix.SYS_LANDLOCK_ADD_RULE, Jt: 2},
		{Code: jeq, K: unix.SYS_LANDLOCK_RESTRICT_SELF, Jt: 1},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
	return installOnAllThreads(prog)
}

// refuseUserNamespaces installs, on every thread of this process and so
// on everything it starts, the rule Docker's default seccomp profile has:
// clone and unshare with CLONE_NEWUSER fail with EPERM, and clone3, whose
// flags a filter cannot read, with ENOSYS (callers fall back to clone).
func refuseUserNamespaces() error {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
	)
	prog := []unix.SockFilter{
		{Code: ld, K: 0},                                             // 0: the call's number
		{Code: jeq, K: unix.SYS_CLONE3, Jt: 6},                       // 1: clone3 -> 8
		{Code: jeq, K: unix.SYS_CLONE, Jt: 1},                        // 2: clone -> 4
		{Code: jeq, K: unix.SYS_UNSHARE, Jf: 2},                      // 3: unshare -> 4, else -> 6
		{Code: ld, K: 16},                                            // 4: the low word of args[0]
		{Code: jset, K: unix.CLONE_NEWUSER, Jt: 1},                   // 5: CLONE_NEWUSER -> 7, else -> 6
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},                       // 6
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},  // 7
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)}, // 8
	}
	return installOnAllThreads(prog)
}

// TestLandlockRefused (issue 22): with Landlock refused (ENOSYS from a
// seccomp filter), the default sandbox refuses to run, naming Landlock,
// with user namespaces and with them refused too; best effort runs and
// reports it missing.
func TestLandlockRefused(t *testing.T) {
	if landlockABI() == 0 || !haveSeccomp {
		t.Skip("skipped: Landlock is missing here already (TestSandboxRequiredFailsClosed covers it)")
	}
	run := func(t *testing.T, wrap []string, env ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		args := append(append([]string(nil), wrap...), os.Args[0], "-test.run", "^TestLandlockRefusedInner$", "-test.v", "-test.count", "1")
		cmd := osexec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Env = append(append(os.Environ(), "AGENTHOST_TEST_NOLANDLOCK=1"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestLandlockRefusedInner") {
			t.Fatalf("%v: %v\n%s", wrap, err, out)
		}
	}
	t.Run("namespaces", func(t *testing.T) { run(t, nil) })
	t.Run("no namespaces", func(t *testing.T) {
		if err := osexec.Command("unshare", "--user", "--map-root-user", "true").Run(); err != nil {
			t.Skipf("skipped: cannot make the user namespace that refuses others (unshare: %v)", err)
		}
		run(t, []string{"unshare", "--user", "--map-root-user", "sh", "-c",
			`echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"`, "sh"}, "AGENTHOST_TEST_NOUSERNS=1")
	})
}

func TestLandlockRefusedInner(t *testing.T) {
	if os.Getenv("AGENTHOST_TEST_NOLANDLOCK") == "" {
		t.Skip("run by TestLandlockRefused")
	}
	if landlockABI() != 0 {
		t.Fatal("Landlock is not refused here: the test would prove nothing")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	ws := filepath.Join(base, "ws")
	must(t, os.Mkdir(ws, 0o755))
	victim := filepath.Join(base, "victim")
	must(t, os.WriteFile(victim, []byte("outside\n"), 0o644))
	r := testRunner()
	defer r.Close()
	req := func(bestEffort bool) Request {
		return Request{Command: "echo x >> " + victim + "; echo ran", Cwd: ws,
			Sandbox: &Sandbox{Roots: []string{ws}, Home: base, BestEffort: bestEffort}}
	}
	out, err := r.Exec(context.Background(), req(false))
	if !errors.Is(err, ErrNoSandbox) || !strings.Contains(strings.ToLower(err.Error()), "landlock") {
		t.Fatalf("default sandbox without Landlock: err = %v (stdout %q), want ErrNoSandbox naming Landlock", err, out.Stdout)
	}
	if b, _ := os.ReadFile(victim); string(b) != "outside\n" {
		t.Fatalf("the refused run still ran: %s is %q", victim, b)
	}
	out, err = r.Exec(context.Background(), req(true))
	if err != nil || !strings.Contains(out.Stdout, "ran") {
		t.Fatalf("best effort without Landlock: %v %+v", err, out)
	}
	if out.Sandbox == nil || !strings.Contains(strings.ToLower(strings.Join(out.Sandbox.Missing, ";")), "landlock") {
		t.Errorf("best effort without Landlock does not say Landlock is missing: %+v", out.Sandbox)
	}
}

// installOnAllThreads installs prog on every thread of this process
// (no_new_privs first), and so on every process it starts after.
func installOnAllThreads(prog []unix.SockFilter) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fp))); errno != 0 {
		return errno
	}
	return nil
}
