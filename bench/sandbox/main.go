// Command sandbox measures agent-host exec as a whole process against
// bash -c true, sandboxed and not, in interleaved rounds (every variant
// once per round, in a rotating order, so that all see the same load on
// a shared machine), and prints medians and ratios. Other sandboxes on
// PATH (bwrap, srt, codex) are measured the same way when present.
//
// Usage: go run ./bench/sandbox -bin PATH/agent-host [-runs N]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"time"
)

type variant struct {
	name string
	argv []string
}

func main() {
	bin := flag.String("bin", "agent-host", "the agent-host binary")
	runs := flag.Int("runs", 100, "rounds")
	flag.Parse()
	ws, err := os.MkdirTemp("", "bench-sandbox-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(ws)
	vs := []variant{
		{"bash -c true", []string{"bash", "-c", "true"}},
		{"agent-host exec --no-sandbox -- true", []string{*bin, "exec", "--no-sandbox", "--", "true"}},
		{"agent-host exec -- true (sandboxed)", []string{*bin, "exec", "--", "true"}},
	}
	if p, err := exec.LookPath("bwrap"); err == nil {
		vs = append(vs, variant{"bwrap (ro /, rw ws, unshare-all) bash -c true", []string{p, "--ro-bind", "/", "/", "--bind", ws, ws, "--dev", "/dev", "--unshare-all", "--die-with-parent", "bash", "-c", "true"}})
	}
	if p, err := exec.LookPath("srt"); err == nil {
		vs = append(vs, variant{"srt bash -c true", []string{p, "bash", "-c", "true"}})
	}
	if p, err := exec.LookPath("codex"); err == nil {
		vs = append(vs, variant{"codex sandbox (workspace-write) bash -c true", []string{p, "sandbox", "-c", `sandbox_mode="workspace-write"`, "--", "bash", "-c", "true"}})
	}
	res := make([][]time.Duration, len(vs))
	for i := 0; i < *runs; i++ {
		for k := range vs {
			j := (i + k) % len(vs)
			c := exec.Command(vs[j].argv[0], vs[j].argv[1:]...)
			c.Dir = ws
			t0 := time.Now()
			if out, err := c.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n%s", vs[j].name, err, out)
				os.Exit(1)
			}
			res[j] = append(res[j], time.Since(t0))
		}
	}
	med := make([]time.Duration, len(vs))
	for j := range vs {
		sort.Slice(res[j], func(a, b int) bool { return res[j][a] < res[j][b] })
		med[j] = res[j][len(res[j])/2]
	}
	fmt.Printf("%d interleaved rounds, medians\n", *runs)
	for j, v := range vs {
		fmt.Printf("%-48s %7.2f ms  %5.2fx bash\n", v.name, float64(med[j].Microseconds())/1000, float64(med[j])/float64(med[0]))
	}
	fmt.Printf("sandbox cost: %+.2f ms over --no-sandbox (goal <= +10 ms); --no-sandbox %.2fx bash -c true (goal <= 2x)\n",
		float64((med[2]-med[1]).Microseconds())/1000, float64(med[1])/float64(med[0]))
}
