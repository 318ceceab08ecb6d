//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestWalkHugeDirectoryStreams: agent-host walk of one directory of
// 100,000 files prints its first line at once and stays small: the walk
// reads and prints the directory a part at a time. The old walk read the
// whole directory and built all its lines before the first (for
// 1,000,000 files: the first line after 9 s, 358 MiB).
func TestWalkHugeDirectoryStreams(t *testing.T) {
	w := newWorld(t)
	const files = 100000
	makeFilesIn(t, filepath.Join(w.ws, "d"), files)
	cmd := w.cmd("walk", "d")
	out, errb := w.start(cmd)
	start := time.Now()
	r := bufio.NewReaderSize(out, 64<<10)
	first, err := r.ReadString('\n')
	firstAt := time.Since(start)
	if err != nil {
		t.Fatalf("no first line: %v (stderr %q)", err, errb)
	}
	n := 1
	rss := 0
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			break
		}
		n++
		if !strings.HasPrefix(string(line), "d/file-") {
			t.Fatalf("line %q", line)
		}
		if n == files/2 {
			// The child's own peak so far (VmHWM), read while more than
			// the pipe and its buffer hold is still to come, so that it
			// is blocked writing, not gone. Its rusage after exit would
			// not do: exec keeps the forking test process's peak in it.
			rss = peakRSS(t, cmd.Process.Pid)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("walk: %v (stderr %q)", err, errb)
	}
	t.Logf("first line %q after %v, %d lines, peak RSS %d KiB", strings.TrimSpace(first), firstAt, n, rss)
	if n != files {
		t.Errorf("%d lines, want %d", n, files)
	}
	// The first line comes after the process starts and the first part of
	// the directory is read: milliseconds. The bound leaves room for a
	// loaded machine; the old walk needed about a second here.
	if firstAt > 400*time.Millisecond {
		t.Errorf("first line after %v, want < 400ms", firstAt)
	}
	if rss == 0 || rss > 32<<10 {
		t.Errorf("peak RSS %d KiB, want < 32 MiB", rss)
	}
}

// TestWalkMaxEntriesExact: walk --max-entries N prints exactly the first N
// lines of the whole walk (its path order: -max-entries without a cut
// prints all of them), with and without --dirs and --json; a cut is said
// on stderr (with --json, by a last line {"truncated":true}) and the exit
// status is 0. The old walk printed nothing for N=1, 5 and 10 on a GOROOT
// copy: the directory in which the limit fell was dropped.
func TestWalkMaxEntriesExact(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	files := map[string]string{"a-c": "", "a/b": "", "a/z/y": "", "b/c/d/e": "", "zz": ""}
	for i := range 1200 {
		files[fmt.Sprintf("many/f%04d", i)] = ""
	}
	writeFiles(t, w.ws, files)
	for _, dirs := range []bool{false, true} {
		args := []string{"walk"}
		if dirs {
			args = append(args, "--dirs")
		}
		// The whole walk, in path order (name by name).
		all := w.run("", append(args, "--max-entries", "100000")...)
		if all.code != 0 || all.stderr != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, all.code, all.stderr)
		}
		want := strings.SplitAfter(all.stdout, "\n")
		want = want[:len(want)-1]
		full := w.run("", args...)
		unordered := strings.SplitAfter(full.stdout, "\n")
		unordered = unordered[:len(unordered)-1]
		slices.SortFunc(unordered, func(a, b string) int {
			return slices.Compare(strings.Split(strings.TrimSuffix(a, "\n"), "/"), strings.Split(strings.TrimSuffix(b, "\n"), "/"))
		})
		if !slices.Equal(want, unordered) {
			t.Fatalf("%q: --max-entries without a cut is not the whole walk in path order", args)
		}
		for _, n := range []int{1, 2, 5, 10, 100, 1199, len(want) - 1, len(want)} {
			r := w.run("", append(args, "--max-entries", fmt.Sprint(n))...)
			if r.code != 0 || r.stdout != strings.Join(want[:n], "") {
				t.Fatalf("%q --max-entries %d: exit %d, %d lines, want the first %d of %d", args, n, r.code, strings.Count(r.stdout, "\n"), n, len(want))
			}
			said := strings.Contains(r.stderr, "stopped after")
			if said != (n < len(want)) {
				t.Errorf("%q --max-entries %d: stderr %q", args, n, r.stderr)
			}
			j := w.run("", append(args, "--json", "--max-entries", fmt.Sprint(n))...)
			lines := strings.Split(strings.TrimSpace(j.stdout), "\n")
			var last map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
				t.Fatal(err)
			}
			if cut := last["truncated"] == true; cut != (n < len(want)) || cut && len(lines) != n+1 || !cut && len(lines) != n {
				t.Errorf("%q --json --max-entries %d: %d lines, last %v", args, n, len(lines), last)
			}
		}
	}
}

// makeFilesIn creates n empty files in dir (made), a few goroutines at a
// time.
func makeFilesIn(t *testing.T, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const workers = 4
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += workers {
				if err := syscall.Mknod(filepath.Join(dir, fmt.Sprintf("file-%07d", i)), syscall.S_IFREG|0o644, 0); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
}

// peakRSS is the VmHWM of process pid, in KiB.
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
