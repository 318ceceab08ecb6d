package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/mcpserver"
)

func rootsOf(t *testing.T, s *server) []string {
	t.Helper()
	res, err := s.callRaw("list_roots", nil)
	if err != nil || res.IsError {
		t.Fatal(err)
	}
	var out mcpserver.RootsOut
	structured(t, res, &out)
	return out.Roots
}

// TestClientRoots: the server asks a client that supports roots for them
// right after initialize, adds each file:// root, and asks again on
// notifications/roots/list_changed; the command-line roots always stay.
func TestClientRoots(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	for _, d := range []string{"ws", "ws2", "out", "home", "client1", "client2"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	mustWrite(t, filepath.Join(dir, "client1", "c1.txt"), "from client root 1")
	mustWrite(t, filepath.Join(dir, "client2", "c2.txt"), "from client root 2")
	c1, c2 := filepath.Join(dir, "client1"), filepath.Join(dir, "client2")

	s := start(t, startOpts{dir: dir, protocol: legacy, roots: []*mcp.Root{
		{URI: mcpserver.FileURI(c1), Name: "client one"},
		{URI: "https://example.invalid/not-a-file"},             // skipped
		{URI: mcpserver.FileURI(filepath.Join(dir, "missing"))}, // skipped, logged
	}})
	// The first call already sees the client's root: calls wait for the
	// roots/list that initialize started.
	if got := s.ok("read_file", map[string]any{"path": filepath.Join(c1, "c1.txt")}); got != "from client root 1" {
		t.Fatalf("read in client root = %q", got)
	}
	if got, want := rootsOf(t, s), []string{s.ws, s.ws2, c1}; !slices.Equal(got, want) {
		t.Fatalf("roots = %v, want %v", got, want)
	}
	s.fails("read_file", map[string]any{"path": filepath.Join(c2, "c2.txt")}, "outside")

	// The client adds a root: list_changed, and the server asks again.
	s.client.AddRoots(&mcp.Root{URI: mcpserver.FileURI(c2)})
	eventually(t, func() string {
		if got := rootsOf(t, s); !slices.Contains(got, c2) {
			return "client root 2 never added: " + strings.Join(got, ", ")
		}
		return ""
	})
	if got := s.ok("read_file", map[string]any{"path": filepath.Join(c2, "c2.txt")}); got != "from client root 2" {
		t.Fatalf("read in client root 2 = %q", got)
	}
	// The new roots are resources too.
	res, err := s.cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	for _, r := range []string{s.ws, s.ws2, c1, c2} {
		if !slices.Contains(uris, mcpserver.FileURI(r)) {
			t.Errorf("resources %v lack %s", uris, r)
		}
	}
	// The client drops its roots: they are withdrawn, the command-line
	// roots stay (roots_test.go tests the withdrawal in depth).
	s.client.RemoveRoots(mcpserver.FileURI(c1), mcpserver.FileURI(c2))
	eventually(t, func() string {
		if got, want := rootsOf(t, s), []string{s.ws, s.ws2}; !slices.Equal(got, want) {
			return fmt.Sprintf("roots = %v, want %v", got, want)
		}
		return ""
	})
	if !strings.Contains(s.stderr.String(), "missing") {
		t.Errorf("a missing client root was not reported: %q", s.stderr)
	}
	// Still nothing outside.
	s.fails("read_file", map[string]any{"path": "../out/secret"}, "outside")
}

// TestClientRootsNewProtocol: on the 2026-07-28 protocol the server may not
// ask for roots; the command-line roots apply and nothing breaks.
func TestClientRootsNewProtocol(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	for _, d := range []string{"ws", "ws2", "out", "home", "client1"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	c1 := filepath.Join(dir, "client1")
	s := start(t, startOpts{dir: dir, roots: []*mcp.Root{{URI: mcpserver.FileURI(c1)}}})
	if got, want := rootsOf(t, s), []string{s.ws, s.ws2}; !slices.Equal(got, want) {
		t.Fatalf("roots = %v, want %v", got, want)
	}
	if strings.Contains(s.stderr.String(), "roots/list") {
		t.Errorf("the server tried roots/list: %s", s.stderr)
	}
}

// TestSubscriptions: a subscribed file, or anything under a subscribed
// directory, gets notifications/resources/updated after a tool changes it;
// a shell command updates every subscription; a path outside the roots
// cannot be subscribed to.
func TestSubscriptions(t *testing.T) {
	for _, proto := range []string{legacy, ""} {
		name := proto
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			s := start(t, startOpts{protocol: proto, args: []string{"--allow-exec"}})
			ctx := context.Background()
			mustWrite(t, filepath.Join(s.ws, "watched.txt"), "v1")
			mustWrite(t, filepath.Join(s.ws, "other.txt"), "o")
			os.Mkdir(filepath.Join(s.ws, "dir"), 0o755)
			fileURI := mcpserver.FileURI(filepath.Join(s.ws, "watched.txt"))
			dirURI := mcpserver.FileURI(filepath.Join(s.ws, "dir"))
			for _, u := range []string{fileURI, dirURI} {
				if err := s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err != nil {
					t.Fatal(err)
				}
			}
			// On the new protocol a subscription is a subscriptions/listen
			// stream: give it a moment to be acknowledged.
			time.Sleep(100 * time.Millisecond)

			s.ok("write_file", map[string]any{"path": "watched.txt", "content": "v2"})
			s.waitUpdate(fileURI)
			s.ok("edit_file", map[string]any{"path": "watched.txt", "edits": []map[string]any{{"oldText": "v2", "newText": "v3"}}})
			s.waitUpdate(fileURI)
			s.ok("write_file", map[string]any{"path": "dir/new.txt", "content": "n"})
			s.waitUpdate(dirURI)
			s.ok("move_file", map[string]any{"source": "dir/new.txt", "destination": "moved.txt"})
			s.waitUpdate(dirURI)

			// A change elsewhere updates nothing subscribed; reads update
			// nothing at all.
			s.drainUpdates(50 * time.Millisecond)
			s.ok("write_file", map[string]any{"path": "other.txt", "content": "x"})
			s.ok("read_file", map[string]any{"path": "watched.txt"})
			if got := s.drainUpdates(300 * time.Millisecond); len(got) != 0 {
				t.Errorf("unrelated changes updated %v", got)
			}
			// A shell command may change anything: every subscription.
			s.ok("exec", map[string]any{"command": "true"})
			got := s.drainUpdates(2 * time.Second)
			if !slices.Contains(got, fileURI) || !slices.Contains(got, dirURI) {
				t.Errorf("exec updated %v, want both subscriptions", got)
			}
			// Unsubscribed: no more updates.
			if err := s.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: fileURI}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
			s.ok("write_file", map[string]any{"path": "watched.txt", "content": "v4"})
			if got := s.drainUpdates(300 * time.Millisecond); slices.Contains(got, fileURI) {
				t.Errorf("update after unsubscribe: %v", got)
			}
		})
	}
}

func TestSubscribeOutsideRefused(t *testing.T) {
	s := start(t, startOpts{protocol: legacy})
	err := s.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: mcpserver.FileURI(filepath.Join(s.dir, "out", "secret"))})
	if err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("subscribe outside: %v", err)
	}
	err = s.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "https://example.invalid/x"})
	if err == nil || !strings.Contains(err.Error(), "file://") {
		t.Fatalf("subscribe to a non-file URI: %v", err)
	}
}

func TestResources(t *testing.T) {
	s := start(t, startOpts{})
	ctx := context.Background()
	mustWrite(t, filepath.Join(s.ws, "a b.md"), "# title\n")
	os.Mkdir(filepath.Join(s.ws, "sub"), 0o755)
	res, err := s.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 2 || res.Resources[0].URI != mcpserver.FileURI(s.ws) && res.Resources[1].URI != mcpserver.FileURI(s.ws) {
		t.Errorf("resources = %+v", res.Resources)
	}
	tmpl, err := s.cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "file:///{+path}" {
		t.Fatalf("templates: %v %+v", err, tmpl)
	}
	uri := mcpserver.FileURI(filepath.Join(s.ws, "a b.md"))
	if !strings.Contains(uri, "a%20b.md") {
		t.Errorf("FileURI does not escape: %s", uri)
	}
	rr, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if c := rr.Contents[0]; c.Text != "# title\n" || c.MIMEType != "text/markdown; charset=utf-8" {
		t.Errorf("read %s = %+v", uri, c)
	}
	rr, err = s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.FileURI(s.ws)})
	if err != nil || rr.Contents[0].Text != "a b.md\nsub/\n" {
		t.Fatalf("read root: %v %+v", err, rr)
	}
	if _, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.FileURI(filepath.Join(s.ws, "nope"))}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing resource: %v", err)
	}
	for _, u := range []string{mcpserver.FileURI(filepath.Join(s.dir, "out", "secret")), "file:///etc/passwd", "file://otherhost/etc/passwd"} {
		_, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: u})
		if err == nil {
			t.Errorf("read %s: no error", u)
		} else if strings.Contains(err.Error(), "the secret outside") || strings.Contains(err.Error(), "root:") {
			t.Errorf("read %s leaked: %v", u, err)
		}
	}
}

func TestFileURIRoundTrip(t *testing.T) {
	for _, p := range []string{"/a/b", "/with space/x#y?z", "/ünï/%41", "/"} {
		got, err := mcpserver.PathFromURI(mcpserver.FileURI(p))
		if err != nil || got != p {
			t.Errorf("%q -> %q -> %q, %v", p, mcpserver.FileURI(p), got, err)
		}
	}
	for _, u := range []string{"http://x/y", "file://host/x", "file:", "::"} {
		if _, err := mcpserver.PathFromURI(u); err == nil {
			t.Errorf("PathFromURI(%q): no error", u)
		}
	}
	if p, err := mcpserver.PathFromURI("file://localhost/etc"); err != nil || p != "/etc" {
		t.Errorf("localhost: %q %v", p, err)
	}
}
