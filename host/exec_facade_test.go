//go:build unix

package host_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
	hostexec "github.com/agenthost/agenthost/host/exec"
	"github.com/agenthost/agenthost/internal/gittest"
)

// TestMain lets this test binary be the sandbox helper of the commands
// its Hosts run (see host.SandboxMain).
func TestMain(m *testing.M) {
	host.SandboxMain()
	os.Exit(m.Run())
}

// execTree makes ws/ (the workspace, with sub/, a file f and a link lod
// to ../out), ws2/ (a second root) and out/ (outside), and returns the
// canonical temp dir.
func execTree(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"ws/sub", "ws2", "out"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ws/f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../out", filepath.Join(dir, "ws/lod")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func execHost(t *testing.T, dir string, policy host.PathPolicy) *host.Host {
	t.Helper()
	h, err := host.New(host.Config{
		WorkspaceRoot: filepath.Join(dir, "ws"),
		ExtraRoots:    []string{filepath.Join(dir, "ws2")},
		PathPolicy:    policy,
		Exec:          host.ExecLimits{KillGrace: 200 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestExecCwd runs one table of working directories through both Exec
// and RunCapture: each either starts in the expected directory or fails
// without starting anything.
func TestExecCwd(t *testing.T) {
	cases := []struct {
		name, cwd string // cwd: $T is the temp dir
		want      string // the directory the command sees, relative to $T
		err       error  // or the error; nil with want "" means any error
	}{
		{name: "empty is the workspace", cwd: "", want: "ws"},
		{name: "relative", cwd: "sub", want: "ws/sub"},
		{name: "absolute", cwd: "$T/ws/sub", want: "ws/sub"},
		{name: "second root", cwd: "$T/ws2", want: "ws2"},
		{name: "outside", cwd: "$T/out", err: host.ErrEscape},
		{name: "dotdot", cwd: "..", err: host.ErrEscape},
		{name: "root of the filesystem", cwd: "/", err: host.ErrEscape},
		{name: "link to outside", cwd: "lod", err: host.ErrEscape},
		{name: "missing", cwd: "nope", err: fs.ErrNotExist},
		{name: "a file", cwd: "f"},
	}
	ops := []struct {
		name string
		run  func(h *host.Host, cwd string) (host.ExecOutput, error)
	}{
		{"Exec", func(h *host.Host, cwd string) (host.ExecOutput, error) {
			return h.Exec(context.Background(), host.ExecRequest{Command: "pwd -P", Cwd: cwd})
		}},
		{"RunCapture", func(h *host.Host, cwd string) (host.ExecOutput, error) {
			return h.RunCapture(context.Background(), "pwd", []string{"-P"}, cwd, 0)
		}},
	}
	dir := execTree(t)
	h := execHost(t, dir, host.Jailed)
	for _, op := range ops {
		for _, c := range cases {
			t.Run(op.name+"/"+c.name, func(t *testing.T) {
				out, err := op.run(h, strings.ReplaceAll(c.cwd, "$T", dir))
				switch {
				case c.want != "":
					if err != nil || out.Stdout != filepath.Join(dir, c.want)+"\n" || out.ExitCode != 0 {
						t.Fatalf("got %q, %v; want %s", out.Stdout, err, c.want)
					}
				case err == nil || c.err != nil && !errors.Is(err, c.err):
					t.Fatalf("got %+v, %v; want error %v", out, err, c.err)
				case out.Pid != 0:
					t.Fatalf("an error, yet something started: %+v", out)
				}
			})
		}
	}
}

func TestExecUnrestrictedCwd(t *testing.T) {
	dir := execTree(t)
	h := execHost(t, dir, host.Unrestricted)
	out, err := h.Exec(context.Background(), host.ExecRequest{Command: "pwd -P", Cwd: filepath.Join(dir, "out")})
	if err != nil || out.Stdout != filepath.Join(dir, "out")+"\n" {
		t.Fatalf("got %q, %v", out.Stdout, err)
	}
}

func TestExecThroughHost(t *testing.T) {
	dir := execTree(t)
	h := execHost(t, dir, host.Jailed)
	ctx := context.Background()
	if l := h.Limits(); l.KillGrace != 200*time.Millisecond || l.DefaultTimeout != 2*time.Minute || l.MaxOutputBytes != 30000 {
		t.Fatalf("limits: %+v", l)
	}
	out, err := h.Exec(ctx, host.ExecRequest{Command: "echo out; echo err >&2; exit 4", Timeout: time.Hour})
	if err != nil || out.Stdout != "out\n" || out.Stderr != "err\n" || out.ExitCode != 4 || out.Timeout != 10*time.Minute {
		t.Fatalf("got %+v, %v", out, err)
	}
	// A background job neither holds the call nor survives it.
	t0 := time.Now()
	out, err = h.Exec(ctx, host.ExecRequest{Command: "sleep 30 & echo hi"})
	if err != nil || out.Stdout != "hi\n" || time.Since(t0) > 2*time.Second {
		t.Fatalf("got %+v, %v after %v", out, err, time.Since(t0))
	}
	out, err = h.Exec(ctx, host.ExecRequest{Command: "sleep 30", Timeout: 100 * time.Millisecond})
	if err != nil || !out.TimedOut {
		t.Fatalf("timeout: %+v, %v", out, err)
	}
	if _, err := h.Exec(ctx, host.ExecRequest{Command: "true", Shell: "/no/such/shell"}); !errors.Is(err, host.ErrNoShell) {
		t.Fatalf("missing shell: %v", err)
	}
}

// TestExecSandboxPolicy: the Host's policy confines commands to the roots
// as they are when each starts (AddRoot and RemoveRoot included), a
// request cannot loosen it, and with the policy off a request can still
// ask for a sandbox of its own.
func TestExecSandboxPolicy(t *testing.T) {
	dir := execTree(t)
	probe, err := host.New(host.Config{WorkspaceRoot: filepath.Join(dir, "ws"), Sandbox: host.SandboxPolicy{Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = probe.Exec(context.Background(), host.ExecRequest{Command: "true"})
	probe.Close()
	if errors.Is(err, host.ErrNoSandbox) {
		t.Skipf("skipped: no sandbox on this system: %v", err)
	}
	out, extra := filepath.Join(dir, "out"), filepath.Join(dir, "extra")
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Config{WorkspaceRoot: filepath.Join(dir, "ws"), Sandbox: host.SandboxPolicy{Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	wrote := func(h *host.Host, req host.ExecRequest, target string) bool {
		t.Helper()
		os.Remove(target)
		req.Command = "echo x > '" + target + "'"
		o, err := h.Exec(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		_, err = os.Stat(target)
		if err == nil && o.Sandbox != nil {
			t.Logf("%s written; report %+v", target, o.Sandbox)
		}
		return err == nil
	}
	if !wrote(h, host.ExecRequest{}, filepath.Join(dir, "ws", "in")) {
		t.Error("a sandboxed command could not write inside the workspace")
	}
	if wrote(h, host.ExecRequest{}, filepath.Join(out, "x")) {
		t.Error("a sandboxed command wrote outside the roots")
	}
	// A request's own sandbox cannot widen the Host's.
	if wrote(h, host.ExecRequest{Sandbox: &host.ExecSandbox{Roots: []string{"/"}, WritePaths: []string{out}, Network: true}}, filepath.Join(out, "x")) {
		t.Error("a request's Sandbox widened the Host's policy")
	}
	// Roots added and removed apply to commands started afterwards.
	if wrote(h, host.ExecRequest{}, filepath.Join(extra, "x")) {
		t.Error("wrote into a directory before it was a root")
	}
	if _, err := h.AddRoot(extra); err != nil {
		t.Fatal(err)
	}
	if !wrote(h, host.ExecRequest{}, filepath.Join(extra, "x")) {
		t.Error("could not write into a root added before the command")
	}
	if err := h.RemoveRoot(extra); err != nil {
		t.Fatal(err)
	}
	if wrote(h, host.ExecRequest{}, filepath.Join(extra, "x")) {
		t.Error("wrote into a root removed before the command")
	}

	// Policy off: unconfined, loudly in the report (none); a request may
	// still ask for a sandbox.
	off, err := host.New(host.Config{WorkspaceRoot: filepath.Join(dir, "ws"), Sandbox: host.SandboxPolicy{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if !wrote(off, host.ExecRequest{}, filepath.Join(out, "x")) {
		t.Error("with the policy off, the command could not write outside")
	}
	if wrote(off, host.ExecRequest{Sandbox: &host.ExecSandbox{Required: true}}, filepath.Join(out, "x")) {
		t.Error("with the policy off, a request's own sandbox did not confine it")
	}
	o, err := off.Exec(context.Background(), host.ExecRequest{Command: "true"})
	if err != nil || o.Sandbox != nil {
		t.Errorf("policy off: report %+v, err %v; want no report", o.Sandbox, err)
	}
}

// TestExecSessionCachePolicy: a sandboxed command's XDG_CACHE_HOME is the
// workspace's cache directory (host/exec.CacheDir) in a git work tree, for
// Exec and RunCapture alike (the facade passes its walk's answer), and
// the Host's private temporary directory when the policy, or the request,
// sets SessionCache.
func TestExecSessionCachePolicy(t *testing.T) {
	g := gittest.New(t)
	g.Setenv(t) // the Host's walk, which tells the work tree, reads git's variables
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := g.Command(ws, "git", "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cacheOf := func(p host.SandboxPolicy, req *host.ExecSandbox) string {
		t.Helper()
		p.Required = true
		h, err := host.New(host.Config{WorkspaceRoot: ws, Home: g.Home, Sandbox: p})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		o, err := h.Exec(context.Background(), host.ExecRequest{Command: `printf %s "$XDG_CACHE_HOME"`, Sandbox: req})
		if errors.Is(err, host.ErrNoSandbox) {
			t.Skipf("skipped: no sandbox on this system: %v", err)
		}
		if err != nil || o.ExitCode != 0 {
			t.Fatalf("exec: %+v, %v", o, err)
		}
		return o.Stdout
	}
	inWS := filepath.Join(ws, hostexec.CacheDir)
	if got := cacheOf(host.SandboxPolicy{}, nil); got != inWS {
		t.Errorf("default policy: XDG_CACHE_HOME %q, want %q", got, inWS)
	}
	// RunCapture runs sandboxed too, with the same answer of the walk
	// (host/exec alone, given none, keeps the caches in its TMPDIR).
	h, err := host.New(host.Config{WorkspaceRoot: ws, Home: g.Home, Sandbox: host.SandboxPolicy{Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if o, err := h.RunCapture(context.Background(), "sh", []string{"-c", `printf %s "$XDG_CACHE_HOME"`}, "", 0); err != nil || o.Stdout != inWS {
		t.Errorf("RunCapture: XDG_CACHE_HOME %q (%v), want %q", o.Stdout, err, inWS)
	}
	if got := cacheOf(host.SandboxPolicy{SessionCache: true}, nil); got == "" || strings.HasPrefix(got, ws+"/") {
		t.Errorf("SessionCache policy: XDG_CACHE_HOME %q, want the private temporary directory", got)
	}
	if got := cacheOf(host.SandboxPolicy{}, &host.ExecSandbox{SessionCache: true}); got == "" || strings.HasPrefix(got, ws+"/") {
		t.Errorf("SessionCache request: XDG_CACHE_HOME %q, want the private temporary directory", got)
	}
}

// TestExecCacheWhereTheWalkHidesIt: the workspace cache goes where the
// Host's own walk hides it, by the walk's view of the workspace, not by a
// look for ".git" of its own: a ".git" that makes no repository (an empty
// file, an empty directory; git says "not a git repository") keeps the
// caches in the private temporary directory, and a real repository gets
// the cache, whose contents a Walk with hidden files then does not list.
func TestExecCacheWhereTheWalkHidesIt(t *testing.T) {
	g := gittest.New(t)
	g.Setenv(t) // the Host's walk reads git's variables
	run := func(ws string) (cache string, listed []string) {
		t.Helper()
		h, err := host.New(host.Config{WorkspaceRoot: ws, Home: g.Home, Sandbox: host.SandboxPolicy{Required: true}})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		o, err := h.Exec(context.Background(), host.ExecRequest{Command: `mkdir -p "$XDG_CACHE_HOME/x" && echo o > "$XDG_CACHE_HOME/x/obj" && printf %s "$XDG_CACHE_HOME"`})
		if errors.Is(err, host.ErrNoSandbox) {
			t.Skipf("skipped: no sandbox on this system: %v", err)
		}
		if err != nil || o.ExitCode != 0 {
			t.Fatalf("exec: %+v, %v", o, err)
		}
		es, err := h.Walk(context.Background(), ws, ws, host.WalkOptions{Hidden: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			listed = append(listed, e.Path)
		}
		return o.Stdout, listed
	}
	for _, name := range []string{"file", "dir"} {
		ws, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for p := filepath.Dir(ws); p != "/"; p = filepath.Dir(p) {
			if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
				t.Skipf("skipped: %s is inside the git work tree %s", ws, p)
			}
		}
		if name == "file" {
			err = os.WriteFile(filepath.Join(ws, ".git"), nil, 0o644)
		} else {
			err = os.Mkdir(filepath.Join(ws, ".git"), 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, code := g.Run(t, ws, "", "rev-parse", "--is-inside-work-tree"); code == 0 {
			t.Fatalf("git takes an empty .git %s for a repository", name)
		}
		cache, listed := run(ws)
		if cache == "" || strings.HasPrefix(cache, ws+"/") {
			t.Errorf("empty .git %s: XDG_CACHE_HOME %q, want the private temporary directory", name, cache)
		}
		if _, err := os.Lstat(filepath.Join(ws, ".agent-harness")); err == nil {
			t.Errorf("empty .git %s: .agent-harness made in a workspace the walk lists whole: %q", name, listed)
		}
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g.Init(t, ws)
	cache, listed := run(ws)
	if cache != filepath.Join(ws, hostexec.CacheDir) {
		t.Errorf("repository: XDG_CACHE_HOME %q, want %q", cache, filepath.Join(ws, hostexec.CacheDir))
	}
	for _, p := range listed {
		if strings.HasPrefix(p, cache+"/") {
			t.Errorf("the walk lists what is in the cache: %s", p)
		}
	}
}
