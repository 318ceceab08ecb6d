package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/gittest"
	"github.com/agenthost/agenthost/internal/testbin"
)

// ignoreWorld is a repository with nested ignore rules for the --stdin
// tests, and git's environment for it.
func ignoreWorld(t *testing.T) (*world, *gittest.Env) {
	t.Helper()
	gittest.Skip(t)
	w := newWorld(t)
	e := gittest.At(w.home, "")
	e.Init(t, w.ws)
	w.file(".gitignore", []byte("*.log\n/build/\n!keep.log\n"))
	w.file("src/.gitignore", []byte("*.tmp\n!important.tmp\ngen/\n"))
	w.file("src/a/b/.gitignore", []byte("/local.txt\n*.o\n"))
	for _, p := range []string{"src/main.go", "src/a/b/x.o", "src/a/b/local.txt", "build/out.bin", "keep.log", "tracked.log"} {
		w.file(p, nil)
	}
	e.Git(t, w.ws, "add", "-f", "tracked.log")
	return w, e
}

// stdinPaths is n paths of the ignoreWorld, ignored and not, existing and
// not, files and directories, in walk order.
func stdinPaths(n int) []string {
	stems := []string{"", "src/", "src/a/", "src/a/b/", "src/gen/", "build/", "src/a/b/c/"}
	names := []string{"x.log", "keep.log", "tracked.log", "main.go", "y.tmp", "important.tmp", "local.txt", "z.o", "gen/", "build/", "b/", "q w.txt", "é.log"}
	var out []string
	for i := 0; len(out) < n; i++ {
		for _, s := range stems {
			for _, nm := range names {
				out = append(out, fmt.Sprintf("%s%s", s, strings.Replace(nm, ".", fmt.Sprintf("%d.", i), 1)))
			}
		}
	}
	return out[:n]
}

// TestCheckIgnoreStdinAgreesWithGitInEveryMode: check-ignore --stdin
// writes git's bytes and exits with git's status whether its output is a
// regular file, a pipe or /dev/null (git buffers the first and flushes
// every answer for the others; we batch what is queued), for paths in walk
// order and shuffled, more than a pipe holds, with -v, -v -n and -z; git
// run the same way on the same input is the oracle.
func TestCheckIgnoreStdinAgreesWithGitInEveryMode(t *testing.T) {
	w, e := ignoreWorld(t)
	walkOrder := stdinPaths(3000)
	shuffled := append([]string(nil), walkOrder...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	dir := t.TempDir()
	run := func(name string, args []string, input []byte, mode string) ([]byte, int) {
		cmd := exec.Command(name, args...)
		if name == "git" {
			cmd = e.Command(w.ws, "git", args...)
		} else {
			cmd.Dir, cmd.Env = w.ws, e.Environ()
		}
		in := filepath.Join(dir, "in")
		if err := os.WriteFile(in, input, 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		switch mode {
		case "file":
			f, err := os.Open(in) // input a file too
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
			of, err := os.Create(filepath.Join(dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer of.Close()
			cmd.Stdout = of
		case "pipe":
			cmd.Stdin = bytes.NewReader(input) // a pipe in, a pipe out
			cmd.Stdout = &out
		case "null":
			f, err := os.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
			of, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer of.Close()
			cmd.Stdout = of
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
		err := cmd.Run()
		timer.Stop()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		if mode == "file" {
			b, err := os.ReadFile(filepath.Join(dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			return b, code
		}
		return out.Bytes(), code
	}
	for _, flags := range [][]string{nil, {"-v"}, {"-v", "-n"}, {"-z", "-v", "-n"}, {"--no-index"}} {
		for order, paths := range map[string][]string{"walk": walkOrder, "random": shuffled} {
			sep := "\n"
			if len(flags) > 0 && flags[0] == "-z" {
				sep = "\x00"
			}
			input := []byte(strings.Join(paths, sep) + sep)
			for _, mode := range []string{"file", "pipe", "null"} {
				args := append([]string{"check-ignore", "--stdin"}, flags...)
				want, wantCode := run("git", args, input, mode)
				got, code := run(bin, args, input, mode)
				if wantCode > 1 || mode != "null" && len(want) == 0 {
					t.Fatalf("git %v (%s, %s): exit %d, %d bytes: the case does not test what it says", args, mode, order, wantCode, len(want))
				}
				if code != wantCode || !bytes.Equal(got, want) {
					t.Errorf("%v, %s order, output %s: exit %d, %d bytes; git exit %d, %d bytes; first difference at byte %d",
						args, order, mode, code, len(got), wantCode, len(want), firstDiff(got, want))
				}
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestCheckIgnoreStdinAnswersEachPathAtOnce: a program that writes one
// path into a real pipe and waits for its answer on another (an editor
// does this) gets it, path after path, each within a deadline, while the
// process keeps running; the answers are git's for the same paths, and an
// edit to an ignore file made during the session is seen.
func TestCheckIgnoreStdinAnswersEachPathAtOnce(t *testing.T) {
	w, e := ignoreWorld(t)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	defer outR.Close()
	cmd := exec.Command(bin, "check-ignore", "--stdin", "-v", "-n")
	cmd.Dir, cmd.Env = w.ws, e.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	done := false
	defer func() {
		if !done {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	answers := bufio.NewReader(outR)
	for _, p := range []string{"x.log", "src/main.go", "src/a/b/local.txt", "keep.log", "build/", "src/y.tmp", "tracked.log"} {
		want, code := e.Run(t, w.ws, p+"\n", "check-ignore", "--stdin", "-v", "-n")
		if code > 1 || want == "" {
			t.Fatalf("git's answer for %q: exit %d %q", p, code, want)
		}
		if _, err := io.WriteString(inW, p+"\n"); err != nil {
			t.Fatal(err)
		}
		if err := outR.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		got, err := answers.ReadString('\n')
		if err != nil {
			t.Fatalf("answer for %q, written alone into a pipe: %v (got %q)", p, err, got)
		}
		if got != want {
			t.Errorf("answer for %q: %q, git %q", p, got, want)
		}
	}
	// A session sees an edit made during it (no watches: each batch
	// re-checks by stat what it uses, at most RecheckInterval old), where
	// git answers from the rules it read first.
	ask := func(p string) string {
		t.Helper()
		if _, err := io.WriteString(inW, p+"\n"); err != nil {
			t.Fatal(err)
		}
		if err := outR.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		got, err := answers.ReadString('\n')
		if err != nil {
			t.Fatalf("answer for %q: %v (got %q)", p, err, got)
		}
		return got
	}
	if got := ask("src/notes.md"); got != "::\tsrc/notes.md\n" {
		t.Fatalf("src/notes.md before the edit: %q", got)
	}
	w.file("src/.gitignore", []byte("*.tmp\n!important.tmp\ngen/\n*.md\n"))
	time.Sleep(20 * time.Millisecond) // past walk.RecheckInterval
	want, _ := e.Run(t, w.ws, "src/notes.md\n", "check-ignore", "--stdin", "-v", "-n")
	if got := ask("src/notes.md"); got != want {
		t.Errorf("src/notes.md after src/.gitignore was edited: %q, git (a new process) %q", got, want)
	}
	inW.Close()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		done = true
		if err != nil {
			t.Errorf("check-ignore after its input ended: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("check-ignore still running 10 s after its input ended")
	}
}

// TestReadPathBatches: the paths queued in a pipe when the reader gets to
// them are judged as one batch (not one by one, as every path was when the
// output was not a regular file), the output is flushed before the read
// that waits, and a regular file is read in batches of checkIgnoreBatch.
func TestReadPathBatches(t *testing.T) {
	var lines strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&lines, "p%d\n", i)
	}
	out := &syncBuffer{}
	bw := bufio.NewWriter(out)
	batches := make(chan int, 16)
	judge := func(paths []string) bool {
		bw.WriteString(paths[len(paths)-1] + "\n")
		batches <- len(paths)
		return true
	}
	errc := make(chan error, 1)

	// A pipe: what is queued when the reader gets to it is one batch.
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	defer w2.Close() // on a failure, ends the reader below
	if _, err := w2.WriteString(lines.String()); err != nil {
		t.Fatal(err)
	}
	go func() { errc <- readPathBatches(r2, false, bw, judge) }()
	select {
	case n := <-batches:
		if n != 1000 {
			t.Errorf("1000 paths queued in a pipe: a first batch of %d", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("1000 paths queued in a pipe: no batch after 10 s")
	}
	// The answers are out before the read that waits for the next path.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "p999\n") {
		if time.Now().After(deadline) {
			t.Fatalf("the batch's answers not flushed while the reader waits: %q", out.String())
		}
		time.Sleep(time.Millisecond)
	}
	w2.WriteString("last\n")
	select {
	case n := <-batches:
		if n != 1 {
			t.Errorf("one more path: a batch of %d", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("one path written alone: no answer after 10 s")
	}
	w2.Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}

	// A regular file: full batches.
	f := filepath.Join(t.TempDir(), "paths")
	var big strings.Builder
	n := 2*checkIgnoreBatch + 5
	for i := range n {
		fmt.Fprintf(&big, "p%d\n", i)
	}
	if err := os.WriteFile(f, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	batches = make(chan int, 16)
	if err := readPathBatches(in, false, bw, judge); err != nil {
		t.Fatal(err)
	}
	close(batches)
	var sizes []int
	for b := range batches {
		sizes = append(sizes, b)
	}
	if fmt.Sprint(sizes) != fmt.Sprint([]int{checkIgnoreBatch, checkIgnoreBatch, 5}) {
		t.Errorf("%d paths from a regular file: batches %v", n, sizes)
	}

	// Long lines: a batch is bounded in bytes too (16,384 lines of 1 MiB
	// would be 16 GiB).
	long := strings.Repeat("x", 100<<10)
	big.Reset()
	for range 100 {
		big.WriteString(long + "\n")
	}
	if err := os.WriteFile(f, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in2, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer in2.Close()
	batches = make(chan int, 16)
	if err := readPathBatches(in2, false, bw, judge); err != nil {
		t.Fatal(err)
	}
	close(batches)
	sizes = sizes[:0]
	for b := range batches {
		sizes = append(sizes, b)
	}
	if fmt.Sprint(sizes) != fmt.Sprint([]int{41, 41, 18}) {
		t.Errorf("100 paths of 100 KiB: batches %v, want at most 4 MiB each", sizes)
	}
}

// syncBuffer is a bytes.Buffer that a test reads while another
// goroutine writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCheckIgnoreStdinMemoryIsBounded (issue 25): 600,000 paths on
// standard input, the output to a regular file, keep the process under
// 64 MiB (its heap is held at checkIgnoreMemLimit, 32 MiB); the old code
// turned the collector off up to 256 MiB and reached 93 MiB here (243 MiB
// for a million paths). The answers are git's.
func TestCheckIgnoreStdinMemoryIsBounded(t *testing.T) {
	gittest.Skip(t)
	w := newWorld(t)
	e := gittest.At(w.home, "")
	e.Init(t, w.ws)
	w.file(".gitignore", []byte("*.log\n"))
	for k := range 50 {
		w.file(fmt.Sprintf("d%d/.keep", k), nil)
	}
	const n = 600000
	var input bytes.Buffer
	for i := range n {
		ext := "txt"
		if i%2 == 1 {
			ext = "log"
		}
		fmt.Fprintf(&input, "d%d/f%d.%s\n", i%50, i, ext)
	}
	outPath := filepath.Join(w.out, "answers")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(bin, "check-ignore", "--stdin")
	cmd.Dir, cmd.Env = w.ws, e.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(input.Bytes()), out, os.Stderr
	took, peak, code, err := testbin.Bounded(cmd, 60*time.Second, 64<<10)
	if err != nil {
		t.Fatalf("check-ignore --stdin of %d paths: %v", n, err)
	}
	if code != 0 {
		t.Fatalf("check-ignore --stdin of %d paths: exit %d", n, code)
	}
	t.Logf("%d paths: %v, peak RSS %d KiB", n, took, peak)
	got, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	want, code := e.Run(t, w.ws, input.String(), "check-ignore", "--stdin")
	if code != 0 || string(got) != want {
		t.Errorf("answers differ from git's (%d bytes, git %d bytes, exit %d)", len(got), len(want), code)
	}
}
