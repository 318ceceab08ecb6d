package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExecSetsUpNoWatches: agent-host exec serves one command and exits,
// so its Host is one-shot (Host.OneShot): the sandbox's question whether
// the workspace is a git work tree, answered through the Host's walk,
// sets up no inotify watches. Setting them up and tearing them down at
// exit cost tens of milliseconds on a loaded machine, five times the
// sandbox's whole budget. The test looks at agent-host's descriptors
// while the sandboxed command runs, in a workspace that is a git work
// tree and one that is not.
func TestExecSetsUpNoWatches(t *testing.T) {
	for _, repo := range []bool{false, true} {
		w := newWorld(t)
		if repo {
			w.file(".git/HEAD", []byte("ref: refs/heads/main\n"))
		}
		cmd := w.cmd("exec", "--", "echo started; read x; true")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		pr, errb := w.start(cmd)
		line, err := bufio.NewReader(pr).ReadString('\n')
		if err != nil || line != "started\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("repo=%v: the command did not start: %q, %v", repo, line, err)
		}
		fds, _ := filepath.Glob("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/fd/*")
		var watches []string
		for _, fd := range fds {
			if target, err := os.Readlink(fd); err == nil && strings.Contains(target, "inotify") {
				watches = append(watches, fd+" -> "+target)
			}
		}
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("repo=%v: %v, stderr %q", repo, err, errb.String())
		}
		if len(fds) == 0 {
			t.Fatalf("repo=%v: no descriptors of agent-host seen in /proc", repo)
		}
		if len(watches) > 0 {
			t.Errorf("repo=%v: agent-host exec holds inotify descriptors: %v", repo, watches)
		}
	}
}
