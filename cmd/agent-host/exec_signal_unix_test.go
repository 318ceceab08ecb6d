//go:build unix

package main

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExecInterrupted: SIGINT or SIGTERM to agent-host while the command
// runs stops the command's whole process group, and agent-host exits 130
// with "interrupted" on stderr; nothing the command started outlives it.
func TestExecInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		w := newWorld(t)
		cmd := w.cmd("exec", "--no-sandbox", "--", "sleep 30 & echo $!; wait")
		pr, errb := w.start(cmd)
		line, err := bufio.NewReader(pr).ReadString('\n')
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: no pid from the command: %q, %v", sig, line, err)
		}
		sleeper, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != execCancelled || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("%v: %v, stderr %q", sig, err, errb.String())
		}
		if d := time.Since(t0); d > 10*time.Second {
			t.Errorf("%v: agent-host took %v to stop", sig, d)
		}
		// The sleeper was in the command's group: it is gone (its zombie
		// reaped by init) within moments.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if syscall.Kill(sleeper, 0) == syscall.ESRCH {
				break
			}
			if time.Now().After(deadline) {
				syscall.Kill(sleeper, syscall.SIGKILL)
				t.Fatalf("%v: the command's background sleep %d outlived agent-host", sig, sleeper)
			}
		}
	}
}
