package exec

import (
	"context"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"
)

// ttyChildEnv marks the copy of the test binary that runs under script(1).
const ttyChildEnv = "AGENTHOST_EXEC_TTY_CHILD"

// TestDevTTYPromptFailsFast runs this test binary again under script(1),
// so that it has a controlling terminal, and there runs a command that
// writes to /dev/tty and waits for a line from it. In its new session the
// command has no terminal: both fail at once, and nothing reaches the
// terminal (script's transcript).
func TestDevTTYPromptFailsFast(t *testing.T) {
	if os.Getenv(ttyChildEnv) == "1" {
		ttyChild(t)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := osexec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed (util-linux)")
	}
	// script's own session has the pty as its terminal; the child test
	// binary inherits it. Under script, stdin is /dev/null like any run's.
	out, _ := execOK(t, testRunner(), context.Background(), Request{
		Command: "script -q -e -c " + shellQuote(shellQuote(exe)+" -test.run='^TestDevTTYPromptFailsFast$' -test.v -test.count=1") + " /dev/null",
		Env:     []string{ttyChildEnv + "=1"},
		Timeout: 60 * time.Second,
	})
	if out.ExitCode != 0 || !strings.Contains(out.Stdout, "TTY-CHILD-OK") {
		t.Fatalf("child under script failed (code %d):\n%s\n%s", out.ExitCode, out.Stdout, out.Stderr)
	}
	if strings.Contains(out.Stdout, "LEAKED-ONTO-TTY") {
		t.Fatalf("the command wrote on the terminal:\n%s", out.Stdout)
	}
}

func ttyChild(t *testing.T) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("no terminal under script: %v", err)
	}
	tty.Close()
	r := testRunner()
	// The marker is split in the command so that only a real write to the
	// terminal can put it together in the transcript.
	out, took := execOK(t, r, context.Background(), Request{
		Command: `echo "LEAKED-""ONTO-TTY" > /dev/tty; echo "write=$?"; read -r line < /dev/tty; echo "read=$?"`,
		Timeout: 20 * time.Second,
	})
	if out.TimedOut || took > slack || out.Stdout != "write=1\nread=1\n" ||
		!strings.Contains(out.Stderr, "/dev/tty") {
		t.Fatalf("after %v: %+v", took, out)
	}
	os.Stdout.WriteString("TTY-CHILD-OK\n")
}

// shellQuote quotes s for sh -c.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
