package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/testbin"
)

func init() { testbin.Spawner() }

// child is one `agent-host mcp` process spoken to in JSON-RPC lines, for
// the tests that bound its time and its peak RSS: the kernel's count
// (getrusage's ru_maxrss, kept across agent-host's exec of
// agent-host-mcp), read when it has exited (see testbin.Start).
type child struct {
	t     *testing.T
	cmd   *exec.Cmd
	run   *testbin.Run
	in    io.WriteCloser
	out   *bufio.Reader
	errb  *syncBuffer
	lines chan string
}

// peakLimitKiB is the MCP server's memory goal (issue 23): 64 MiB of peak
// RSS on every hostile input.
const peakLimitKiB = 64 << 10

func startChild(t *testing.T, ws string) *child {
	t.Helper()
	c := &child{t: t, errb: &syncBuffer{}, lines: make(chan string, 16)}
	c.cmd = exec.Command(bin, "mcp", "--root", ws)
	c.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1"}
	c.cmd.Stderr = c.errb
	c.in, _ = c.cmd.StdinPipe()
	stdout, _ := c.cmd.StdoutPipe()
	var err error
	if c.run, err = testbin.Start(c.cmd, 512<<10); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.lines)
		br := bufio.NewReader(stdout)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			c.lines <- strings.TrimSuffix(l, "\n")
		}
	}()
	t.Cleanup(func() {
		c.in.Close()
		if c.cmd.ProcessState == nil {
			c.run.Wait(0)
		}
	})
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bigio","version":"1"}}}`)
	c.reply(10 * time.Second)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *child) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("write: %v (stderr: %s)", err, c.errb)
	}
}

// reply is the server's next line, within d.
func (c *child) reply(d time.Duration) string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("the server closed stdout (stderr: %s)", c.errb)
		}
		return l
	case <-time.After(d):
		c.t.Fatalf("no reply within %v (stderr: %s)", d, c.errb)
	}
	return ""
}

// exchange sends line and returns the reply and how long it took.
func (c *child) exchange(line string, d time.Duration) (string, time.Duration) {
	c.t.Helper()
	t0 := time.Now()
	c.send(line)
	l := c.reply(d)
	return l, time.Since(t0)
}

// finish closes stdin, waits for the server to exit and returns its peak
// RSS in KiB.
func (c *child) finish() int64 {
	c.t.Helper()
	c.in.Close()
	_, peak, code, err := c.run.Wait(10 * time.Second)
	if err != nil || code != 0 {
		c.t.Fatalf("agent-host mcp: exit %d, %v (stderr: %s)", code, err, c.errb)
	}
	return peak
}

// toolText is the text of a tools/call reply line, and whether it is an
// error.
func toolText(t *testing.T, line string) (string, bool) {
	t.Helper()
	var r struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &r); err != nil || len(r.Result.Content) == 0 {
		t.Fatalf("reply %.300s: %v", line, err)
	}
	return r.Result.Content[0].Text, r.Result.IsError
}

func readFileCall(id int, args map[string]any) string {
	a, _ := json.Marshal(args)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":%s}}`, id, a)
}

// coreutils runs head or tail (the oracle for read_file's head and tail)
// with -n N on path.
func coreutils(t *testing.T, prog string, n int, path string) string {
	t.Helper()
	out, err := exec.Command(prog, "-n", fmt.Sprint(n), path).Output()
	if err != nil {
		t.Fatalf("%s -n %d: %v", prog, n, err)
	}
	return string(out)
}

// TestReadFileHeadTailOfHugeLog (issue 23): read_file with head or tail
// of a 2 GiB log reads the lines it returns, not the file: each answer
// is what head -n and tail -n give, within a second, and the server's
// peak RSS stays under 64 MiB. The old server refused any file over
// 16 MiB, having read none of it. A last line of 2 GiB (no line break
// after the text at the start) is refused once the limit's worth of
// bytes has been read, naming the limit; a binary file of 2 GiB is
// refused as not text. The files are sparse: no disk is used.
func TestReadFileHeadTailOfHugeLog(t *testing.T) {
	ws := t.TempDir()
	log := filepath.Join(ws, "huge.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		fmt.Fprintf(f, "start line %d\n", i)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		fmt.Fprintf(f, "2026-12-02T00:00:00Z tail line %d\n", i)
	}
	f.Close()
	oneLine := filepath.Join(ws, "oneline.log")
	if err := os.WriteFile(oneLine, []byte(strings.Repeat("text that never ends ", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(oneLine, 2<<30); err != nil {
		t.Fatal(err)
	}
	zeros := filepath.Join(ws, "zeros.bin")
	if err := os.WriteFile(zeros, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(zeros, 2<<30); err != nil {
		t.Fatal(err)
	}

	c := startChild(t, ws)
	id := 1
	for _, tc := range []struct {
		prog string
		n    int
	}{{"tail", 10}, {"head", 10}, {"tail", 1}, {"head", 1}, {"tail", 999}, {"head", 1000}} {
		l, took := c.exchange(readFileCall(id, map[string]any{"path": "huge.log", tc.prog: tc.n}), 10*time.Second)
		id++
		got, isErr := toolText(t, l)
		if want := coreutils(t, tc.prog, tc.n, log); isErr || got != want {
			t.Errorf("read_file %s %d of 2 GiB: error %v, %d bytes %.200q; want %d bytes %.200q", tc.prog, tc.n, isErr, len(got), got, len(want), want)
		}
		if took > time.Second {
			t.Errorf("read_file %s %d of 2 GiB took %v, want under 1 s", tc.prog, tc.n, took)
		}
	}
	for _, tc := range []struct {
		path, prog, want string
		n                int
	}{
		// The 1000th line from the end and the 1001st from the start is
		// the 2 GiB hole and the line after it.
		{"huge.log", "tail", "the last 1000 lines of huge.log are more than 16777216 bytes", 1000},
		{"huge.log", "head", "the first 1001 lines of huge.log are more than 16777216 bytes", 1001},
		{"oneline.log", "tail", "the last 3 lines of oneline.log are more than 16777216 bytes", 3},
		{"oneline.log", "head", "the first 3 lines of oneline.log are more than 16777216 bytes", 3},
		{"zeros.bin", "tail", "zeros.bin is not text (application/octet-stream, 2147483648 bytes)", 3},
	} {
		l, took := c.exchange(readFileCall(id, map[string]any{"path": tc.path, tc.prog: tc.n}), 10*time.Second)
		id++
		if got, isErr := toolText(t, l); !isErr || !strings.Contains(got, tc.want) {
			t.Errorf("read_file %s %d of %s: %q, want an error saying %q", tc.prog, tc.n, tc.path, got, tc.want)
		}
		if took > 2*time.Second {
			t.Errorf("read_file %s %d of %s took %v, want under 2 s", tc.prog, tc.n, tc.path, took)
		}
	}
	if peak := c.finish(); peak > peakLimitKiB {
		t.Errorf("peak RSS %d KiB, want at most %d", peak, peakLimitKiB)
	} else {
		t.Logf("peak RSS %.1f MiB", float64(peak)/1024)
	}
}

// TestHugeBatchLine (issue 23): a batch line of a million tiny elements
// (1, 4 and 16 MiB of "1,1,...") is refused whole with one error naming
// the limit, in the time a scan of the line takes, and the server's peak RSS stays under
// 64 MiB; the session goes on. The old server answered every element,
// a reply 94 times the line (1 MiB: 99.6 MB and +356 MiB; 4 MiB: 380 MB,
// 1.2 GiB and 38 s).
func TestHugeBatchLine(t *testing.T) {
	c := startChild(t, t.TempDir())
	for i, mib := range []int{1, 4, 16} {
		n := (mib<<20)/2 - 1 // within the 16 MiB line limit
		line := "[" + strings.Repeat("1,", n-1) + "1]"
		l, took := c.exchange(line, 10*time.Second)
		e := struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code int            `json:"code"`
				Data map[string]int `json:"data"`
			} `json:"error"`
		}{}
		if len(l) > 4<<10 || json.Unmarshal([]byte(l), &e) != nil || string(e.ID) != "null" || e.Error.Code != -32600 || e.Error.Data["maxBatch"] != 64 {
			t.Fatalf("batch of %d elements (%d MiB): %d bytes of reply %.300q; want one error with maxBatch 64", n, mib, len(l), l)
		}
		// A scan of the line, as for any line of its length: a second and
		// a quarter for each MiB, on a loaded machine.
		if bound := time.Second + time.Duration(mib)*250*time.Millisecond; took > bound {
			t.Errorf("batch of %d MiB answered in %v, want under %v", mib, took, bound)
		}
		if l, _ := c.exchange(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1), 10*time.Second); l != fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i+1) {
			t.Fatalf("ping after the batch: %s", l)
		}
	}
	// MaxBatch requests whose ids fill the line: an error for each, its
	// id as sent, the reply about the line's size.
	id := strings.Repeat("<&>", (16<<20)/64/3-30)
	var elems []string
	for i := range 64 {
		elems = append(elems, fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d%s","method":"ping"}`, i, id))
	}
	l, took := c.exchange("["+strings.Join(elems, ",")+"]", 10*time.Second)
	var replies []struct {
		ID    json.RawMessage    `json:"id"`
		Error struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal([]byte(l), &replies); err != nil || len(replies) != 64 {
		t.Fatalf("batch of 64 long ids: %d replies (%v)", len(replies), err)
	}
	for i, r := range replies {
		if string(r.ID) != fmt.Sprintf(`"%d%s"`, i, id) || r.Error.Code != -32600 {
			t.Fatalf("batch of 64 long ids: reply %d has id %.40s..., code %d", i, r.ID, r.Error.Code)
		}
	}
	if took > 5*time.Second {
		t.Errorf("batch of 64 long ids answered in %v, want under 5 s", took)
	}
	if peak := c.finish(); peak > peakLimitKiB {
		t.Errorf("peak RSS %d KiB, want at most %d", peak, peakLimitKiB)
	} else {
		t.Logf("peak RSS %.1f MiB", float64(peak)/1024)
	}
}
