package exec

import (
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/internal/gittest"
)

// interleave runs a and b alternately (a first on even rounds, b first
// on odd ones) so that both see the same load on a shared machine, and
// reports the median of each, their difference and their ratio, of the
// wall time and of the CPU time (this process's and its waited-for
// children's, the helper and the command: on a loaded machine the wall
// time mostly measures the scheduler). settle, when set, runs untimed
// after each run.
func interleave(b *testing.B, nameA, nameB string, runA, runB, settle func()) {
	var da, db, ca, cb []time.Duration
	i := 0
	cpu := func() time.Duration {
		var self, kids unix.Rusage
		unix.Getrusage(unix.RUSAGE_SELF, &self)
		unix.Getrusage(unix.RUSAGE_CHILDREN, &kids)
		tv := func(t unix.Timeval) time.Duration { return time.Duration(t.Nano()) }
		return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
	}
	timed := func(f func(), into, cpuInto *[]time.Duration) {
		c0 := cpu()
		t0 := time.Now()
		f()
		*into = append(*into, time.Since(t0))
		*cpuInto = append(*cpuInto, cpu()-c0)
		if settle != nil {
			settle()
		}
	}
	for b.Loop() {
		if i%2 == 0 {
			timed(runA, &da, &ca)
			timed(runB, &db, &cb)
		} else {
			timed(runB, &db, &cb)
			timed(runA, &da, &ca)
		}
		i++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	ma, mb := median(da), median(db)
	b.ReportMetric(ms(ma), nameA+"-ms")
	b.ReportMetric(ms(mb), nameB+"-ms")
	b.ReportMetric(ms(mb-ma), "extra-ms")
	b.ReportMetric(float64(mb)/float64(ma), "ratio")
	ma, mb = median(ca), median(cb)
	b.ReportMetric(ms(ma), nameA+"-cpu-ms")
	b.ReportMetric(ms(mb), nameB+"-cpu-ms")
	b.ReportMetric(float64(mb)/float64(ma), "cpu-ratio")
}

// BenchmarkSandboxTrue: `true` through Exec, unsandboxed and sandboxed,
// interleaved, in one Runner (so every sandboxed run but the first two
// takes the helper the Runner kept waiting; goal: extra-ms ≤ 10).
func BenchmarkSandboxTrue(b *testing.B) {
	if landlockABI() == 0 {
		b.Skip("no Landlock")
	}
	ws := b.TempDir()
	d, _ := os.Open(ws)
	defer d.Close()
	r := NewRunner(Limits{})
	defer r.Close()
	ctx := context.Background()
	run := func(sb *Sandbox) func() {
		return func() {
			out, err := r.Exec(ctx, Request{Command: "true", Cwd: ws, Dir: d, Sandbox: sb})
			if err != nil || out.ExitCode != 0 {
				b.Fatal(out, err)
			}
		}
	}
	sandboxedRounds(b, r, run(nil), run(&Sandbox{Roots: []string{ws}, Required: true}))
}

// sandboxedRounds runs interleave twice: "idle" lets the Runner's next
// helper finish its start between runs (untimed), as the time an agent
// spends between two commands does; "back-to-back" does not, so that
// start competes with the next run for the CPU.
func sandboxedRounds(b *testing.B, r *Runner, plain, sandboxed func()) {
	b.Run("idle", func(b *testing.B) {
		interleave(b, "plain", "sandboxed", plain, sandboxed, func() {
			r.zyg.settle()
			time.Sleep(5 * time.Millisecond)
		})
	})
	b.Run("back-to-back", func(b *testing.B) {
		interleave(b, "plain", "sandboxed", plain, sandboxed, nil)
	})
}

// BenchmarkSandboxGoBuild: `go build` of a small package, unsandboxed and
// sandboxed, with a warm build cache each (goal: ratio ≤ 1.05).
func BenchmarkSandboxGoBuild(b *testing.B) {
	if landlockABI() == 0 {
		b.Skip("no Landlock")
	}
	if _, err := osexec.LookPath("go"); err != nil {
		b.Skip("no go")
	}
	ws := b.TempDir()
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/p\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nimport (\"fmt\"; \"strings\")\n\nfunc main() { fmt.Println(strings.ToUpper(\"hi\")) }\n"), 0o644)
	d, _ := os.Open(ws)
	defer d.Close()
	r := NewRunner(Limits{})
	defer r.Close()
	gocache, _ := osexec.Command("go", "env", "GOCACHE").Output()
	env := []string{"GOCACHE=" + strings.TrimSpace(string(gocache)), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off"}
	sb := &Sandbox{Roots: []string{ws}, WritePaths: []string{strings.TrimSpace(string(gocache))}, Required: true}
	ctx := context.Background()
	run := func(sb *Sandbox) func() {
		return func() {
			// -a would rebuild everything; a touched source rebuilds the
			// package and links, what an edit-build loop does.
			os.Chtimes(filepath.Join(ws, "main.go"), time.Now(), time.Now())
			out, err := r.Exec(ctx, Request{Command: "go build -o prog . && ./prog", Cwd: ws, Dir: d, Env: env, Sandbox: sb})
			if err != nil || out.ExitCode != 0 {
				b.Fatal(out, err)
			}
		}
	}
	run(nil)()
	run(sb)()
	sandboxedRounds(b, r, run(nil), run(sb))
}

// BenchmarkProtectScan: the protected set's listing before and after a
// run (snapshot and restore with nothing changed) on a workspace of
// 1,000 directories and 10,000 files, the cost the sandbox adds per
// command that grows with the workspace. "warm" is every command but a
// process's first on a root: the directories are known and unchanged,
// so each costs one fstatat (protect_memo_linux.go); "cold" drops the
// memo first, as a process's first command on a root (and every command
// before the memo) pays; "check" is the after-run check alone.
func BenchmarkProtectScan(b *testing.B) {
	ws := b.TempDir()
	for i := range 1000 {
		d := filepath.Join(ws, "d"+strconv.Itoa(i/100), "e"+strconv.Itoa(i))
		os.MkdirAll(d, 0o755)
		for j := range 10 {
			os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(j)), nil, 0o644)
		}
	}
	// git with the test's own HOME and config, not the user's (whose
	// init.templateDir could put anything in .git).
	if out, err := gittest.New(b).Command(ws, "git", "init", "-q").CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	time.Sleep(100 * time.Millisecond) // past the memo's racy window
	scan := func(b *testing.B) {
		p, _ := snapshotProtected(context.Background(), &Sandbox{Roots: []string{ws}}, 0)
		r := p.restore()
		p.release()
		if len(r) != 0 {
			b.Fatal(r)
		}
	}
	b.Run("warm", func(b *testing.B) {
		scan(b)
		for b.Loop() {
			scan(b)
		}
	})
	// "check" is the after-run check alone (issue 21's figure): the
	// snapshot before each run is taken with the timer stopped.
	b.Run("check", func(b *testing.B) {
		scan(b)
		for b.Loop() {
			b.StopTimer()
			p, _ := snapshotProtected(context.Background(), &Sandbox{Roots: []string{ws}}, 0)
			b.StartTimer()
			r := p.restore()
			b.StopTimer()
			p.release()
			if len(r) != 0 {
				b.Fatal(r)
			}
			b.StartTimer()
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			protMemoMu.Lock()
			clear(protMemos)
			protMemoMu.Unlock()
			scan(b)
		}
	})
}
