// Command ignorebench compares Host.IsPathIgnored with git check-ignore on
// the same paths, in one run.
//
// Usage:
//
//	ignorebench -repo DIR -write-paths FILE [-count 10000] [-seed 1]
//	ignorebench -repo DIR -paths FILE [-n 11] [-git-index=false] [-cpuprofile F]
//
// The first form samples paths under DIR (files, directories, and paths
// that do not exist, relative to DIR) into FILE. The second checks that
// IsPathIgnored and Host.CheckIgnore agree with "git check-ignore -v -n
// --no-index" on every path, then times, each for n rounds: a warm IsPathIgnored pass over all
// paths in this process (after one untimed pass), a cold pass on a fresh
// Host, and "git check-ignore --stdin" as a whole process fed the same
// paths (its output to a regular file, so git buffers it). It prints the
// medians per path and the ratio, and for the warm case a breakdown: a
// walk.Cache asked directly (no jail resolution) and Host.ResolveInJail
// alone on the same paths.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/host/walk"
)

func main() {
	repo := flag.String("repo", "", "repository to query")
	pathsFile := flag.String("paths", "", "file of paths, one per line, relative to -repo")
	write := flag.String("write-paths", "", "sample paths into this file and exit")
	count := flag.Int("count", 10000, "paths to sample")
	seed := flag.Uint64("seed", 1, "sampling seed")
	rounds := flag.Int("n", 11, "timed rounds")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of extra warm passes (after the timed rounds) to this file")
	profPasses := flag.Int("profile-passes", 50, "warm passes profiled by -cpuprofile, IsPathIgnored and CheckIgnore each")
	gitIndex := flag.Bool("git-index", true, "also time git check-ignore with its index (slow: seconds per round on a big index)")
	flag.Parse()
	if *repo == "" || (*pathsFile == "") == (*write == "") {
		fmt.Fprintln(os.Stderr, "usage: ignorebench -repo DIR (-paths FILE | -write-paths FILE)")
		os.Exit(2)
	}
	if *write != "" {
		check(sample(*repo, *write, *count, *seed))
		return
	}
	data, err := os.ReadFile(*pathsFile)
	check(err)
	paths := strings.Split(strings.TrimRight(string(data), "\n"), "\n")

	// Agreement with git, path by path.
	want := gitAnswers(*repo, paths)
	h, err := host.New(host.Config{WorkspaceRoot: *repo})
	check(err)
	defer h.Close()
	ctx := context.Background()
	mismatches, ignored := 0, 0
	for _, p := range paths {
		got, err := h.IsPathIgnored(ctx, "", p)
		check(err)
		if got {
			ignored++
		}
		if got != want[p] {
			mismatches++
			if mismatches <= 10 {
				fmt.Printf("MISMATCH %q: IsPathIgnored %v, git %v\n", p, got, want[p])
			}
		}
	}
	fmt.Printf("%d paths, %d ignored, %d disagreements with git check-ignore\n", len(paths), ignored, mismatches)
	// The batch form must give the same answers.
	res, err := h.CheckIgnore(ctx, "", paths, host.CheckIgnoreOptions{VerdictOnly: true})
	check(err)
	bad := 0
	for i, r := range res {
		check(r.Err)
		if r.Ignored != want[paths[i]] {
			bad++
			if bad <= 10 {
				fmt.Printf("MISMATCH %q: CheckIgnore %v, git %v\n", paths[i], r.Ignored, want[paths[i]])
			}
		}
	}
	fmt.Printf("CheckIgnore: %d disagreements with git check-ignore\n", bad)

	// For the breakdown: package walk on its own (the paths joined to the
	// canonical root, as the Host's resolution gives them here), and the
	// jail resolution on its own.
	root, err := filepath.EvalSymlinks(*repo)
	check(err)
	abs := make([]string, len(paths))
	for i, p := range paths {
		abs[i] = filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			abs[i] += "/"
		}
	}
	var wc walk.Cache
	defer wc.Close()
	for _, p := range abs {
		_, _ = wc.IsIgnored(ctx, root, p)
	}

	var warm, cold, gitT, gitNoIndexT, batchT, walkT, jailT []time.Duration
	var warmCPU, batchCPU, gitNoIndexCPU []time.Duration // CPU time, user and system
	var gitCPU time.Duration                             // of the last runGit
	runGit := func(args ...string) time.Duration {
		out, err := os.CreateTemp("", "ignorebench-*")
		check(err)
		defer os.Remove(out.Name())
		defer out.Close()
		cmd := exec.Command("git", args...)
		cmd.Dir = *repo
		cmd.Stdin = bytes.NewReader(data)
		cmd.Stdout = out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				check(err)
			}
		}
		d := time.Since(start)
		gitCPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return d
	}
	for r := 0; r < *rounds; r++ {
		// git, as a process, with all paths on stdin: with its index (the
		// default) and without.
		if *gitIndex {
			gitT = append(gitT, runGit("check-ignore", "--stdin"))
		}
		gitNoIndexT = append(gitNoIndexT, runGit("check-ignore", "--stdin", "--no-index"))
		gitNoIndexCPU = append(gitNoIndexCPU, gitCPU)

		// A fresh Host: the first pass reads and compiles everything.
		h2, err := host.New(host.Config{WorkspaceRoot: *repo})
		check(err)
		start := time.Now()
		for _, p := range paths {
			_, _ = h2.IsPathIgnored(ctx, "", p)
		}
		cold = append(cold, time.Since(start))
		h2.Close()

		// The long-lived Host: warm.
		c0 := cpuTime()
		start = time.Now()
		for _, p := range paths {
			_, _ = h.IsPathIgnored(ctx, "", p)
		}
		warm = append(warm, time.Since(start))
		warmCPU = append(warmCPU, cpuTime()-c0)

		// The batch form, warm: every path in one Host.CheckIgnore.
		c0 = cpuTime()
		start = time.Now()
		_, _ = h.CheckIgnore(ctx, "", paths, host.CheckIgnoreOptions{VerdictOnly: true})
		batchT = append(batchT, time.Since(start))
		batchCPU = append(batchCPU, cpuTime()-c0)

		start = time.Now()
		for _, p := range abs {
			_, _ = wc.IsIgnored(ctx, root, p)
		}
		walkT = append(walkT, time.Since(start))

		start = time.Now()
		for _, p := range paths {
			_, _ = h.ResolveInJail(ctx, "", p)
		}
		jailT = append(jailT, time.Since(start))
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		check(err)
		check(pprof.StartCPUProfile(f))
		for range *profPasses {
			for _, p := range paths {
				_, _ = h.IsPathIgnored(ctx, "", p)
			}
			_, _ = h.CheckIgnore(ctx, "", paths, host.CheckIgnoreOptions{VerdictOnly: true})
		}
		pprof.StopCPUProfile()
		check(f.Close())
	}
	n := float64(len(paths))
	per := func(d []time.Duration) float64 {
		if len(d) == 0 {
			return 0
		}
		return float64(median(d)) / n
	}
	fmt.Printf("IsPathIgnored warm : %8.0f ns/path (median of %d passes)\n", per(warm), *rounds)
	fmt.Printf("IsPathIgnored cold : %8.0f ns/path (fresh Host each pass)\n", per(cold))
	if *gitIndex { // else git with its index was not timed
		fmt.Printf("git check-ignore   : %8.0f ns/path (whole process / %d paths)\n", per(gitT), len(paths))
	}
	fmt.Printf("git --no-index     : %8.0f ns/path (whole process / %d paths)\n", per(gitNoIndexT), len(paths))
	fmt.Printf("CheckIgnore batch  : %8.0f ns/path (warm, one call for all paths)\n", per(batchT))
	if *gitIndex {
		fmt.Printf("ratio git/warm     : %8.1fx   git/cold: %.1fx\n", per(gitT)/per(warm), per(gitT)/per(cold))
	}
	fmt.Printf("ratio git --no-index/warm: %.1fx   /batch: %.1fx\n", per(gitNoIndexT)/per(warm), per(gitNoIndexT)/per(batchT))
	if per(warmCPU) > 0 && per(batchCPU) > 0 {
		fmt.Printf("cpu (user+sys)     : warm %.0f, batch %.0f, git --no-index %.0f ns/path; git/warm %.1fx, git/batch %.1fx\n",
			per(warmCPU), per(batchCPU), per(gitNoIndexCPU), per(gitNoIndexCPU)/per(warmCPU), per(gitNoIndexCPU)/per(batchCPU))
	}
	fmt.Printf("breakdown, warm    : walk.Cache.IsIgnored alone %.0f ns/path (git --no-index/that %.1fx); Host.ResolveInJail alone %.0f ns/path\n",
		per(walkT), per(gitNoIndexT)/per(walkT), per(jailT))
}

// gitAnswers asks git check-ignore -v -n --no-index about every path.
func gitAnswers(repo string, paths []string) map[string]bool {
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString("./" + p) // "./": a leading ':' is not pathspec magic
		in.WriteByte(0)
	}
	cmd := exec.Command("git", "check-ignore", "-z", "-v", "-n", "--no-index", "--stdin")
	cmd.Dir = repo
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			check(err)
		}
	}
	f := strings.Split(string(out), "\x00")
	m := map[string]bool{}
	for i := 0; i+3 < len(f); i += 4 {
		m[strings.TrimPrefix(f[i+3], "./")] = f[i] != "" && !strings.HasPrefix(f[i+2], "!")
	}
	return m
}

// sample writes count paths under repo: 70% existing files, 15%
// directories (half with a trailing slash), 15% names that do not exist.
func sample(repo, file string, count int, seed uint64) error {
	var files, dirs []string
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(repo, p)
		if rel == "." || strings.ContainsAny(rel, "\n\r") {
			return nil
		}
		if d.IsDir() {
			dirs = append(dirs, rel)
		} else {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 7))
	w, err := os.Create(file)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for i := 0; i < count; i++ {
		var p string
		switch k := r.IntN(100); {
		case k < 70:
			p = files[r.IntN(len(files))]
		case k < 85:
			p = dirs[r.IntN(len(dirs))]
			if k < 78 {
				p += "/"
			}
		default:
			d := dirs[r.IntN(len(dirs))]
			p = filepath.Join(d, fmt.Sprintf("missing%d%s", i, []string{".go", ".log", ".tmp", ""}[r.IntN(4)]))
		}
		bw.WriteString(p + "\n")
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return w.Close()
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "ignorebench:", err)
		os.Exit(1)
	}
}
