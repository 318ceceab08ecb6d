package exec

import (
	"context"
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// withoutProc makes the package behave as if /proc/self/fd were missing.
func withoutProc(t *testing.T) {
	t.Helper()
	saved := haveProcFD
	haveProcFD = func() bool { return false }
	t.Cleanup(func() { haveProcFD = saved })
}

// withoutHelper makes the package behave as if SandboxMain had not been
// called.
func withoutHelper(t *testing.T) {
	t.Helper()
	helperInstalled.Store(false)
	t.Cleanup(func() { helperInstalled.Store(true) })
}

// TestStartDirWithoutProc (issue 10, hole 4): without /proc/self/fd a run
// given an open directory never changes into it by path. With the helper
// it starts in the descriptor (fchdir) even while the directory's name is
// swapped with a link to outside; without the helper it is refused with
// ErrNoStartDir.
func TestStartDirWithoutProc(t *testing.T) {
	withoutProc(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	must(t, os.MkdirAll(filepath.Join(ws, "d"), 0o755))
	must(t, os.MkdirAll(out, 0o755))
	must(t, os.Symlink(out, filepath.Join(ws, "l")))
	r := testRunner()

	t.Run("no helper: refused", func(t *testing.T) {
		withoutHelper(t)
		d, err := os.Open(filepath.Join(ws, "d"))
		must(t, err)
		defer d.Close()
		_, err = r.Exec(context.Background(), Request{Command: "pwd", Cwd: filepath.Join(ws, "d"), Dir: d})
		if !errors.Is(err, ErrNoStartDir) {
			t.Fatalf("err = %v, want ErrNoStartDir", err)
		}
	})

	t.Run("helper: in the descriptor under a swapper", func(t *testing.T) {
		defer swapDirAndLink(t, ws)()
		runs := 0
		for i := 0; i < 50000 && runs < 30; i++ {
			// Open the directory while it is one (the caller's jail
			// would refuse the link), then start in it while the
			// swapper goes on.
			d, err := os.OpenFile(filepath.Join(ws, "d"), os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
			if err != nil {
				continue
			}
			o, err := r.Exec(context.Background(), Request{Command: "readlink /proc/self/cwd", Cwd: filepath.Join(ws, "d"), Dir: d})
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			runs++
			got := strings.TrimSpace(o.Stdout)
			if !strings.HasPrefix(got, ws+"/") {
				t.Errorf("run %d started in %q, outside the workspace (stderr %q)", i, got, o.Stderr)
			}
		}
		if runs < 10 {
			t.Fatalf("only %d runs: the race was not exercised", runs)
		}
	})
}

// TestSandboxRequiredFailsClosed: a Required sandbox that cannot be given
// (here: the helper is not installed) starts nothing and says what is
// missing; a best-effort one runs and reports it.
func TestSandboxRequiredFailsClosed(t *testing.T) {
	withoutHelper(t)
	ws := t.TempDir()
	r := testRunner()
	defer r.Close()
	marker := filepath.Join(ws, "ran")
	_, err := r.Exec(context.Background(), Request{Command: "touch " + marker, Cwd: ws, Sandbox: &Sandbox{Roots: []string{ws}, Required: true}})
	if !errors.Is(err, ErrNoSandbox) || !strings.Contains(err.Error(), "helper") {
		t.Fatalf("err = %v, want ErrNoSandbox naming the helper", err)
	}
	absent(t, marker)
	// The default is the same (issue 22): a program that forgot
	// SandboxMain is never silently unconfined.
	_, err = r.Exec(context.Background(), Request{Command: "touch " + marker, Cwd: ws, Sandbox: &Sandbox{Roots: []string{ws}}})
	if !errors.Is(err, ErrNoSandbox) || !strings.Contains(err.Error(), "SandboxMain") {
		t.Fatalf("default sandbox without the helper: err = %v, want ErrNoSandbox naming SandboxMain", err)
	}
	absent(t, marker)
	// Best effort without /proc: never started by the directory's path.
	func() {
		withoutProc(t)
		d, err := os.Open(ws)
		must(t, err)
		defer d.Close()
		_, err = r.Exec(context.Background(), Request{Command: "touch " + marker, Cwd: ws, Dir: d, Sandbox: &Sandbox{Roots: []string{ws}, BestEffort: true}})
		if !errors.Is(err, ErrNoStartDir) {
			t.Fatalf("best effort, no helper, no /proc: err = %v, want ErrNoStartDir", err)
		}
		absent(t, marker)
	}()
	haveProcFD = func() bool { return true }

	t.Setenv("SOME_API_TOKEN", "tok-123")
	o, err := r.Exec(context.Background(), Request{Command: "touch " + marker + "; echo ${SOME_API_TOKEN:-scrubbed}", Cwd: ws, Sandbox: &Sandbox{Roots: []string{ws}, BestEffort: true}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Sandbox == nil || len(o.Sandbox.Missing) == 0 || o.Sandbox.On("landlock-fs") || !o.Sandbox.On("env") {
		t.Errorf("report = %+v, want the helper missing and only env and protect enforced", o.Sandbox)
	}
	if strings.TrimSpace(o.Stdout) != "scrubbed" {
		t.Errorf("the credential reached the command: %q", o.Stdout)
	}
}

// TestSandboxEnvScrub: credentials are dropped unless allowed by name;
// explicit Request.Env entries pass.
func TestSandboxEnvScrub(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	r := testRunner()
	defer r.Close()
	for k, v := range map[string]string{"GITHUB_TOKEN": "g", "AWS_ACCESS_KEY_ID": "a", "OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "n",
		"DB_PASSWORD": "p", "MY_SECRET": "s", "SSH_AUTH_SOCK": "/x", "ALLOWED_TOKEN": "kept", "PLAIN": "plain"} {
		t.Setenv(k, v)
	}
	o, err := r.Exec(context.Background(), Request{Command: "env", Cwd: ws, Env: []string{"EXPLICIT_TOKEN=given"},
		Sandbox: &Sandbox{Roots: []string{ws}, AllowEnv: []string{"ALLOWED_TOKEN"}, Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"GITHUB_TOKEN=", "AWS_ACCESS_KEY_ID=", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "DB_PASSWORD=", "MY_SECRET=", "SSH_AUTH_SOCK=", helperEnv} {
		if strings.Contains(o.Stdout, bad) {
			t.Errorf("%s reached the command", bad)
		}
	}
	for _, good := range []string{"ALLOWED_TOKEN=kept", "PLAIN=plain", "EXPLICIT_TOKEN=given", "TMPDIR="} {
		if !strings.Contains(o.Stdout, good) {
			t.Errorf("%s did not reach the command", good)
		}
	}
}

// TestSandboxKeepsLimits: timeout, kill and output bounds hold for a
// sandboxed command, and its status is the command's, not the helper's.
func TestSandboxKeepsLimits(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	r := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace, MaxOutputBytes: 1000})
	defer r.Close()
	sb := &Sandbox{Roots: []string{ws}, Required: true}
	// The timeout leaves the shell time to set its trap first, even on a
	// loaded machine (at 300 ms a race-built run at load 12 was ended
	// before the trap was set, so SIGTERM alone ended it).
	const timeout = 2 * time.Second
	o, err := r.Exec(context.Background(), Request{Command: "trap '' TERM; sleep 30", Cwd: ws, Timeout: timeout, Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	if !o.TimedOut || o.Signal != "SIGKILL" || o.Duration > slack+testKillGrace+timeout {
		t.Errorf("timeout: %+v", o)
	}
	o, _ = r.Exec(context.Background(), Request{Command: "head -c 100000 /dev/zero | tr '\\0' x; exit 7", Cwd: ws, Sandbox: sb})
	if !o.Truncated || len(o.Stdout) > 1000 || o.ExitCode != 7 {
		t.Errorf("bounds/status: truncated=%v len=%d exit=%d", o.Truncated, len(o.Stdout), o.ExitCode)
	}
	o, _ = r.Exec(context.Background(), Request{Command: "kill -TERM $$", Cwd: ws, Sandbox: sb})
	if o.Signal != "SIGTERM" || o.ShellStatus() != 143 {
		t.Errorf("signal: %+v", o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { cancel() }()
	o, err = r.Exec(ctx, Request{Command: "sleep 30", Cwd: ws, Sandbox: sb})
	if err == nil && !o.Cancelled {
		t.Errorf("cancel: %+v", o)
	}
}

// TestProtectSeesUnlistableDirs: a planted hook in a directory the
// command made unlistable (0311: git can still run it by name) is found
// and removed. Only meaningful for a non-root user: root lists any
// directory.
func TestProtectSeesUnlistableDirs(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("skipped as root: root lists a 0311 directory anyway (the case is the same user without CAP_DAC_OVERRIDE)")
	}
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\tbare = false\n"), 0o644))
	snap, _ := snapshotProtected(context.Background(), &Sandbox{Roots: []string{ws}}, 0)
	defer snap.release()
	hook := filepath.Join(ws, ".git", "hooks", "pre-commit")
	must(t, os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755))
	must(t, os.Chmod(filepath.Join(ws, ".git", "hooks"), 0o311))
	restored := snap.restore()
	os.Chmod(filepath.Join(ws, ".git", "hooks"), 0o755)
	absent(t, hook)
	if len(restored) == 0 {
		t.Error("nothing reported restored")
	}
}

// TestRestoreFailureIsAnError: a plant the check cannot remove (here a
// hooks directory made immutable, as root, after the plant) is reported
// as a failure naming the path, which a run turns into
// ErrUnsafeWorkspace, never only a report line. A hooks directory made
// 0555 by a non-root command is opened up and emptied instead.
func TestRestoreFailureIsAnError(t *testing.T) {
	ws := t.TempDir()
	hooks := filepath.Join(ws, ".git", "hooks")
	must(t, os.MkdirAll(hooks, 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\tbare = false\n"), 0o644))
	snap, _ := snapshotProtected(context.Background(), &Sandbox{Roots: []string{ws}}, 0)
	defer snap.release()
	hook := filepath.Join(hooks, "pre-commit")
	must(t, os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755))
	must(t, os.Chmod(hooks, 0o555))
	if os.Geteuid() == 0 {
		if out, err := osexec.Command("chattr", "+i", hooks).CombinedOutput(); err != nil {
			t.Skipf("skipped: chattr +i: %v %s", err, out)
		}
		defer osexec.Command("chattr", "-i", hooks).Run()
		_, failed := snap.restoreAll()
		if !strings.Contains(strings.Join(failed, "\n"), hook+" (") {
			t.Fatalf("the failed removal of %s was not reported: %v", hook, failed)
		}
		return
	}
	if _, failed := snap.restoreAll(); len(failed) != 0 {
		t.Errorf("failures: %v", failed)
	}
	absent(t, hook)
}

// TestStartDirProcTmpfs (issue 22): with /proc covered by an empty tmpfs
// in a private mount namespace, while a goroutine swaps the start
// directory with a link to outside, no run starts outside: unsandboxed,
// sandboxed by default and best effort. A run may be refused
// (ErrNoStartDir, ErrNoSandbox); none may start in the wrong directory.
func TestStartDirProcTmpfs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: mounting over /proc needs root")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, "unshare", "--mount", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs none /proc && exec "$@"`, "sh",
		os.Args[0], "-test.run", "^TestStartDirProcTmpfsInner$", "-test.v", "-test.count", "1")
	cmd.Env = append(os.Environ(), "AGENTHOST_TEST_PROCTMPFS=1")
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "mount:") {
		t.Skipf("skipped: cannot cover /proc here: %s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestStartDirProcTmpfsInner") {
		t.Fatalf("with /proc an empty tmpfs: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func TestStartDirProcTmpfsInner(t *testing.T) {
	if os.Getenv("AGENTHOST_TEST_PROCTMPFS") == "" {
		t.Skip("run by TestStartDirProcTmpfs")
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		t.Fatal("/proc is not covered: the test would prove nothing")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	must(t, os.MkdirAll(filepath.Join(ws, "d"), 0o755))
	must(t, os.MkdirAll(out, 0o755))
	must(t, os.Symlink(out, filepath.Join(ws, "l")))
	r := testRunner()
	defer r.Close()
	defer swapDirAndLink(t, ws)()
	modes := map[string]*Sandbox{
		"unsandboxed": nil,
		"default":     {Roots: []string{ws}, Home: base},
		"best effort": {Roots: []string{ws}, Home: base, BestEffort: true},
	}
	for name, sb := range modes {
		started, nrefused, refused := 0, 0, map[string]int{}
		for i := 0; i < 20000 && started+nrefused < 40 && started < 20; i++ {
			d, err := os.OpenFile(filepath.Join(ws, "d"), os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
			if err != nil {
				continue
			}
			o, err := r.Exec(context.Background(), Request{Command: "pwd -P", Cwd: filepath.Join(ws, "d"), Dir: d, Sandbox: sb})
			d.Close()
			if err != nil {
				refused[err.Error()]++
				nrefused++
				continue
			}
			started++
			if got := strings.TrimSpace(o.Stdout); !strings.HasPrefix(got, ws+"/") {
				t.Errorf("%s: a run started in %q, outside the workspace (stderr %q)", name, got, o.Stderr)
			}
		}
		t.Logf("%s: %d started, refused: %v", name, started, refused)
		if started == 0 && len(refused) == 0 {
			t.Errorf("%s: no run was tried", name)
		}
	}
}

// swapDirAndLink exchanges ws/d (a directory) and ws/l (a link to
// outside) in a loop until the returned function is called, which waits
// for the loop to end.
func swapDirAndLink(t *testing.T, ws string) (stop func()) {
	t.Helper()
	fd, err := unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY, 0)
	must(t, err)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			unix.Renameat2(fd, "d", fd, "l", unix.RENAME_EXCHANGE)
		}
	}()
	return func() { close(done); wg.Wait(); unix.Close(fd) }
}
