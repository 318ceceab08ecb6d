// Command allownet measures what --allow-net adds to a sandboxed
// command's start: `agent-host exec -- true` against `agent-host exec
// --allow-net registry.npmjs.org -- true`, interleaved, in the current
// directory, printing the medians and their difference (issue 24's
// anchor: srt's proxy adds about 400 ms to every sandboxed command).
// The proxy's own latency and throughput are the Go benchmarks of
// host/exec/internal/netproxy (bench/allownet/run.sh runs both).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"
)

func main() {
	bin := flag.String("bin", "agent-host", "the agent-host to measure")
	runs := flag.Int("runs", 30, "rounds")
	bestEffort := flag.Bool("best-effort", false, "run with --sandbox best-effort (the second layer, where user namespaces are refused)")
	flag.Parse()
	plain := []string{"exec", "--", "true"}
	proxied := []string{"exec", "--allow-net", "registry.npmjs.org", "--", "true"}
	if *bestEffort {
		plain = append([]string{"exec", "--sandbox", "best-effort"}, plain[1:]...)
		proxied = append([]string{"exec", "--sandbox", "best-effort"}, proxied[1:]...)
	}
	var a, b []float64
	type side struct {
		args []string
		into *[]float64
	}
	for i := 0; i < *runs; i++ {
		order := []side{{plain, &a}, {proxied, &b}}
		if i%2 == 1 { // alternate which goes first
			order[0], order[1] = order[1], order[0]
		}
		for _, c := range order {
			start := time.Now()
			cmd := exec.Command(*bin, c.args...)
			cmd.Stdout = os.Stdout // stderr dropped: best-effort's warning on every run
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "allownet: %v %v: %v\n", *bin, c.args, err)
				os.Exit(1)
			}
			*c.into = append(*c.into, float64(time.Since(start).Microseconds())/1000)
		}
	}
	ma, mb := median(a), median(b)
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("exec -- true:                %.1f ms (median of %d)\n", ma, len(a))
	fmt.Printf("exec --allow-net ... -- true: %.1f ms (median of %d)\n", mb, len(b))
	fmt.Printf("added by --allow-net:        %+.1f ms (%.2fx); load %s", mb-ma, mb/ma, load)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
