package exec

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSweepDeadTmps: the temporary directory of a Runner whose process
// was killed (no Close) is swept by the next; a live Runner's is not,
// nor an unmarked one that changed recently.
func TestSweepDeadTmps(t *testing.T) {
	if os.Getenv("AGENTHOST_TEST_TMPHOLDER") != "" {
		// The child: hold a Runner's directory and wait to be killed.
		r := NewRunner(Limits{})
		d, err := r.sessionTmp()
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(d + "\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	child := osexec.Command(os.Args[0], "-test.run", "^TestSweepDeadTmps$")
	child.Env = append(os.Environ(), "AGENTHOST_TEST_TMPHOLDER=1")
	stdout, err := child.StdoutPipe()
	must(t, err)
	must(t, child.Start())
	buf := make([]byte, 4096)
	n, _ := stdout.Read(buf)
	dead := string(buf[:n-1])
	child.Process.Kill()
	child.Wait()

	live := NewRunner(Limits{})
	defer live.Close()
	liveDir, err := live.sessionTmp()
	must(t, err)
	unmarked := filepath.Join(dir, "agenthost-sandbox-old")
	must(t, os.Mkdir(unmarked, 0o700))

	removed := sweepTmps(dir, time.Now())
	if !slices.Contains(removed, dead) {
		t.Errorf("the killed Runner's %s was not swept (removed %v)", dead, removed)
	}
	for _, p := range []string{liveDir, unmarked} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was swept: %v", p, err)
		}
	}
	if removed := sweepTmps(dir, time.Now().Add(staleUnlockedTmp+time.Hour)); !slices.Contains(removed, unmarked) {
		t.Errorf("a stale unmarked directory was kept (removed %v)", removed)
	}

}
