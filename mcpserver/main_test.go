package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/testbin"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bin is the agent-host binary TestMain builds: every test talks to a real
// `agent-host mcp` process through the SDK's client.
var bin string

func TestMain(m *testing.M) { testbin.Main(m, &bin) }

// legacy is the newest protocol version in which a server may ask a client
// for its roots (and the newest the TypeScript SDK 1.32.2 speaks).
const legacy = "2025-11-25"

// server is one running `agent-host mcp` and a client session on it.
type server struct {
	t       *testing.T
	dir     string // the temp dir: ws/ (workspace), ws2/ (second root), out/, home/
	ws, ws2 string
	cs      *mcp.ClientSession
	client  *mcp.Client
	stderr  *syncBuffer
	updates chan string // URIs of notifications/resources/updated
	cmd     *exec.Cmd   // the server's process (its ProcessState once the session is closed)
}

type startOpts struct {
	args     []string    // more flags for agent-host mcp
	roots    []*mcp.Root // the client's roots
	protocol string      // "" means the SDK's latest
	dir      string      // an existing tree; "" makes a fresh one
	noWs2    bool        // do not pass ws2 as --add-dir
}

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

// start runs agent-host mcp with ws as the workspace root and ws2 as a
// second root, HOME pointing at home/, and connects a client.
func start(t *testing.T, o startOpts) *server {
	t.Helper()
	dir := o.dir
	if dir == "" {
		dir = t.TempDir()
		for _, d := range []string{"ws", "ws2", "out", "home"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		mustWrite(t, filepath.Join(dir, "out", "secret"), "the secret outside")
	}
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, dir: dir, ws: filepath.Join(dir, "ws"), ws2: filepath.Join(dir, "ws2"),
		stderr: &syncBuffer{}, updates: make(chan string, 100)}
	args := []string{"mcp", "--root", s.ws}
	if !o.noWs2 {
		args = append(args, "--add-dir", s.ws2)
	}
	args = append(args, o.args...)
	cmd := exec.Command(bin, args...)
	cmd.Env = serverGit(s.ws).Environ() // HOME is home/; the developer's git setup stays out
	cmd.Stderr = s.stderr
	s.cmd = cmd
	s.client = mcp.NewClient(&mcp.Implementation{Name: "agenthost-test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case s.updates <- req.Params.URI:
			default:
			}
		},
	})
	if len(o.roots) > 0 {
		s.client.AddRoots(o.roots...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.cs, err = s.client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: o.protocol})
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, s.stderr)
	}
	t.Cleanup(func() {
		if err := s.cs.Close(); err != nil {
			t.Logf("close: %v", err)
		}
		if strings.Contains(s.stderr.String(), "panic") {
			t.Errorf("server stderr: %s", s.stderr)
		}
	})
	return s
}

func mustWrite(t *testing.T, p, contents string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(contents), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readDisk(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// call calls a tool and returns its text and whether it is an error
// result; a protocol error fails the test.
func (s *server) call(name string, args map[string]any) (string, bool) {
	s.t.Helper()
	res, err := s.callRaw(name, args)
	if err != nil {
		s.t.Fatalf("%s: protocol error: %v", name, err)
	}
	return resultText(res), res.IsError
}

func (s *server) callRaw(name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// ok calls a tool that must succeed and returns its text.
func (s *server) ok(name string, args map[string]any) string {
	s.t.Helper()
	txt, isErr := s.call(name, args)
	if isErr {
		s.t.Fatalf("%s %v: unexpected error result: %s", name, args, txt)
	}
	return txt
}

// fails calls a tool that must give an error result containing every one
// of wants, and returns its text.
func (s *server) fails(name string, args map[string]any, wants ...string) string {
	s.t.Helper()
	txt, isErr := s.call(name, args)
	if !isErr {
		s.t.Fatalf("%s %v: want an error result, got: %s", name, args, txt)
	}
	for _, w := range wants {
		if !strings.Contains(txt, w) {
			s.t.Errorf("%s %v: error %q does not contain %q", name, args, txt, w)
		}
	}
	return txt
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// waitUpdate waits for a notifications/resources/updated of uri.
func (s *server) waitUpdate(uri string) {
	s.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-s.updates:
			if got == uri {
				return
			}
		case <-deadline:
			s.t.Fatalf("no resources/updated for %s", uri)
		}
	}
}

// drainUpdates returns the URIs updated within d.
func (s *server) drainUpdates(d time.Duration) []string {
	var got []string
	timeout := time.After(d)
	for {
		select {
		case u := <-s.updates:
			got = append(got, u)
		case <-timeout:
			return got
		}
	}
}

// eventually retries f until it returns "" or the time is up.
func eventually(t *testing.T, f func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		msg := f()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
