// Command cistdin times "agent-host check-ignore --stdin" against "git
// check-ignore --stdin" in every output mode git tells apart, in one run:
// standard output a regular file (git buffers), a pipe that this program
// drains and /dev/null (git flushes after every path for both), each with
// the paths in walk order, in random order and sparse (see writePaths).
//
// Usage:
//
//	cistdin -repo DIR -bin AGENT-HOST [-before OLD-AGENT-HOST] [-n 11] [-count 10000] [-seed 1] [-args "--no-index"]
//
// The paths are count consecutive entries of a walk of DIR (files and
// directories, .git left out, in the walk's lexical order), the same
// paths shuffled, and every k-th entry of the whole walk (see
// writePaths). Standard input is a regular file holding them. Before timing, each side runs once per mode
// and order and the outputs and exit statuses are compared byte for byte
// (git is the oracle; /dev/null's cannot be read, its exit status is
// compared). Then every round runs all eighteen commands (two sides,
// three modes, three orders) in a rotating order, so that none always runs first
// on a loaded machine; last, three runs of each under /usr/bin/time give its
// peak RSS (see run.once). It prints, for each mode and order, the medians of
// wall time and CPU time (user+system) and peak RSS of each side, and our
// median over git's. With -before, an earlier build runs as a third side,
// in the same rotation, checked against git the same way, and its median
// CPU time and ratio to git's are printed last on each line.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

type run struct {
	side, mode, order string
	argv              []string
	walls, cpus       []time.Duration
	rss               []int64 // KiB
}

func main() {
	repo := flag.String("repo", "", "repository whose paths are asked about (the commands' working directory)")
	bin := flag.String("bin", "", "the agent-host binary")
	before := flag.String("before", "", "an earlier agent-host binary, timed as a third side (optional)")
	gitBin := flag.String("git", "git", "the git binary")
	rounds := flag.Int("n", 11, "timed rounds")
	count := flag.Int("count", 10000, "paths asked about")
	seed := flag.Uint64("seed", 1, "shuffling seed")
	extra := flag.String("args", "--no-index", "arguments added to both sides' check-ignore --stdin")
	flag.Parse()
	if *repo == "" || *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: cistdin -repo DIR -bin AGENT-HOST [-before OLD] [-n ROUNDS] [-count N] [-args ARGS]")
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "cistdin-")
	check(err)
	defer os.RemoveAll(tmp)
	orders := []string{"walk", "random", "sparse"}
	inputs := map[string]string{}
	for _, o := range orders {
		inputs[o] = filepath.Join(tmp, o+".txt")
	}
	n, err := writePaths(*repo, inputs, *count, *seed)
	check(err)
	fmt.Printf("%d paths of %s, %d rounds, args %q\n", n, *repo, *rounds, *extra)

	sides := []string{"git", "ours"}
	if *before != "" {
		sides = append(sides, "before")
	}
	group := len(sides) // runs come in groups: git's first
	var runs []*run
	for _, mode := range []string{"file", "pipe", "null"} {
		for _, order := range orders {
			for _, side := range sides {
				argv := append([]string{*gitBin, "check-ignore", "--stdin"}, strings.Fields(*extra)...)
				switch side {
				case "ours":
					argv[0] = *bin
				case "before":
					argv[0] = *before
				}
				runs = append(runs, &run{side: side, mode: mode, order: order, argv: argv})
			}
		}
	}
	// Agreement, once per mode and order (also the untimed warm-up).
	bad := 0
	for i := 0; i < len(runs); i += group {
		g := runs[i]
		gout, gcode, _, _, _ := g.once(*repo, inputs[g.order], tmp, false)
		for _, o := range runs[i+1 : i+group] {
			oout, ocode, _, _, _ := o.once(*repo, inputs[o.order], tmp, false)
			if gcode != ocode || !bytes.Equal(gout, oout) {
				bad++
				fmt.Printf("MISMATCH %s/%s: git exit %d, %d bytes; %s exit %d, %d bytes\n", g.mode, g.order, gcode, len(gout), o.side, ocode, len(oout))
			}
		}
	}
	if bad > 0 {
		os.Exit(1)
	}
	for r := 0; r < *rounds; r++ {
		for k := range runs {
			x := runs[(k+r)%len(runs)]
			_, code, wall, cpu, _ := x.once(*repo, inputs[x.order], tmp, false)
			if code > 1 {
				fmt.Fprintf(os.Stderr, "%s %v exited %d\n", x.side, x.argv, code)
				os.Exit(1)
			}
			x.walls, x.cpus = append(x.walls, wall), append(x.cpus, cpu)
		}
	}
	for _, x := range runs {
		for range 3 {
			_, _, _, _, rss := x.once(*repo, inputs[x.order], tmp, true)
			x.rss = append(x.rss, rss)
		}
	}
	fmt.Printf("%-5s %-7s %10s %10s %8s %10s %10s %8s %9s %9s", "mode", "order", "git wall", "ours wall", "ratio", "git cpu", "ours cpu", "ratio", "git rss", "ours rss")
	if group == 3 {
		fmt.Printf(" %10s %8s %9s", "before cpu", "ratio", "bef. rss")
	}
	fmt.Println()
	for i := 0; i < len(runs); i += group {
		g, o := runs[i], runs[i+1]
		gw, ow, gc, oc := median(g.walls), median(o.walls), median(g.cpus), median(o.cpus)
		fmt.Printf("%-5s %-7s %10s %10s %7.2fx %10s %10s %7.2fx %6d KiB %6d KiB", g.mode, g.order,
			ms(gw), ms(ow), float64(ow)/float64(gw), ms(gc), ms(oc), float64(oc)/float64(gc), median(g.rss), median(o.rss))
		if group == 3 {
			b := runs[i+2]
			bc := median(b.cpus)
			fmt.Printf(" %10s %7.2fx %6d KiB", ms(bc), float64(bc)/float64(gc), median(b.rss))
		}
		fmt.Println()
	}
}

// once runs x with its standard input the file in and its standard output
// as x.mode says, and returns what it wrote (nil for /dev/null), its exit
// status, wall and CPU time and peak RSS.
//
// The peak RSS a parent reads for its child starts from the parent's own
// peak (Go starts a child with CLONE_VM, and the kernel charges the
// memory the child shared until its exec), so with viaTime the command
// runs under /usr/bin/time, a small C program that forks without sharing
// its memory: rssKiB is then what time reports for the command alone (0
// when /usr/bin/time is missing), and the times are not the command's.
func (x *run) once(dir, in, tmp string, viaTime bool) (out []byte, code int, wall, cpu time.Duration, rssKiB int64) {
	argv := x.argv
	rssFile := filepath.Join(tmp, "rss")
	if viaTime {
		if _, err := os.Stat("/usr/bin/time"); err != nil {
			return nil, 0, 0, 0, 0
		}
		argv = append([]string{"/usr/bin/time", "-f", "%M", "-o", rssFile}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdin, err := os.Open(in)
	check(err)
	defer stdin.Close()
	cmd.Stdin = stdin
	var outFile *os.File
	var pr *os.File
	done := make(chan []byte, 1)
	switch x.mode {
	case "file":
		outFile, err = os.Create(filepath.Join(tmp, "out"))
	case "null":
		outFile, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	case "pipe":
		pr, outFile, err = os.Pipe()
		if err == nil {
			go func() {
				b, _ := io.ReadAll(pr)
				done <- b
			}()
		}
	}
	check(err)
	cmd.Stdout = outFile
	t0 := time.Now()
	err = cmd.Start()
	check(err)
	outFile.Close() // the child holds its own copy
	werr := cmd.Wait()
	wall = time.Since(t0)
	if pr != nil {
		out = <-done
		pr.Close()
	}
	if ee, ok := werr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		check(werr)
	}
	st := cmd.ProcessState
	cpu = st.UserTime() + st.SystemTime()
	if viaTime {
		b, err := os.ReadFile(rssFile)
		check(err)
		_, err = fmt.Sscan(string(b), &rssKiB)
		check(err)
	}
	if x.mode == "file" {
		out, err = os.ReadFile(filepath.Join(tmp, "out"))
		check(err)
	}
	return out, code, wall, cpu, rssKiB
}

// writePaths writes count paths of repo, from a lexical walk of it
// (files and directories, .git left out), in three orders: walk, a run of
// count consecutive entries from the middle of the walk, as a tool that
// pipes a subtree's paths sends them; random, the same paths shuffled;
// and sparse, every k-th entry of the whole walk in walk order (k making
// count of them), where nearly every path is in a directory not met
// before. It returns how many paths each file holds.
func writePaths(repo string, files map[string]string, count int, seed uint64) (int, error) {
	var all []string
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(repo, p)
		if rel != "." && !strings.ContainsAny(rel, "\n\r") {
			all = append(all, rel)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	count = min(count, len(all))
	start := (len(all) - count) / 2
	run := slices.Clone(all[start : start+count])
	k := max(1, len(all)/count)
	var sparse []string
	for i := k - 1; i < len(all) && len(sparse) < count; i += k {
		sparse = append(sparse, all[i])
	}
	shuffled := slices.Clone(run)
	r := rand.New(rand.NewPCG(seed, 7))
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for order, paths := range map[string][]string{"walk": run, "random": shuffled, "sparse": sparse} {
		if err := os.WriteFile(files[order], []byte(strings.Join(paths, "\n")+"\n"), 0o644); err != nil {
			return 0, err
		}
	}
	return count, nil
}

func median[T int64 | time.Duration](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "cistdin:", err)
		os.Exit(1)
	}
}
