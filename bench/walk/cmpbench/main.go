// Command cmpbench times several commands against each other in one run:
// every round runs each command once (in a rotating order, so none always
// runs first or last on a noisy machine), after one untimed warm-up round.
// It prints the median, minimum and maximum wall time, the median peak
// resident set size, and each command's median as a ratio of the first's.
//
// Usage:
//
//	cmpbench [-n ROUNDS] [-dir DIR] NAME=COMMAND [NAME=COMMAND]...
//
// COMMAND is split on spaces (no shell). Standard output goes to a
// temporary regular file, the same for every command (git, for one,
// flushes after every line when it writes to a pipe or a device).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

type tool struct {
	name  string
	argv  []string
	walls []time.Duration
	cpus  []time.Duration // user + system
	rss   []int64         // KiB
}

func main() {
	rounds := flag.Int("n", 11, "timed rounds")
	dir := flag.String("dir", ".", "working directory for the commands")
	flag.Parse()
	var tools []*tool
	for _, a := range flag.Args() {
		name, cmd, ok := strings.Cut(a, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "cmpbench: %q is not NAME=COMMAND\n", a)
			os.Exit(2)
		}
		tools = append(tools, &tool{name: name, argv: strings.Fields(cmd)})
	}
	if len(tools) == 0 {
		fmt.Fprintln(os.Stderr, "usage: cmpbench [-n ROUNDS] [-dir DIR] NAME=COMMAND...")
		os.Exit(2)
	}
	out, err := os.CreateTemp("", "cmpbench-out-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.Remove(out.Name())
	defer out.Close()

	for r := -1; r < *rounds; r++ {
		for i := range tools {
			t := tools[(i+max(r, 0))%len(tools)]
			wall, cpu, rss, err := run(t.argv, *dir, out)
			if err != nil {
				fmt.Fprintf(os.Stderr, "cmpbench: %s: %v\n", t.name, err)
				os.Exit(1)
			}
			if r >= 0 {
				t.walls = append(t.walls, wall)
				t.cpus = append(t.cpus, cpu)
				t.rss = append(t.rss, rss)
			}
		}
	}

	ref, refCPU := median(tools[0].walls), median(tools[0].cpus)
	fmt.Printf("%-12s %10s %10s %10s %10s %10s %12s\n", "command", "wall med", "min", "max", "cpu med", "peak RSS", "vs "+tools[0].name)
	for _, t := range tools {
		m, c := median(t.walls), median(t.cpus)
		fmt.Printf("%-12s %8.1fms %8.1fms %8.1fms %8.1fms %6.1f MiB  wall %.2fx cpu %.2fx\n", t.name,
			ms(m), ms(slices.Min(t.walls)), ms(slices.Max(t.walls)), ms(c),
			float64(medianInt(t.rss))/1024, float64(m)/float64(ref), float64(c)/float64(refCPU))
	}
	fmt.Printf("(%d rounds after 1 warm-up round; ratios are medians over the median of %s)\n", *rounds, tools[0].name)
}

func run(argv []string, dir string, out *os.File) (wall, cpu time.Duration, rss int64, err error) {
	if err := out.Truncate(0); err != nil {
		return 0, 0, 0, err
	}
	if _, err := out.Seek(0, 0); err != nil {
		return 0, 0, 0, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout = out
	cmd.Stderr = os.Stderr
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, 0, err
	}
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return wall, cpu, peakRSS(cmd.ProcessState), nil
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianInt(d []int64) int64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
