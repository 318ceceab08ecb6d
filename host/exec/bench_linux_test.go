package exec

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkRunCaptureTrue and BenchmarkBareExecTrue give the overhead of a
// run over a bare os/exec start and wait of the same program.
func BenchmarkRunCaptureTrue(b *testing.B) {
	r := NewRunner(Limits{})
	ctx := context.Background()
	for b.Loop() {
		out, err := r.RunCapture(ctx, "true", nil, "", 0)
		if err != nil || out.ExitCode != 0 {
			b.Fatal(out, err)
		}
	}
}

func BenchmarkBareExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOverheadRatio alternates a bare os/exec run of true with a
// RunCapture of true, so that both see the same load on a shared machine,
// and reports the median of each and their ratio (goal: ratio ≤ 1.15).
func BenchmarkOverheadRatio(b *testing.B) {
	r := NewRunner(Limits{})
	ctx := context.Background()
	var bare, ours []time.Duration
	i := 0
	for b.Loop() {
		runBare := func() {
			t0 := time.Now()
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
			bare = append(bare, time.Since(t0))
		}
		runOurs := func() {
			t0 := time.Now()
			if out, err := r.RunCapture(ctx, "true", nil, "", 0); err != nil || out.ExitCode != 0 {
				b.Fatal(out, err)
			}
			ours = append(ours, time.Since(t0))
		}
		if i%2 == 0 {
			runBare()
			runOurs()
		} else {
			runOurs()
			runBare()
		}
		i++
	}
	mb, mo := median(bare), median(ours)
	b.ReportMetric(float64(mb.Nanoseconds()), "bare-ns")
	b.ReportMetric(float64(mo.Nanoseconds()), "runcapture-ns")
	b.ReportMetric(float64(mo)/float64(mb), "ratio")
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// benchGiB pushes 1 GiB of zeros through Exec with the given producer and
// reports the growth of the peak resident set as hwm-MiB.
func benchGiB(b *testing.B, cmd string) {
	r := NewRunner(Limits{})
	ctx := context.Background()
	b.SetBytes(1 << 30)
	before := vmHWM(b)
	for b.Loop() {
		out, err := r.Exec(ctx, Request{Command: cmd})
		if err != nil || out.ExitCode != 0 || !out.Truncated {
			b.Fatal(out.ExitCode, err)
		}
	}
	b.ReportMetric(float64(vmHWM(b)-before)/(1<<20), "hwm-MiB")
}

// The producer of the issue: GNU head writes in 4 KiB blocks, and on its
// own (to /dev/null) it is slower than 1 GiB/s on a small machine.
func BenchmarkExecGiBHead(b *testing.B) { benchGiB(b, "head -c 1G /dev/zero") }

// A producer writing 1 MiB blocks measures the reading side.
func BenchmarkExecGiBDD(b *testing.B) { benchGiB(b, "dd if=/dev/zero bs=1M count=1024 status=none") }

// The same through the goroutine supervisor (runWatched), for comparison.
func BenchmarkExecGiBDDWatched(b *testing.B) {
	usePidfd = false
	defer func() { usePidfd = true }()
	benchGiB(b, "dd if=/dev/zero bs=1M count=1024 status=none")
}

// The producers alone, writing to /dev/null, and head into cat, the best a
// pipe reader can do with head's 4 KiB writes, for comparison.
func BenchmarkBareGiBHead(b *testing.B)    { benchBare(b, "head -c 1G /dev/zero >/dev/null") }
func BenchmarkBareGiBHeadCat(b *testing.B) { benchBare(b, "head -c 1G /dev/zero | cat >/dev/null") }
func BenchmarkBareGiBDD(b *testing.B) {
	benchBare(b, "dd if=/dev/zero bs=1M count=1024 status=none >/dev/null")
}

func benchBare(b *testing.B, cmd string) {
	b.SetBytes(1 << 30)
	for b.Loop() {
		if err := exec.Command("bash", "-c", cmd).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCancelLatency measures the time from cancel() to the return of
// Exec for a command that dies on SIGTERM; ns/op is the median.
func BenchmarkCancelLatency(b *testing.B) {
	r := NewRunner(Limits{})
	var lat []time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan Output)
		go func() {
			out, _ := r.Exec(ctx, Request{Command: "sleep 30"})
			done <- out
		}()
		time.Sleep(20 * time.Millisecond) // let the shell start
		t0 := time.Now()
		cancel()
		out := <-done
		lat = append(lat, time.Since(t0))
		if !out.Cancelled {
			b.Fatalf("not cancelled: %+v", out)
		}
	}
	b.ReportMetric(float64(median(lat).Nanoseconds()), "ns/op")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*9/10].Nanoseconds()), "p90-ns")
}
