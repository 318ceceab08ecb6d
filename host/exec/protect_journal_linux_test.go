package exec

import (
	"bufio"
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestKilledRunPlantUndone: a process killed (SIGKILL) while its
// sandboxed command runs leaves the command's plant; the next run on the
// root, in another process, finds the dead run's journal and undoes the
// plant before taking its own baseline, instead of taking the plant in.
func TestKilledRunPlantUndone(t *testing.T) {
	if ws := os.Getenv("AGENTHOST_TEST_KILLED_WS"); ws != "" {
		// The child: plant, say so, and wait to be killed.
		r := NewRunner(Limits{DefaultTimeout: time.Minute})
		r.Exec(context.Background(), Request{Command: "echo 'touch \"$MARK\"' > .envrc && echo planted && sleep 60",
			Cwd: ws, Stdout: os.Stdout, Sandbox: &Sandbox{Roots: []string{ws}, Home: os.Getenv("AGENTHOST_TEST_KILLED_HOME"), BestEffort: secondLayer()}})
		os.Exit(0)
	}
	requireSandbox(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	must(t, os.MkdirAll(ws, 0o755))
	must(t, os.MkdirAll(home, 0o755))
	child := osexec.Command(os.Args[0], "-test.run", "^TestKilledRunPlantUndone$")
	child.Env = append(os.Environ(), "AGENTHOST_TEST_KILLED_WS="+ws, "AGENTHOST_TEST_KILLED_HOME="+home)
	stdout, err := child.StdoutPipe()
	must(t, err)
	must(t, child.Start())
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "planted" {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("the child's command did not plant: %q", line)
	}
	child.Process.Kill()
	child.Wait()
	if _, err := os.Stat(filepath.Join(ws, ".envrc")); err != nil {
		t.Fatalf("the plant is not there after the kill: %v", err)
	}

	r := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace})
	defer r.Close()
	out, err := r.Exec(context.Background(), Request{Command: "true", Cwd: ws, Sandbox: &Sandbox{Roots: []string{ws}, Home: home, BestEffort: secondLayer()}})
	must(t, err)
	absent(t, filepath.Join(ws, ".envrc"))
	if !slices.Contains(out.Sandbox.Restored, filepath.Join(ws, ".envrc")) {
		t.Errorf("the next run did not report undoing the dead run's plant: %+v", out.Sandbox)
	}
	absent(t, filepath.Join(ws, ".agent-harness"))
}

// TestJournalGoneAfterRun: in a git work tree, where .agent-harness keeps
// the sandbox cache, a run that ended leaves no journal (its directory
// stays for the next run, which then makes none), so a change the user
// makes to a protected file between two runs is not taken for a dead
// run's plant and undone.
func TestJournalGoneAfterRun(t *testing.T) {
	requireSandbox(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	must(t, os.MkdirAll(ws, 0o755))
	must(t, os.MkdirAll(home, 0o755))
	d, err := os.Open(ws)
	must(t, err)
	defer d.Close()
	r := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace})
	defer r.Close()
	run := func() {
		t.Helper()
		out, err := r.Exec(context.Background(), Request{Command: "true", Cwd: ws, Dir: d, Sandbox: &Sandbox{Roots: []string{ws},
			RootDirs: []*os.File{d}, Home: home, BestEffort: secondLayer(), WorkTree: func(string) bool { return true }}})
		must(t, err)
		if len(out.Sandbox.Restored) > 0 {
			t.Errorf("a run restored %v", out.Sandbox.Restored)
		}
	}
	run()
	if _, err := os.Stat(filepath.Join(ws, CacheDir)); err != nil {
		t.Fatalf("no sandbox cache in the work tree: %v", err)
	}
	absent(t, filepath.Join(ws, journalDir, journalName))
	var st unix.Stat_t
	if unix.Stat(filepath.Join(ws, ".agent-harness"), &st) == nil && st.Nlink > 2 {
		// A file system that counts subdirectories in the links: the
		// journal's directory stays beside the cache.
		if _, err := os.Stat(filepath.Join(ws, journalDir, ".gitignore")); err != nil {
			t.Errorf("the journal's directory went beside the sandbox cache: %v", err)
		}
	}
	// The user's own change between two runs stays.
	must(t, os.WriteFile(filepath.Join(ws, ".envrc"), []byte("export A=1\n"), 0o644))
	run()
	if b, err := os.ReadFile(filepath.Join(ws, ".envrc")); err != nil || string(b) != "export A=1\n" {
		t.Errorf("the user's .envrc, made between two runs, is %q, %v", b, err)
	}
	absent(t, filepath.Join(ws, journalDir, journalName))
}
