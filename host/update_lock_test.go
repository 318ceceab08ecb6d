//go:build linux

package host_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host"
)

// The counter tests of issue 11.1: read-modify-write increments of one
// counter through UpdateFile, from many goroutines (each with its own
// Host) and from many processes. An increment that returns success must
// never be lost: the final value equals the number of successes, every
// time. Run on t.TempDir (ext4 here) and on tmpfs.

// counterFS returns the directories to run the counter tests in: the
// test's temporary directory and, when /dev/shm is a tmpfs, one there.
func counterFS(t *testing.T) map[string]string {
	dirs := map[string]string{"tempdir": t.TempDir()}
	var st unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		t.Logf("tmpfs: skipped (/dev/shm is not a tmpfs here: %v)", err)
		return dirs
	}
	d, err := os.MkdirTemp("/dev/shm", "agenthost-counter-")
	if err != nil {
		t.Logf("tmpfs: skipped (%v)", err)
		return dirs
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dirs["tmpfs"] = d
	return dirs
}

// increment adds one to the counter in dir/counter through h, retrying on
// ErrChanged; it returns how many retries it took.
func increment(h *host.Host, dir string) (retries int, err error) {
	for {
		_, err := h.UpdateFile(bg, dir, "counter", func(r host.FileRead) ([]byte, error) {
			n, err := strconv.Atoi(strings.TrimSpace(r.Contents))
			if err != nil {
				return nil, fmt.Errorf("counter holds %q: %w", r.Contents, err)
			}
			return []byte(strconv.Itoa(n+1) + "\n"), nil
		})
		if errors.Is(err, host.ErrChanged) {
			retries++
			continue
		}
		return retries, err
	}
}

func readCounter(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "counter"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("counter holds %q", b)
	}
	return n
}

func TestUpdateFileCounterGoroutines(t *testing.T) {
	const goroutines, each = 8, 100
	for name, dir := range counterFS(t) {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "counter"), []byte("0\n"), 0o644)
			var ok, retries atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for range goroutines {
				h := newHost(t, host.Config{WorkspaceRoot: dir}) // a Host each: the lock is not the Host's
				wg.Go(func() {
					for range each {
						r, err := increment(h, dir)
						retries.Add(int64(r))
						if err != nil {
							t.Error(err)
							return
						}
						ok.Add(1)
					}
				})
			}
			wg.Wait()
			final := readCounter(t, dir)
			t.Logf("%s: %d goroutines x %d: successes %d, final %d, ErrChanged retries %d, %v per update",
				name, goroutines, each, ok.Load(), final, retries.Load(), time.Since(start)/time.Duration(goroutines*each))
			if int64(final) != ok.Load() || final != goroutines*each {
				t.Fatalf("lost updates: %d successes, counter %d", ok.Load(), final)
			}
			assertNoTemp(t, dir)
		})
	}
}

// helperEnv makes the test binary a helper process (see
// TestHelperProcess) instead of running tests.
const helperEnv = "AGENTHOST_HOST_HELPER"

// TestHelperProcess is not a test: run with helperEnv set, it is a helper
// process for the tests that need several processes. "counter DIR M"
// makes M increments of DIR/counter and prints "ok N retries R";
// "write DIR NAME TEXT" writes TEXT to DIR/NAME once and prints "done".
func TestHelperProcess(t *testing.T) {
	args := strings.Fields(os.Getenv(helperEnv))
	if len(args) == 0 {
		t.Skip("helper process only")
	}
	h, err := host.New(host.Config{WorkspaceRoot: args[1]})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	switch args[0] {
	case "counter":
		m, _ := strconv.Atoi(args[2])
		ok, retries := 0, 0
		for range m {
			r, err := increment(h, args[1])
			retries += r
			if err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			ok++
		}
		fmt.Println("ok", ok, "retries", retries)
	case "write":
		if _, err := h.WriteFile(bg, args[1], args[2], []byte(args[3])); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("done")
	}
	h.Close()
	os.Exit(0)
}

func helper(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+strings.Join(args, " "))
	return cmd
}

func TestUpdateFileCounterProcesses(t *testing.T) {
	const procs, each = 4, 100
	for name, dir := range counterFS(t) {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "counter"), []byte("0\n"), 0o644)
			start := time.Now()
			outs := make([][]byte, procs)
			errs := make([]error, procs)
			var wg sync.WaitGroup
			for i := range procs {
				wg.Go(func() { outs[i], errs[i] = helper("counter", dir, strconv.Itoa(each)).Output() })
			}
			wg.Wait()
			ok, retries := 0, 0
			for i := range procs {
				var o, r int
				if _, err := fmt.Sscanf(string(outs[i]), "ok %d retries %d", &o, &r); err != nil || errs[i] != nil {
					t.Fatalf("helper %d: %v %v: %s", i, errs[i], err, outs[i])
				}
				ok, retries = ok+o, retries+r
			}
			final := readCounter(t, dir)
			t.Logf("%s: %d processes x %d: successes %d, final %d, ErrChanged retries %d, %v in all",
				name, procs, each, ok, final, retries, time.Since(start))
			if final != ok || final != procs*each {
				t.Fatalf("lost updates: %d successes, counter %d", ok, final)
			}
			assertNoTemp(t, dir)
		})
	}
}

// TestWriteFileWaitsForUpdateFile: a WriteFile (from another goroutine
// with its own Host, and from another process) started while an
// UpdateFile is between its read and its replace does not complete until
// the UpdateFile is done, and then lands after it: the UpdateFile cannot
// silently overwrite it.
func TestWriteFileWaitsForUpdateFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	other := newHost(t, host.Config{WorkspaceRoot: dir})
	const hold = 300 * time.Millisecond

	t.Run("goroutine", func(t *testing.T) {
		done := make(chan time.Time, 1)
		var releasedAt time.Time
		_, err := h.UpdateFile(bg, "", "f", func(r host.FileRead) ([]byte, error) {
			go func() {
				if _, err := other.WriteFile(bg, "", "f", []byte("written")); err != nil {
					t.Error(err)
				}
				done <- time.Now()
			}()
			time.Sleep(hold)
			releasedAt = time.Now()
			return []byte(r.Contents + "+updated"), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if at := <-done; at.Before(releasedAt) {
			t.Fatal("WriteFile completed while UpdateFile held the file")
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "written" {
			t.Fatalf("file holds %q, want the later WriteFile's", b)
		}
	})

	t.Run("process", func(t *testing.T) {
		os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644)
		cmd := helper("write", dir, "f", "from-process")
		out, _ := cmd.StdoutPipe()
		var waited time.Duration
		_, err := h.UpdateFile(bg, "", "f", func(r host.FileRead) ([]byte, error) {
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			time.Sleep(hold) // the helper starts, writes its temp file and waits for the lock
			return []byte(r.Contents + "+updated"), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		released := time.Now()
		line, _ := bufio.NewReader(out).ReadString('\n')
		waited = time.Since(released)
		if err := cmd.Wait(); err != nil || line != "done\n" {
			t.Fatalf("helper: %v %q", err, line)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "f"))
		if string(b) != "from-process" && string(b) != "old+updated" {
			t.Fatalf("file holds %q", b)
		}
		// If the helper reached its replace while we held the lock, it
		// waited and landed after us; if it had not got there yet, it
		// landed after us anyway. Either way our update was not lost
		// under it and it was not lost under ours:
		if string(b) != "from-process" {
			t.Fatalf("the process's write was lost: file holds %q", b)
		}
		t.Logf("helper finished %v after the UpdateFile released", waited)
	})
}

// BenchmarkUpdateFile is one read-modify-write of a small file, on the
// test's temporary directory and on tmpfs. Compare with the same
// benchmark on the code before the lock (see docs/adr/0009).
func BenchmarkUpdateFile(b *testing.B) {
	dirs := map[string]string{"tempdir": b.TempDir()}
	if d, err := os.MkdirTemp("/dev/shm", "agenthost-bench-"); err == nil {
		defer os.RemoveAll(d)
		dirs["tmpfs"] = d
	}
	for _, name := range []string{"tempdir", "tmpfs"} {
		dir, ok := dirs[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			os.WriteFile(filepath.Join(dir, "counter"), []byte("0\n"), 0o644)
			h, err := host.New(host.Config{WorkspaceRoot: dir})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			for b.Loop() {
				if _, err := increment(h, dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
