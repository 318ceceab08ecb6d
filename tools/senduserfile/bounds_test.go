//go:build linux

package senduserfile_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The hook under hostile input and a hostile file system (issue 23): each
// case runs agent-host hook as a child process and asserts that it ends
// within a deadline and under a bound of peak memory, with what it must
// print and leave on disk.

const (
	// hookDeadline is how long a hook process may run in these tests
	// before it is killed and the test fails: a call that stages a small
	// file takes milliseconds; a hook that waits on a FIFO never ends.
	hookDeadline = 10 * time.Second
	// hookMaxRSS is the bound on a hook process's peak resident memory,
	// in KiB: the hook with a 1 MiB input stays near 10 MiB.
	hookMaxRSS = 64 << 10
)

// bounded is what one bounded run of the hook gave.
type bounded struct {
	stdout, stderr []byte
	code           int
	took           time.Duration
	rssKiB         int64
}

// runBounded runs agent-host hook with stdin and the env's environment,
// kills it at hookDeadline, and fails the test when it was killed, ran
// past the deadline or peaked above hookMaxRSS. before, when set, runs
// once the process has started (it is then blocked reading its stdin,
// which is a pipe written only after before returns). The peak RSS is
// the child's ru_maxrss, which on Linux also counts the test process's
// resident set at the fork (os/exec starts a child by vfork and exec, and
// exec records the old memory's high-water mark): an upper bound of the
// hook's own.
func (e *env) runBounded(stdin io.Reader, before func(pid int), args ...string) bounded {
	e.t.Helper()
	cmd := exec.Command(binary, append([]string{"hook"}, args...)...)
	cmd.Dir = e.root
	cmd.Env = e.environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	timer := time.AfterFunc(hookDeadline, func() { cmd.Process.Kill() })
	defer timer.Stop()
	if before != nil {
		before(cmd.Process.Pid)
	}
	go func() {
		io.Copy(w, stdin) // stops at EPIPE when the hook stops reading
		w.Close()
	}()
	err = cmd.Wait()
	b := bounded{stdout: stdout.Bytes(), stderr: stderr.Bytes(), took: time.Since(start)}
	b.rssKiB = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	b.code = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.t.Fatalf("hook killed by %v after %v (deadline %v), peak RSS %d KiB; stderr %q", ws.Signal(), b.took, hookDeadline, b.rssKiB, stderr.Bytes())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		e.t.Fatal(err)
	}
	if b.took > hookDeadline {
		e.t.Errorf("hook took %v, bound %v", b.took, hookDeadline)
	}
	// The child's ru_maxrss is at least the test process's high-water
	// mark when it was started (see above), which under -race passes 64
	// MiB: the bound is the larger of the two. The hostile cases before
	// the fix went far past both (389 MiB and more).
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	if bound := max(hookMaxRSS, self.Maxrss); b.rssKiB > bound {
		e.t.Errorf("hook peaked at %d KiB, bound %d KiB (the test process's own peak: %d KiB)", b.rssKiB, bound, self.Maxrss)
	}
	e.t.Logf("hook: exit %d in %v, peak RSS %d KiB", b.code, b.took.Round(time.Millisecond), b.rssKiB)
	return b
}

// short quotes b, cut to its first 300 bytes.
func short(b []byte) string {
	if len(b) > 300 {
		return fmt.Sprintf("%q... (%d bytes)", b[:300], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// randomStream is n pseudo-random bytes, made as they are read.
type randomStream struct {
	left int64
	rng  *rand.ChaCha8
}

func (r *randomStream) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.left)]
	r.rng.Read(p)
	r.left -= int64(len(p))
	return len(p), nil
}

// TestHookStdinBounded: the hook reads at most senduserfile.MaxInput (1
// MiB) of its standard input and declines anything longer as it declines
// bad JSON: exit 0, nothing printed, nothing staged, nothing logged. Before,
// it read all of stdin (1 GiB of random bytes took 2.6 GiB).
func TestHookStdinBounded(t *testing.T) {
	e := newEnv(t)
	src := e.file(filepath.Join(e.out, "report.txt"), "report")

	t.Run("256 MiB of random bytes", func(t *testing.T) {
		e := *e
		e.t = t
		b := e.runBounded(&randomStream{left: 256 << 20, rng: rand.NewChaCha8([32]byte{23})}, nil)
		if b.code != 0 || len(b.stdout) != 0 || len(b.stderr) != 0 {
			t.Errorf("exit %d, stdout %s, stderr %s; want 0 and nothing", b.code, short(b.stdout), short(b.stderr))
		}
	})
	t.Run("a valid call padded past 1 MiB", func(t *testing.T) {
		e := *e
		e.t = t
		in, _ := json.Marshal(map[string]any{
			"session_id": "s", "tool_name": "SendUserFile", "cwd": e.cwd,
			"tool_input": map[string]any{"files": []any{src}, "caption": strings.Repeat("x", 1<<20)},
		})
		b := e.runBounded(bytes.NewReader(in), nil)
		if b.code != 0 || len(b.stdout) != 0 || len(b.stderr) != 0 {
			t.Errorf("exit %d, stdout %s, stderr %s; want 0 and nothing", b.code, short(b.stdout), short(b.stderr))
		}
		e.noOutbox()
		if rows := e.logRows(); len(rows) != 0 {
			t.Errorf("logged %v", rows)
		}
	})
	t.Run("the same call just under 1 MiB is staged", func(t *testing.T) {
		e := *e
		e.t = t
		in, _ := json.Marshal(map[string]any{
			"session_id": "s", "tool_name": "SendUserFile", "cwd": e.cwd,
			"tool_input": map[string]any{"files": []any{src}, "caption": ""},
		})
		in = bytes.Replace(in, []byte(`"caption":""`), []byte(`"caption":"`+strings.Repeat("x", 1<<20-len(in))+`"`), 1)
		if len(in) != 1<<20 {
			t.Fatalf("payload is %d bytes", len(in))
		}
		b := e.runBounded(bytes.NewReader(in), nil)
		if got := e.decode(b.stdout).files(t); len(got) != 1 || got[0] != e.copyPath(src) {
			t.Errorf("files %v, want the copy", got)
		}
	})
}

// TestHookNeverWaitsOnAFIFO: a FIFO or a device where the hook opens a
// file by a path (the decision log, its lock, the harness config, the
// file to send, a copy's place in the outbox) is never waited on and
// never read without end: the call ends at once, stages what it can and
// prints its answer. Before, a FIFO at the log or the config hung the hook
// until Claude Code killed it (the staged copy then unused), and
// /dev/zero at the config was read until memory ran out.
func TestHookNeverWaitsOnAFIFO(t *testing.T) {
	fifo := func(p string) func(e *env) {
		return func(e *env) {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := unix.Mkfifo(p, 0o600); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	link := func(target, p string) func(e *env) {
		return func(e *env) {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.Symlink(target, p); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	state := filepath.Join("harness", ".local", "state", "agent-harness")
	config := filepath.Join("harness", ".config", "agent-harness", "config.json")
	cases := []struct {
		name   string
		make   func(root string) func(e *env)
		logged bool // a row is still appended to a regular log
	}{
		{"decision log is a FIFO", func(r string) func(*env) { return fifo(filepath.Join(r, state, "decisions.jsonl")) }, false},
		{"decision log's lock is a FIFO", func(r string) func(*env) { return fifo(filepath.Join(r, state, "decisions.jsonl.lock")) }, true},
		{"config is a FIFO", func(r string) func(*env) { return fifo(filepath.Join(r, config)) }, true},
		{"config is /dev/zero", func(r string) func(*env) { return link("/dev/zero", filepath.Join(r, config)) }, true},
		{"decision log is /dev/zero", func(r string) func(*env) { return link("/dev/zero", filepath.Join(r, state, "decisions.jsonl")) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			c.make(e.root)(e)
			src := e.file(filepath.Join(e.out, "report.txt"), "report")
			fifoSrc := filepath.Join(e.out, "pipe")
			fifo(fifoSrc)(e)
			b := e.runBounded(bytes.NewReader(e.payload(src, fifoSrc)), nil)
			if b.code != 0 || len(b.stderr) != 0 {
				t.Errorf("exit %d, stderr %q", b.code, b.stderr)
			}
			if got, want := e.decode(b.stdout).files(t), []any{e.copyPath(src), fifoSrc}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("files %v, want %v", got, want)
			}
			if c.logged {
				if n := len(e.logRows()); n != 1 {
					t.Errorf("%d log rows, want 1", n)
				}
			}
		})
	}
	t.Run("a copy's place in the outbox is a FIFO", func(t *testing.T) {
		e := newEnv(t)
		src := e.file(filepath.Join(e.out, "report.txt"), "report")
		fifo(filepath.Join(e.cwd, ".agent-harness", "outbox", digest(t, src), "report.txt"))(e)
		b := e.runBounded(bytes.NewReader(e.payload(src)), nil)
		if b.code != 0 || len(b.stdout) == 0 {
			t.Errorf("exit %d, stdout %q", b.code, b.stdout)
		}
	})
}

// TestShortAppendIsCutBack: when the decision log cannot take a whole row
// (a full disk; here the file size limit, RLIMIT_FSIZE, set on the hook
// process a few bytes past the log's size, SIGXFSZ ignored as the Go
// runtime ignores it), the part written is cut back and the log stays
// whole JSON lines; the call still stages and answers. Before, the torn
// row stayed and glued itself to the next one.
func TestShortAppendIsCutBack(t *testing.T) {
	for _, room := range []int{10, 0} {
		t.Run(fmt.Sprintf("%d bytes of room", room), func(t *testing.T) {
			e := newEnv(t)
			first := e.file(filepath.Join(e.out, "first.txt"), "1")
			e.stage([]any{first})
			log := filepath.Join(e.harness, ".local", "state", "agent-harness", "decisions.jsonl")
			before, err := os.ReadFile(log)
			if err != nil || len(before) == 0 {
				t.Fatalf("log after one call: %q, %v", before, err)
			}
			src := e.file(filepath.Join(e.out, "second.txt"), "2")
			limit := uint64(len(before) + room)
			b := e.runBounded(bytes.NewReader(e.payload(src)), func(pid int) {
				lim := unix.Rlimit{Cur: limit, Max: limit}
				if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &lim, nil); err != nil {
					t.Fatal(err)
				}
			})
			if b.code != 0 {
				t.Errorf("exit %d, stderr %q", b.code, b.stderr)
			}
			if got := e.decode(b.stdout).files(t); len(got) != 1 || got[0] != e.copyPath(src) {
				t.Errorf("files %v", got)
			}
			after, _ := os.ReadFile(log)
			if !bytes.Equal(after, before) {
				t.Errorf("log after a short append:\n%q\nwant it as it was:\n%q", after, before)
			}
			e.logRows() // every line parses
			// With room again, the next row lands whole after the others.
			e.stage([]any{src})
			if n := len(e.logRows()); n != 2 {
				t.Errorf("%d rows, want 2", n)
			}
		})
	}
}

// TestFailedStagingLeavesNoEmptyFolder: a digest folder whose copy never
// came (a hook killed between making it and putting the copy in, or a
// copy that failed) is removed by the next call that reaches the outbox,
// whatever its age; folders that hold a copy stay. Before, only the
// 14-day prune removed them.
func TestFailedStagingLeavesNoEmptyFolder(t *testing.T) {
	t.Run("a killed call's folder", func(t *testing.T) {
		e := newEnv(t)
		kept := e.file(filepath.Join(e.out, "kept.txt"), "k")
		e.stage([]any{kept})
		box := filepath.Join(e.cwd, ".agent-harness", "outbox")
		// What a hook killed after its mkdir leaves: an empty folder.
		dead := filepath.Join(box, "0123456789abcdef")
		if err := os.Mkdir(dead, 0o755); err != nil {
			t.Fatal(err)
		}
		other := e.file(filepath.Join(e.out, "other.txt"), "o")
		e.runBounded(bytes.NewReader(e.payload(other)), nil)
		if _, err := os.Lstat(dead); err == nil {
			t.Errorf("the empty digest folder %s is still there", dead)
		}
		for _, p := range []string{kept, other} {
			if _, err := os.Stat(e.copyPath(p)); err != nil {
				t.Errorf("a copy went: %v", err)
			}
		}
	})
	t.Run("a copy that failed", func(t *testing.T) {
		// The file size limit stops the copy of a 64 KiB file (SIGXFSZ is
		// ignored by the Go runtime): the call keeps it, and leaves no
		// folder for it.
		e := newEnv(t)
		big := e.file(filepath.Join(e.out, "big.bin"), strings.Repeat("b", 64<<10))
		b := e.runBounded(bytes.NewReader(e.payload(big)), func(pid int) {
			lim := unix.Rlimit{Cur: 4 << 10, Max: 4 << 10}
			if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &lim, nil); err != nil {
				t.Fatal(err)
			}
		})
		if o := e.decode(b.stdout); o.HookSpecificOutput != nil {
			t.Errorf("staged despite the limit: %s", b.stdout)
		}
		ents, _ := os.ReadDir(filepath.Join(e.cwd, ".agent-harness", "outbox"))
		for _, d := range ents {
			if d.IsDir() {
				t.Errorf("folder left in the outbox: %s", d.Name())
			}
		}
	})
}

// TestSecretCheckHasNoSharedBudget: the search of the secret directories
// for a hard link has a budget per directory, and a search that reaches
// it keeps the file and says so. Before, one budget of 10,000 entries was
// shared: with 10,001 files in ~/.kube, a hard link to ~/.git-credentials
// was copied into the outbox with the token in it.
func TestSecretCheckHasNoSharedBudget(t *testing.T) {
	e := newEnv(t)
	kube := filepath.Join(e.home, ".kube", "cache")
	if err := os.MkdirAll(kube, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 10001 {
		if err := os.WriteFile(filepath.Join(kube, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	creds := e.file(filepath.Join(e.home, ".git-credentials"), "https://u:FAKE-TOKEN@example.com\n")
	hard := filepath.Join(e.out, "notes.txt")
	if err := os.Link(creds, hard); err != nil {
		t.Fatal(err)
	}
	// A hard-linked file that is no secret: the search for it stops at
	// ~/.kube's bound, so it is not copied either, and the message names
	// the bound.
	plain := e.file(filepath.Join(e.out, "plain.txt"), "plain")
	if err := os.Link(plain, filepath.Join(e.out, "plain-link.txt")); err != nil {
		t.Fatal(err)
	}
	ok := e.file(filepath.Join(e.out, "ok.txt"), "fine")
	b := e.runBounded(bytes.NewReader(e.payload(hard, plain, ok)), nil)
	o := e.decode(b.stdout)
	if got, want := o.files(t), []any{hard, plain, e.copyPath(ok)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("files %v, want %v", got, want)
	}
	filepath.WalkDir(e.cwd, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("FAKE-TOKEN")) {
				t.Errorf("the token was copied into the workspace: %s", p)
			}
		}
		return nil
	})
	if !strings.Contains(o.SystemMessage, "plain.txt was not copied, as it may be a secret") ||
		!strings.Contains(o.SystemMessage, filepath.Join(e.home, ".kube")+" holds more than 10000 entries") {
		t.Errorf("message does not name the bound: %s", o.SystemMessage)
	}
	if strings.Contains(o.SystemMessage, "notes.txt was not copied, as it may be") {
		t.Errorf("the hard link to a named secret was found by its stat, not by the search: %s", o.SystemMessage)
	}
}

// TestConcurrentStagingSweepsNoLiveFolder: calls staging different files
// into one outbox at once each sweep empty folders at their end, while
// the others are copying into folders they just made: every call still
// stages every file, and no empty folder is left.
func TestConcurrentStagingSweepsNoLiveFolder(t *testing.T) {
	e := newEnv(t)
	const procs, files, rounds = 6, 4, 3
	body := strings.Repeat("0123456789abcdef", 1<<14) // 256 KiB: a copy takes a while
	for r := range rounds {
		srcs := make([][]any, procs)
		for p := range procs {
			for f := range files {
				srcs[p] = append(srcs[p], e.file(filepath.Join(e.out, fmt.Sprintf("r%d-p%d-f%d.bin", r, p, f)), body))
			}
		}
		outs := make([][]byte, procs)
		done := make(chan int)
		for p := range procs {
			go func() {
				cmd := exec.Command(binary, "hook")
				cmd.Env = e.environ()
				cmd.Stdin = bytes.NewReader(e.payload(srcs[p]...))
				outs[p], _ = cmd.Output()
				done <- p
			}()
		}
		for range procs {
			<-done
		}
		for p, out := range outs {
			got := e.decode(out).files(t)
			for i, src := range srcs[p] {
				if i >= len(got) || got[i] != e.copyPath(src.(string)) {
					t.Errorf("round %d, process %d: %s", r, p, short(out))
					break
				}
			}
		}
	}
	ents, _ := os.ReadDir(filepath.Join(e.cwd, ".agent-harness", "outbox"))
	for _, d := range ents {
		if sub, _ := os.ReadDir(filepath.Join(e.cwd, ".agent-harness", "outbox", d.Name())); d.IsDir() && len(sub) == 0 {
			t.Errorf("empty folder left: %s", d.Name())
		}
	}
}
