// Command sandbox measures agent-host exec as a whole process against
// bash -c true, sandboxed and not, in interleaved rounds (every variant
// once per round, in a rotating order, so that all see the same load on
// a shared machine), and prints medians and ratios, of the wall time and
// of the CPU time of the whole process tree (user + system, from wait4,
// which counts the waited-for descendants): on a loaded machine the wall
// time mostly measures the scheduler, the CPU time what the programs do.
// Other sandboxes on PATH (bwrap, srt, codex) are measured the same way
// when present. -old PATH adds another agent-host binary (the one before
// a change) to the same rounds.
//
// -floor PATH adds the floor (bench/sandbox/floor, built static): an
// empty Go program, and the least a Go program does to start `bash -c
// true` in its own session and wait for it, without and with SIGINT and
// SIGTERM caught as agent-host must catch them; -cfloor PATH adds a
// static C program that posix_spawns it (bench/sandbox/cfloor). They say
// how close to the ratio of the goal any program can come on the machine.
//
// With -gobuild it measures `agent-host exec -- go build` of a small
// module instead, sandboxed and not, each run a new process.
//
// Usage: go run ./bench/sandbox -bin PATH/agent-host [-runs N] [-old PATH]
// [-floor PATH] [-cfloor PATH] [-gobuild]
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
	adoptOrphans()
	bin := flag.String("bin", "agent-host", "the agent-host binary")
	runs := flag.Int("runs", 100, "rounds")
	old := flag.String("old", "", "another agent-host binary to measure in the same rounds")
	floor := flag.String("floor", "", "the floor program (bench/sandbox/floor) to measure in the same rounds")
	cfloor := flag.String("cfloor", "", "the C floor program (bench/sandbox/cfloor) to measure in the same rounds")
	bestEffort := flag.Bool("best-effort", false, "run the sandboxed variants with --sandbox=best-effort (where user namespaces are refused: the second layer)")
	gobuild := flag.Bool("gobuild", false, "measure `go build` of a small module, each run a new agent-host process, instead of true")
	flag.Parse()
	ws, err := os.MkdirTemp("", "bench-sandbox-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(ws)
	if *gobuild {
		goBuild(*bin, ws, *runs)
		return
	}
	vs := []variant{
		{"bash -c true", []string{"bash", "-c", "true"}},
		{"agent-host exec --no-sandbox -- true", []string{*bin, "exec", "--no-sandbox", "--", "true"}},
		{"agent-host exec -- true (sandboxed)", []string{*bin, "exec", sandboxMode(*bestEffort), "--", "true"}},
	}
	if *old != "" {
		vs = append(vs,
			variant{"old: agent-host exec --no-sandbox -- true", []string{*old, "exec", "--no-sandbox", "--", "true"}},
			variant{"old: agent-host exec -- true (sandboxed)", []string{*old, "exec", sandboxMode(*bestEffort), "--", "true"}})
	}
	nfloor := -1 // the index of the floor with signals
	if *floor != "" {
		vs = append(vs,
			variant{"floor: empty Go program", []string{*floor, "-empty"}},
			variant{"floor: Go, start bash -c true and wait", []string{*floor, "-nosig", "--", "true"}},
			variant{"floor: Go, the same, SIGINT/SIGTERM caught", []string{*floor, "--", "true"}})
		nfloor = len(vs) - 1
	}
	if *cfloor != "" {
		vs = append(vs, variant{"floor: static C, posix_spawn bash -c true", []string{*cfloor, "true"}})
	}
	nbwrap := -1 // bubblewrap with a view comparable to ours (issue 21)
	if p, err := exec.LookPath("bwrap"); err == nil {
		vs = append(vs, variant{"bwrap (view: ro /, rw ws, dev, proc, tmp) bash -c true", []string{p, "--unshare-all", "--die-with-parent",
			"--ro-bind", "/", "/", "--bind", ws, ws, "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "bash", "-c", "true"}})
		nbwrap = len(vs) - 1
	}
	if p, err := exec.LookPath("srt"); err == nil {
		vs = append(vs, variant{"srt bash -c true", []string{p, "bash", "-c", "true"}})
	}
	if p, err := exec.LookPath("codex"); err == nil {
		vs = append(vs, variant{"codex sandbox (workspace-write) bash -c true", []string{p, "sandbox", "-c", `sandbox_mode="workspace-write"`, "--", "bash", "-c", "true"}})
	}
	med, mcpu := rounds(vs, ws, *runs)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Printf("%d interleaved rounds, medians                   wall              CPU (tree)\n", *runs)
	for j, v := range vs {
		fmt.Printf("%-48s %7.2f ms %5.2fx   %7.2f ms %5.2fx\n", v.name, ms(med[j]), float64(med[j])/float64(med[0]),
			ms(mcpu[j]), float64(mcpu[j])/float64(mcpu[0]))
	}
	fmt.Printf("sandbox cost: %+.2f ms wall, %+.2f ms CPU over --no-sandbox (goal <= +10 ms); --no-sandbox %.2fx bash -c true wall, %.2fx CPU (goal <= 2x)\n",
		ms(med[2]-med[1]), ms(mcpu[2]-mcpu[1]), float64(med[1])/float64(med[0]), float64(mcpu[1])/float64(mcpu[0]))
	if nbwrap >= 0 {
		ours, theirs := med[2]-med[1], med[nbwrap]-med[0]
		oursCPU, theirsCPU := mcpu[2]-mcpu[1], mcpu[nbwrap]-mcpu[0]
		fmt.Printf("view cost: ours %+.2f ms wall (%+.2f CPU) over --no-sandbox; bwrap %+.2f ms wall (%+.2f CPU) over bash -c true; ratio %.2fx wall, %.2fx CPU (goal <= 1x)\n",
			ms(ours), ms(oursCPU), ms(theirs), ms(theirsCPU), float64(ours)/float64(theirs), float64(oursCPU)/float64(theirsCPU))
	}
	if nfloor >= 0 {
		fmt.Printf("floor (Go, signals caught): %.2fx bash -c true wall, %.2fx CPU; --no-sandbox is %+.2f ms wall, %+.2f ms CPU over it\n",
			float64(med[nfloor])/float64(med[0]), float64(mcpu[nfloor])/float64(mcpu[0]), ms(med[1]-med[nfloor]), ms(mcpu[1]-mcpu[nfloor]))
	}
}

// goBuild measures `agent-host exec -- go build` of a small module in ws,
// sandboxed and with --no-sandbox, each run a new agent-host process (a
// new Runner): the sandboxed build is warm only through the cache beneath
// the workspace (docs/adr/0013), which is there because ws is made a git
// work tree. The first build of each is not counted.
func goBuild(bin, ws string, runs int) {
	must := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	// A git work tree: only there does the sandbox keep its caches
	// beneath the workspace (outside one they stay per process, and every
	// sandboxed build is cold).
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "git init: %v\n%s", err, out)
		os.Exit(1)
	}
	must(os.WriteFile(ws+"/go.mod", []byte("module example.com/b\n\ngo 1.21\n"), 0o644))
	must(os.WriteFile(ws+"/main.go", []byte("package main\n\nimport (\"fmt\"; \"strings\")\n\nfunc main() { fmt.Println(strings.ToUpper(\"hi\")) }\n"), 0o644))
	build := []string{"touch main.go && GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off go build -o prog . && ./prog"}
	vs := []variant{
		{"agent-host exec --no-sandbox -- go build", append([]string{bin, "exec", "--no-sandbox", "--"}, build...)},
		{"agent-host exec -- go build (sandboxed)", append([]string{bin, "exec", "--"}, build...)},
	}
	t0 := time.Now()
	rounds(vs, ws, 1) // the first builds: the sandboxed one fills its cache
	fmt.Printf("first round (the sandboxed cache cold): %v\n", time.Since(t0).Round(time.Millisecond))
	med, mcpu := rounds(vs, ws, runs)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Printf("%d interleaved rounds, medians                   wall              CPU (tree)\n", runs)
	for j, v := range vs {
		fmt.Printf("%-48s %7.2f ms %5.2fx   %7.2f ms %5.2fx\n", v.name, ms(med[j]), float64(med[j])/float64(med[0]),
			ms(mcpu[j]), float64(mcpu[j])/float64(mcpu[0]))
	}
}

// rounds runs every variant once per round, in a rotating order, and
// returns the medians of the wall and CPU times of each.
func rounds(vs []variant, ws string, runs int) (med, mcpu []time.Duration) {
	res := make([][]time.Duration, len(vs))
	cpu := make([][]time.Duration, len(vs))
	for i := 0; i < runs; i++ {
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
			// A process the variant left (a helper still tearing its
			// namespaces down) counts for its CPU, not its wall.
			cpu[j] = append(cpu[j], c.ProcessState.UserTime()+c.ProcessState.SystemTime()+reapOrphans())
		}
	}
	median := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
		return d[len(d)/2]
	}
	med = make([]time.Duration, len(vs))
	mcpu = make([]time.Duration, len(vs))
	for j := range vs {
		med[j], mcpu[j] = median(res[j]), median(cpu[j])
	}
	return med, mcpu
}

// sandboxMode is the flag that sets the sandboxed variants' mode: the
// default (required), or best effort where a part is missing.
func sandboxMode(bestEffort bool) string {
	if bestEffort {
		return "--sandbox=best-effort"
	}
	return "--sandbox=required"
}
