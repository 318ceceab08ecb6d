package exec

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"
)

// prestarted returns the pid of the helper Prestart left waiting in r
// (failing t when there is none).
func prestarted(t *testing.T, r *Runner) int {
	t.Helper()
	r.zyg.settle()
	r.zyg.mu.Lock()
	defer r.zyg.mu.Unlock()
	if r.zyg.waiting == nil {
		t.Fatal("no helper waiting after Prestart")
	}
	return r.zyg.waiting.p.pid
}

// TestPrestartTakenByTheFirstRun: the helper Prestart starts is the
// process of the Runner's first sandboxed run (no second start), and
// that run is confined as any: its own network namespace (or the
// caller's, with Network), the view's /proc (pid 1 is the helper), and
// the environment scrubbed as the run starts.
func TestPrestartTakenByTheFirstRun(t *testing.T) {
	for _, network := range []bool{false, true} {
		f := newSBFixture(t)
		f.r.Prestart(network)
		pid := prestarted(t, f.r)
		t.Setenv("AGENTHOST_PRESTART_TOKEN", "tok-set-after-the-prestart")
		sb := f.sandbox()
		sb.Network = network
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		out, err := f.r.Exec(ctx, f.request(`readlink /proc/self/ns/net; echo "tok=$AGENTHOST_PRESTART_TOKEN"; ls /proc | grep -c '^[0-9]'`, sb))
		cancel()
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("network=%v: %+v, %v", network, out, err)
		}
		if out.Pid != pid {
			t.Errorf("network=%v: the run's process is %d, the prestarted helper %d", network, out.Pid, pid)
		}
		own, _ := readlinkNS()
		lines := strings.Split(strings.TrimSpace(out.Stdout), "\n")
		if len(lines) != 3 {
			t.Fatalf("network=%v: output %q", network, out.Stdout)
		}
		if (lines[0] == own) != network {
			t.Errorf("network=%v: the command's network namespace %s, ours %s", network, lines[0], own)
		}
		if strings.Contains(out.Stdout, "tok-set-after") {
			t.Errorf("network=%v: a token set after the prestart reached the command: %q", network, out.Stdout)
		}
		if lines[2] == "0" || len(lines[2]) > 1 {
			t.Errorf("network=%v: the command sees %s processes in /proc (want its own few)", network, lines[2])
		}
	}
}

// TestPrestartEndedByClose: a prestarted helper that no run took is
// ended and reaped by Close, and a second Prestart while one waits
// starts nothing more.
func TestPrestartEndedByClose(t *testing.T) {
	f := newSBFixture(t)
	f.r.Prestart(false)
	pid := prestarted(t, f.r)
	f.r.Prestart(false)
	if again := prestarted(t, f.r); again != pid {
		t.Errorf("a second Prestart replaced helper %d by %d", pid, again)
	}
	must(t, f.r.Close())
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("helper %d after Close: kill(0) = %v, want ESRCH (ended and reaped)", pid, err)
	}
}

func readlinkNS() (string, error) {
	b := make([]byte, 128)
	n, err := syscall.Readlink("/proc/self/ns/net", b)
	if err != nil {
		return "", err
	}
	return string(b[:n]), nil
}
