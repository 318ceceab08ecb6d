package exec

import (
	"context"
	"errors"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestStartProcIsOsExec checks that startProc starts a process as
// os/exec's Start would, in every respect this package relies on: the
// same descriptors in the same places (nil is /dev/null, ExtraFiles from
// 3 on), the environment with the last value of a name winning, the
// directory, the session, and the exit status from reap; both are run
// on the same Cmd description and must print the same report.
func TestStartProcIsOsExec(t *testing.T) {
	dir := t.TempDir()
	// Each descriptor's target (a pipe's name cut at its ":"), $A and how
	// many A= entries there are, the directory, whether the shell leads
	// its own session (field 6 of /proc/PID/stat), and what a read of
	// standard input finds; written to descriptor 3.
	report := `fds=$(for fd in 0 1 2 3; do printf '%s ' "$fd:$(readlink /proc/$$/fd/$fd | sed 's/:.*//')"; done)
set -- $(cat /proc/$$/stat); [ "$6" = $$ ] && lead=session-leader
read x || in=eof
echo "$fds A=$A $(env | grep -c '^A=') $(pwd) $lead $in" >&3; exit 7`
	run := func(start func(*osexec.Cmd) (exitStatus, error)) string {
		t.Helper()
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		cmd := osexec.Command("/bin/sh", "-c", report)
		cmd.Env = append(os.Environ(), "A=1", "B=2", "A=3")
		cmd.Dir = dir
		cmd.ExtraFiles = []*os.File{pw}
		setProcAttr(cmd)
		st, err := start(cmd)
		pw.Close()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(pr)
		if !st.known || st.code != 7 || st.signal != 0 {
			t.Errorf("status %+v, want exit 7", st)
		}
		return strings.TrimSpace(string(b))
	}
	direct := run(func(cmd *osexec.Cmd) (exitStatus, error) {
		p, err := startProc(cmd)
		if err != nil {
			return exitStatus{}, err
		}
		return p.reap(), nil
	})
	viaOS := run(func(cmd *osexec.Cmd) (exitStatus, error) {
		if err := cmd.Start(); err != nil {
			return exitStatus{}, err
		}
		_ = cmd.Wait()
		return statusOf(cmd.ProcessState), nil
	})
	want := "0:/dev/null 1:/dev/null 2:/dev/null 3:pipe  A=3 1 " + dir + " session-leader eof"
	if direct != want || viaOS != want {
		t.Errorf("startProc: %q\nos/exec:   %q\nwant:      %q", direct, viaOS, want)
	}
}

// TestStartProcRefusals: a start that cannot be made fails as os/exec's
// would, with nothing started: a missing program (fs.ErrNotExist, an
// *os.PathError "fork/exec"), an environment entry or an argument with a
// NUL byte (both syscall.EINVAL), through Exec, Capture and startProc.
func TestStartProcRefusals(t *testing.T) {
	r := testRunner()
	ctx := context.Background()
	mark := filepath.Join(t.TempDir(), "ran")
	touch := "touch " + mark
	if _, err := startProc(osexec.Command("/no/such/program")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing program: %v, want fs.ErrNotExist", err)
	} else if pe := (*os.PathError)(nil); !errors.As(err, &pe) || pe.Op != "fork/exec" {
		t.Errorf("missing program: %#v, want an *os.PathError fork/exec", err)
	}
	if out, err := r.Exec(ctx, Request{Command: touch, Env: []string{"X=a\x00b"}}); !errors.Is(err, syscall.EINVAL) || out != (Output{}) {
		t.Errorf("NUL in the environment: %+v, %v; want EINVAL", out, err)
	}
	if out, err := r.Capture(ctx, Capture{Program: "sh", Args: []string{"-c", touch, "a\x00b"}}); !errors.Is(err, syscall.EINVAL) || out != (Output{}) {
		t.Errorf("NUL in an argument: %+v, %v; want EINVAL", out, err)
	}
	if _, err := os.Lstat(mark); err == nil {
		t.Error("a refused start ran its command")
	}
}
