package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/mcpserver"
)

// raw is an `agent-host mcp` process spoken to in JSON-RPC lines, with no
// SDK in between: what the test writes is what the server reads.
type raw struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	ws     string
	stderr *syncBuffer
}

// startRaw runs agent-host mcp with a fresh workspace and extra args, and
// initializes the session.
func startRaw(t *testing.T, args ...string) *raw {
	t.Helper()
	ws := t.TempDir()
	r := &raw{t: t, ws: ws, stderr: &syncBuffer{}}
	r.cmd = exec.Command(bin, append([]string{"mcp", "--root", ws}, args...)...)
	r.cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	r.cmd.Stderr = r.stderr
	r.stdin, _ = r.cmd.StdinPipe()
	stdout, _ := r.cmd.StdoutPipe()
	r.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- r.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("agent-host mcp exited with %v (stderr: %s)", err, r.stderr)
			}
		case <-time.After(10 * time.Second):
			r.cmd.Process.Kill()
			<-done
			t.Errorf("agent-host mcp did not exit when stdin closed")
		}
	})
	r.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if l := r.line(); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":0,"result":`) {
		t.Fatalf("initialize: %s", l)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *raw) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatalf("write: %v (stderr: %s)", err, r.stderr)
	}
}

// line reads one line of the server's, failing after 10 seconds.
func (r *raw) line() string {
	r.t.Helper()
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := r.out.ReadString('\n')
		ch <- res{s, err}
	}()
	select {
	case v := <-ch:
		if v.err != nil {
			r.t.Fatalf("the server closed stdout: %v (stderr: %s)", v.err, r.stderr)
		}
		return strings.TrimSuffix(v.s, "\n")
	case <-time.After(10 * time.Second):
		r.t.Fatalf("no reply within 10s (stderr: %s)", r.stderr)
	}
	return ""
}

// errLine is a JSON-RPC error response, its id kept as sent.
type errLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func parseReply(t *testing.T, l string) errLine {
	t.Helper()
	var e errLine
	if err := json.Unmarshal([]byte(l), &e); err != nil {
		t.Fatalf("reply %q is not JSON: %v", l, err)
	}
	if e.JSONRPC != "2.0" {
		t.Fatalf("reply %q: jsonrpc %q", l, e.JSONRPC)
	}
	return e
}

// ping checks the session still serves: a ping with id is answered.
func (r *raw) ping(id string) {
	r.t.Helper()
	r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	l := r.line()
	if want := `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`; l != want {
		r.t.Fatalf("ping: got %s, want %s", l, want)
	}
}

// TestMalformedLines sends each shape of bad line to a real agent-host mcp
// and wants a JSON-RPC error for it (-32700 when it is not JSON, -32600
// when it is not a valid request; its id when it can be read, null when
// not), then a ping answered on the same session.
func TestMalformedLines(t *testing.T) {
	deepArr := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepObj := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	cases := []struct {
		name, line string
		code       int
		id         string // the id in the reply, as sent; "null"
		batch      string // for a batch: the whole reply
	}{
		{"invalid JSON", `{bad`, -32700, "null", ""},
		{"truncated JSON", `{"jsonrpc":"2.0","id":2,"method":"ping"`, -32700, "null", ""},
		{"trailing data", `{"jsonrpc":"2.0","id":3,"method":"ping"} x`, -32700, "null", ""},
		{"two messages on a line", `{"jsonrpc":"2.0","id":4,"method":"ping"}{"jsonrpc":"2.0","id":5,"method":"ping"}`, -32700, "null", ""},
		{"a JSON number", `5`, -32600, "null", ""},
		{"a JSON string", `"ping"`, -32600, "null", ""},
		{"JSON null", `null`, -32600, "null", ""},
		{"JSON true", `true`, -32600, "null", ""},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}", -32700, "9", ""},
		{"100,000 nested brackets", deepArr, -32700, "null", ""},
		{"100,000 unclosed brackets", strings.Repeat("[", 100000), -32700, "null", ""},
		{"100,000 nested objects", deepObj, -32700, "null", ""},
		{"missing jsonrpc", `{"id":13,"method":"ping"}`, -32600, "13", ""},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":14,"method":"ping"}`, -32600, "14", ""},
		{"method a number", `{"jsonrpc":"2.0","id":15,"method":5}`, -32600, "15", ""},
		{"method null", `{"jsonrpc":"2.0","id":"m","method":null}`, -32600, `"m"`, ""},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null", ""},
		{"id an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null", ""},
		{"id a boolean", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null", ""},
		{"params a string", `{"jsonrpc":"2.0","id":20,"method":"ping","params":"x"}`, -32600, "20", ""},
		{"neither method nor result", `{"jsonrpc":"2.0","id":21}`, -32600, "21", ""},
		{"result and error", `{"jsonrpc":"2.0","id":22,"result":{},"error":{"code":1,"message":"x"}}`, -32600, "22", ""},
		{"empty batch", `[]`, -32600, "null", ""},
		{"batch", `[{"jsonrpc":"2.0","id":24,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},7]`, -32600, "", `[24,null]`},
		{"unknown method", `{"jsonrpc":"2.0","id":25,"method":"no/such"}`, -32601, "25", ""},
	}
	r := startRaw(t)
	for i, c := range cases {
		r.send(c.line)
		l := r.line()
		if c.batch != "" {
			var replies []errLine
			if err := json.Unmarshal([]byte(l), &replies); err != nil {
				t.Fatalf("%s: reply %s: %v", c.name, l, err)
			}
			var ids []string
			for _, e := range replies {
				if e.Error == nil || e.Error.Code != c.code {
					t.Errorf("%s: reply %s", c.name, l)
				}
				ids = append(ids, string(e.ID))
			}
			if got := "[" + strings.Join(ids, ",") + "]"; got != c.batch {
				t.Errorf("%s: ids %s, want %s", c.name, got, c.batch)
			}
		} else {
			e := parseReply(t, l)
			if e.Error == nil || e.Error.Code != c.code || string(e.ID) != c.id || e.Error.Message == "" {
				t.Errorf("%s: got %.300s, want code %d and id %s", c.name, l, c.code, c.id)
			}
		}
		r.ping(fmt.Sprintf(`"after %d"`, i))
	}
	// Nothing at all is sent back for an empty line, a notification, or a
	// cancellation of a request not in flight.
	r.send("")
	r.send("   \r")
	r.send(`{"jsonrpc":"2.0","method":"notifications/whatever"}`)
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}`)
	r.ping(`"last"`)
}

// TestIDsEchoedExactly: every id comes back as the client wrote it, in a
// reply from the SDK (ping), from a tool (tools/call) and in an error.
func TestIDsEchoedExactly(t *testing.T) {
	r := startRaw(t)
	mustWrite(t, filepath.Join(r.ws, "f"), "x")
	for _, id := range []string{`1.5`, `12345678901234567890`, `-9223372036854775809`, `1e3`, `1.0`, `-0`, `0`,
		`"x"`, `"s\u0041"`, `""`, `"12"`, `9007199254740993`, `1E+400`} {
		r.ping(id)
		r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"f"}}}`)
		if l := r.line(); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"x"}]`) {
			t.Errorf("tools/call with id %s: %s", id, l)
		}
		r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"no/such/method"}`)
		if e := parseReply(t, r.line()); string(e.ID) != id || e.Error == nil || e.Error.Code != -32601 {
			t.Errorf("unknown method with id %s: id %s, error %+v", id, e.ID, e.Error)
		}
		r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"no_such_tool"}}`)
		if e := parseReply(t, r.line()); string(e.ID) != id || (e.Error == nil && !strings.Contains(string(e.Result), `"isError":true`)) {
			t.Errorf("unknown tool with id %s: id %s", id, e.ID)
		}
	}
	// Two requests in flight with ids that a float64 cannot tell apart
	// are two requests, each answered under its own id.
	r.send(`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`)
	got := map[string]bool{string(parseReply(t, r.line()).ID): true, string(parseReply(t, r.line()).ID): true}
	if !got["9007199254740992"] || !got["9007199254740993"] {
		t.Errorf("adjacent large ids: got %v", got)
	}
}

// TestCancelByClientID: notifications/cancelled names the request by the
// client's id (here 1.5, which the SDK alone would take for 1), and the
// call is cancelled; a request with id 1 in flight at the same time is not.
func TestCancelByClientID(t *testing.T) {
	r := startRaw(t, "--allow-exec")
	r.send(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"exec","arguments":{"command":"sleep 30"}}}`)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"exec","arguments":{"command":"sleep 2; echo one"}}}`)
	time.Sleep(300 * time.Millisecond)
	t0 := time.Now()
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5,"reason":"test"}}`)
	first := parseReply(t, r.line())
	if string(first.ID) != "1.5" {
		t.Fatalf("first reply after the cancel is for id %s, want 1.5", first.ID)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the cancelled call took %s to end", d)
	}
	second := parseReply(t, r.line())
	if string(second.ID) != "1" || !strings.Contains(string(second.Result), "one") {
		t.Errorf("request 1: %s %s", second.ID, second.Result)
	}
}

// TestMessageSizeLimit: a line over --max-message-bytes is answered with
// an error naming the limit (and the id, which comes first in the line),
// and the next line is read; a line of exactly the limit is served. The
// default limit is DefaultMaxMessageBytes.
func TestMessageSizeLimit(t *testing.T) {
	const limit = 1000
	r := startRaw(t, "--max-message-bytes", fmt.Sprint(limit))
	padded := func(id string, n int) string {
		l := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping","params":{"_meta":{"pad":"`
		return l + strings.Repeat("a", n-len(l)-len(`"}}}`)) + `"}}}`
	}
	r.send(padded("1", limit))
	if l := r.line(); l != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("a line of exactly the limit: %s", l)
	}
	for _, n := range []int{limit + 1, 10 * limit, 300_000} {
		r.send(padded(`"big"`, n))
		e := parseReply(t, r.line())
		if e.Error == nil || e.Error.Code != -32600 || string(e.ID) != `"big"` || !strings.Contains(e.Error.Message, "1000 bytes") ||
			string(e.Error.Data) != `{"maxMessageBytes":1000}` {
			t.Errorf("a line of %d bytes: %+v %s", n, e.Error, e.ID)
		}
		r.ping("2")
	}
	// A long line whose id is not in its first bytes gets id null.
	r.send(`{"params":{"_meta":{"pad":"` + strings.Repeat("b", 10_000) + `"}},"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if e := parseReply(t, r.line()); e.Error == nil || string(e.ID) != "null" {
		t.Errorf("id after the cut: %s", e.ID)
	}
	r.ping("4")

	if testing.Short() {
		return
	}
	d := startRaw(t)
	d.send(padded("5", 16<<20+1))
	if e := parseReply(t, d.line()); e.Error == nil || string(e.ID) != "5" || !strings.Contains(e.Error.Message, "16777216 bytes") {
		t.Errorf("default limit: %+v", e.Error)
	}
	d.ping("6")
}

// vmKiB reads a "VmRSS:"-style field of /proc/pid/status, in KiB.
func vmKiB(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			var kib int
			fmt.Sscan(v, &kib)
			return kib
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestUnreadClient: a client sends reads of a 1 MiB file and does not
// read its stdout. The server stops reading requests (its stdin pipe
// fills and the client's writes block) instead of holding every reply:
// its peak RSS (VmHWM) stays under 64 MiB. When the client reads again,
// every reply arrives, once each, whole. 1,000 reads (about 12 s here),
// 300 with -short; AGENTHOST_UNREAD_READS=3000 for the figure.
func TestUnreadClient(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	n := 1000
	if testing.Short() {
		n = 300
	}
	if v, err := strconv.Atoi(os.Getenv("AGENTHOST_UNREAD_READS")); err == nil && v > 0 {
		n = v
	}
	const size = 1 << 20
	r := startRaw(t)
	line := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.\n", size/64)
	mustWrite(t, filepath.Join(r.ws, "big.txt"), line)
	r.ping("0")
	pid := r.cmd.Process.Pid
	before := vmKiB(t, pid, "VmRSS")

	sent := make(chan int, n)
	go func() {
		defer close(sent)
		for i := 1; i <= n; i++ {
			if _, err := fmt.Fprintf(r.stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"big.txt"}}}`+"\n", i); err != nil {
				return
			}
			sent <- i
		}
	}()
	// Wait until the client's writes stall (the server stopped reading) or
	// all are written, and a little more for the replies in flight.
	last, stalled := 0, 0
	for stalled < 10 {
		time.Sleep(100 * time.Millisecond)
		progressed := false
	drain:
		for {
			select {
			case i, ok := <-sent:
				if !ok {
					break drain
				}
				last, progressed = i, true
			default:
				break drain
			}
		}
		if progressed {
			stalled = 0
		} else {
			stalled++
		}
	}
	held := vmKiB(t, pid, "VmRSS")
	if last == n {
		t.Logf("all %d requests were written before the server stopped reading", n)
	}

	seen := make([]bool, n+1)
	for range n {
		l, err := r.out.ReadSlice('\n')
		var full []byte
		for err == bufio.ErrBufferFull {
			full = append(full, l...)
			l, err = r.out.ReadSlice('\n')
		}
		if err != nil {
			t.Fatalf("reading replies: %v (stderr: %s)", err, r.stderr)
		}
		full = append(full, l...)
		var id int
		if _, err := fmt.Sscanf(string(full[:min(len(full), 40)]), `{"jsonrpc":"2.0","id":%d,`, &id); err != nil || id < 1 || id > n || seen[id] {
			t.Fatalf("reply %.80s: id %d (%v), seen before: %v", full, id, err, id >= 1 && id <= n && seen[id])
		}
		seen[id] = true
		if len(full) < size || !strings.Contains(string(full[len(full)-200:]), `XYZ.\n"}]`) {
			t.Fatalf("reply %d: %d bytes, ends %q", id, len(full), full[len(full)-min(len(full), 100):])
		}
	}
	for range <-sent {
	}
	peak := vmKiB(t, pid, "VmHWM")
	t.Logf("RSS: %.1f MiB before, %.1f MiB while %d requests were written and none read (%d unread), peak %.1f MiB",
		float64(before)/1024, float64(held)/1024, last, n, float64(peak)/1024)
	if peak > 64<<10 {
		t.Errorf("peak RSS %.1f MiB, want under 64 MiB", float64(peak)/1024)
	}
	r.ping(`"after"`)
}

// TestRunReplacesIOTransport: Run serves an mcp.IOTransport with a
// LineTransport (a bad line is answered, a 1.5 id echoed) with the
// Options' message limit, and returns when the client closes its end,
// leaving no goroutine behind (goleak, in TestMain).
func TestRunReplacesIOTransport(t *testing.T) {
	ws := t.TempDir()
	h, err := host.New(host.Config{WorkspaceRoot: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv, err := mcpserver.New(h, mcpserver.Options{MaxMessageBytes: 500, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	out := bufio.NewReader(outR)
	for _, c := range []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, `{"jsonrpc":"2.0","id":1.5,"result":`},
		{`{bad`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"x":"` + strings.Repeat("x", 500) + `"}}}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"message too long: more than 500 bytes`},
		{`{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","id":"p","result":{}}`},
	} {
		io.WriteString(inW, c.send+"\n")
		l, err := out.ReadString('\n')
		if err != nil || !strings.HasPrefix(l, c.want) {
			t.Fatalf("sent %.60s: got %q (%v), want %s...", c.send, l, err, c.want)
		}
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return when the client closed its end")
	}
}

// TestMaxMessageBytesFlag: a limit that is not a positive number of bytes
// is a usage error (exit 2) that names the flag.
func TestMaxMessageBytesFlag(t *testing.T) {
	for _, v := range []string{"0", "-1", "x"} {
		cmd := exec.Command(bin, "mcp", "--root", t.TempDir(), "--max-message-bytes", v)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "max-message-bytes") {
			t.Errorf("--max-message-bytes %s: %v %s", v, err, out)
		}
	}
}

// TestRequestsAnsweredAfterInputEnds: a client that writes its requests
// and closes its end at once (`printf ... | agent-host mcp`) still gets
// every reply before the server exits.
func TestRequestsAnsweredAfterInputEnds(t *testing.T) {
	r := startRaw(t)
	const n = 20
	for i := 1; i <= n; i++ {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_roots","arguments":{}}}`, i))
	}
	r.stdin.Close()
	got := map[string]bool{}
	for i := 0; i < n; i++ {
		got[string(parseReply(t, r.line()).ID)] = true
	}
	for i := 1; i <= n; i++ {
		if !got[fmt.Sprint(i)] {
			t.Errorf("no reply for id %d", i)
		}
	}
}
