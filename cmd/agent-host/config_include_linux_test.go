package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/gittest"
	"github.com/agenthost/agenthost/internal/testbin"
)

// boundedRun runs cmd, killing it after limit, and returns its result,
// how long it ran and its own peak RSS in KiB (through testbin's
// spawner; 0 for a run given started, which is bounded in time only). A
// run that had to be killed fails t. started, if given, is called once
// cmd has started.
func boundedRun(t *testing.T, cmd *exec.Cmd, limit time.Duration, started ...func(*os.Process)) (result, time.Duration, int64) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if len(started) == 0 {
		// Through the test binary as a spawner (internal/testbin): the
		// child's own peak RSS, not the test process's, which ru_maxrss
		// of a child forked from it starts from.
		took, peak, code, err := testbin.Bounded(cmd, limit, 1<<20)
		if err != nil {
			t.Fatalf("agent-host %q: %v", cmd.Args[2:], err)
		}
		return result{stdout: out.String(), stderr: errb.String(), code: code}, took, peak
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	for _, f := range started {
		f(cmd.Process)
	}
	err := cmd.Wait()
	took := time.Since(t0)
	if !timer.Stop() {
		t.Fatalf("agent-host %q still ran after %v: killed", cmd.Args[1:], limit)
	}
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("agent-host %q: %v", cmd.Args[1:], err)
	}
	// Signalled runs are bounded in time only: their ru_maxrss would
	// count the test process's peak.
	return r, took, 0
}

// selfIncludingRepo makes dir a repository (in e's world) whose config
// includes itself n times, ignoring *.log, holding a.log and b.txt.
func selfIncludingRepo(t *testing.T, e *gittest.Env, dir string, n int) {
	t.Helper()
	e.Init(t, dir)
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[include]\n" + strings.Repeat("\tpath = config\n", n))
	f.Close()
	for name, body := range map[string]string{".gitignore": "*.log\n", "a.log": "", "b.txt": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// configCmd is agent-host with args in dir, in e's world.
func configCmd(e *gittest.Env, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = e.Environ()
	return cmd
}

// TestCheckIgnoreSelfIncludingConfig: check-ignore in a repository whose
// config includes itself 4 or 6 times fails at once as git does (exit
// 128, "exceeded maximum include depth" naming the config), within 3 s
// and 64 MiB. Before, it printed an answer after 17 s (4 lines) or ran
// for minutes (6).
func TestCheckIgnoreSelfIncludingConfig(t *testing.T) {
	e := gittest.New(t)
	for _, n := range []int{4, 6} {
		dir := filepath.Join(t.TempDir(), "repo")
		selfIncludingRepo(t, e, dir, n)
		var gerr bytes.Buffer
		gcmd := e.Command(dir, "git", "check-ignore", "a.log")
		gcmd.Stderr = &gerr
		gerrRun := gcmd.Run()
		gcode := 0
		if ee, ok := gerrRun.(*exec.ExitError); ok {
			gcode = ee.ExitCode()
		}
		r, took, rss := boundedRun(t, configCmd(e, dir, "check-ignore", "a.log"), 3*time.Second)
		if r.code != gcode || r.stdout != "" {
			t.Errorf("%d includes: agent-host check-ignore exits %d with %q; git exits %d (%q)", n, r.code, r.stdout, gcode, gerr.String())
		}
		for _, s := range []string{"exceeded maximum include depth", filepath.Join(dir, ".git", "config")} {
			if !strings.Contains(gerr.String()+r.stderr, s) || !strings.Contains(r.stderr, s) {
				t.Errorf("%d includes: stderr %q lacks %q (git: %q)", n, r.stderr, s, gerr.String())
			}
		}
		if took > 3*time.Second || rss > 64<<10 {
			t.Errorf("%d includes: check-ignore took %v and %d KiB (bound 3 s, 64 MiB)", n, took, rss)
		}
	}
}

// TestWalkVendoredSelfIncludingConfig: agent-host walk of a repository
// holding a vendored one whose config includes itself six times lists
// the tree at once (git ls-files: 24 ms; before, the walk ran until
// killed), says what is wrong with the vendored config, and lists what
// git lists in the parent.
func TestWalkVendoredSelfIncludingConfig(t *testing.T) {
	e := gittest.New(t)
	parent := filepath.Join(t.TempDir(), "parent")
	e.Init(t, parent)
	for name, body := range map[string]string{".gitignore": "*.tmp\n", "src/x.go": "", "src/y.tmp": ""} {
		p := filepath.Join(parent, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	selfIncludingRepo(t, e, filepath.Join(parent, "vendored"), 6)
	r, took, rss := boundedRun(t, configCmd(e, parent, "walk"), 3*time.Second)
	if took > 3*time.Second || rss > 64<<10 {
		t.Errorf("walk took %v and %d KiB (bound 3 s, 64 MiB)", took, rss)
	}
	if r.code != 2 || !strings.Contains(r.stderr, "exceeded maximum include depth") || !strings.Contains(r.stderr, filepath.Join(parent, "vendored", ".git", "config")) {
		t.Errorf("walk exits %d, stderr %q; want 2 and the vendored config's fault", r.code, r.stderr)
	}
	// What git lists in the parent (the vendored repository is a
	// directory to it) is listed, and only that outside vendored/.
	for _, p := range strings.Fields(e.Git(t, parent, "ls-files", "-o", "--exclude-standard")) {
		if p == "vendored/" {
			continue
		}
		if !strings.Contains(r.stdout, p+"\n") {
			t.Errorf("walk lacks %s, which git lists: %q", p, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "y.tmp") || !strings.Contains(r.stdout, "vendored/b.txt\n") {
		t.Errorf("walk: %q", r.stdout)
	}
}

// TestExecSelfIncludingConfig: agent-host exec in a repository whose
// config includes itself six times runs the command at once (before: more
// than 10 minutes at 1.4 GiB), and SIGTERM stops it as anywhere else
// (before, it went unheeded while the config was followed).
func TestExecSelfIncludingConfig(t *testing.T) {
	e := gittest.New(t)
	clean := filepath.Join(t.TempDir(), "clean")
	e.Init(t, clean)
	if r, _, _ := boundedRun(t, configCmd(e, clean, "exec", "--", "true"), time.Minute); r.code != 0 {
		t.Skipf("skipped: agent-host exec does not run here (%d: %s)", r.code, r.stderr)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	selfIncludingRepo(t, e, dir, 6)
	r, took, rss := boundedRun(t, configCmd(e, dir, "exec", "--", "true"), 5*time.Second)
	if r.code != 0 {
		t.Errorf("exec -- true exits %d: %s", r.code, r.stderr)
	}
	if took > 5*time.Second || rss > 64<<10 {
		t.Errorf("exec -- true took %v and %d KiB (bound 5 s, 64 MiB)", took, rss)
	}
	for _, delay := range []time.Duration{0, 100 * time.Millisecond, 500 * time.Millisecond} {
		r, took, _ := boundedRun(t, configCmd(e, dir, "exec", "--", "sleep 30"), 5*time.Second, func(p *os.Process) {
			time.AfterFunc(delay, func() { p.Signal(syscall.SIGTERM) })
		})
		if r.code == 0 || took > 5*time.Second {
			t.Errorf("SIGTERM after %v: exit %d after %v", delay, r.code, took)
		}
	}
}
