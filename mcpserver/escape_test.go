package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/internal/escapetable"
	"github.com/agenthost/agenthost/mcpserver"
)

// The escape table (internal/escapetable), driven through the MCP tools
// of a real agent-host mcp process: each case is a tiny filesystem and a
// path (or, when the case has a Cwd, a working directory for exec), and
// every path-taking tool, resource read and subscription gets that path.
// Whatever the tool, nothing outside the roots may be read, written or
// listed. A case's Err means only "another error" here: the error's text
// is all a client sees.
//
// Files outside the roots hold "SECRET-CONTENT ..." and each outside
// directory holds a LISTME file that no case names, so a leak of contents
// or of a listing shows in a tool's output (see escapetable.Reset).

// escapeOp is one tool (or resource request) given the case's path.
type escapeOp struct {
	name string
	// onLink: the op acts on a final symbolic link itself, not its target,
	// so on a linkFinal case it may succeed without escaping.
	onLink bool
	// mutates: the tree is rebuilt after the op.
	mutates bool
	// emptyIsDefault: an empty path means the workspace root.
	emptyIsDefault bool
	run            func(s *server, path string) (text string, isErr bool)
}

// toolOp calls the tool named by the label's first word.
func toolOp(label string, onLink, mutates bool, args func(path string) map[string]any) escapeOp {
	tool, _, _ := strings.Cut(label, " ")
	return escapeOp{name: label, onLink: onLink, mutates: mutates, run: func(s *server, path string) (string, bool) {
		res, err := s.callRaw(tool, args(path))
		if err != nil {
			return err.Error(), true
		}
		return resultText(res), res.IsError
	}}
}

func defaultable(op escapeOp) escapeOp { op.emptyIsDefault = true; return op }

var escapeOps = []escapeOp{
	toolOp("read_file", false, false, func(p string) map[string]any { return map[string]any{"path": p} }),
	toolOp("read_file head", false, false, func(p string) map[string]any { return map[string]any{"path": p, "head": 1} }),
	toolOp("read_multiple_files", false, false, func(p string) map[string]any { return map[string]any{"paths": []string{p}} }),
	toolOp("write_file", false, true, func(p string) map[string]any { return map[string]any{"path": p, "content": "W"} }),
	toolOp("edit_file", false, true, func(p string) map[string]any {
		return map[string]any{"path": p, "edits": []map[string]any{{"oldText": "S", "newText": "E", "replaceAll": true}}}
	}),
	toolOp("edit_file dry", false, false, func(p string) map[string]any {
		return map[string]any{"path": p, "dryRun": true, "edits": []map[string]any{{"oldText": "S", "newText": "E", "replaceAll": true}}}
	}),
	toolOp("create_directory", true, true, func(p string) map[string]any { return map[string]any{"path": p} }),
	toolOp("remove_file", true, true, func(p string) map[string]any { return map[string]any{"path": p} }),
	toolOp("move_file from", true, true, func(p string) map[string]any { return map[string]any{"source": p, "destination": "moved-here"} }),
	toolOp("move_file to", true, true, func(p string) map[string]any { return map[string]any{"source": "mvsrc", "destination": p} }),
	toolOp("stat", false, false, func(p string) map[string]any { return map[string]any{"path": p} }),
	toolOp("list_directory", false, false, func(p string) map[string]any { return map[string]any{"path": p} }),
	defaultable(toolOp("walk", false, false, func(p string) map[string]any { return map[string]any{"path": p, "hidden": true, "noIgnore": true} })),
	toolOp("check_ignore", true, false, func(p string) map[string]any { return map[string]any{"paths": []string{p}} }),
	{name: "read_media_file", run: func(s *server, p string) (string, bool) {
		res, err := s.callRaw("read_media_file", map[string]any{"path": p})
		if err != nil {
			return err.Error(), true
		}
		return allContent(res), res.IsError
	}},
	defaultable(toolOp("directory_tree", false, false, func(p string) map[string]any { return map[string]any{"path": p, "hidden": true, "noIgnore": true} })),
	defaultable(toolOp("search_files", false, false, func(p string) map[string]any {
		return map[string]any{"path": p, "pattern": "*", "hidden": true, "noIgnore": true}
	})),
	toolOp("send_user_file", false, true, func(p string) map[string]any { return map[string]any{"files": []string{p}} }),
	defaultable(toolOp("exec cwd", false, true, func(p string) map[string]any { return map[string]any{"command": "ls -a; cat * 2>/dev/null", "cwd": p} })),
	defaultable(toolOp("run_capture cwd", false, true, func(p string) map[string]any {
		return map[string]any{"program": "ls", "args": []string{"-a"}, "cwd": p}
	})),
	{name: "resources/read", run: func(s *server, p string) (string, bool) {
		res, err := s.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: caseURI(s, p)})
		if err != nil {
			return err.Error(), true
		}
		var b strings.Builder
		for _, c := range res.Contents {
			b.WriteString(c.Text)
		}
		return b.String(), false
	}},
	{name: "resources/subscribe", run: func(s *server, p string) (string, bool) {
		err := s.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: caseURI(s, p)})
		if err != nil {
			return err.Error(), true
		}
		return "subscribed", false
	}},
}

// caseURI is the file:// URI of a case's path: absolute paths as they are,
// relative ones joined (lexically, ".." kept) to the workspace root.
func caseURI(s *server, p string) string {
	if !strings.HasPrefix(p, "/") {
		p = s.ws + "/" + p
	}
	return mcpserver.FileURI(p)
}

func TestEscapeTable(t *testing.T) {
	for _, c := range escapetable.Cases {
		fails := c.Err != nil // another error
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			dir, _ = filepath.EvalSymlinks(dir)
			resetTree(t, dir, c.FS)
			// The protocol the TypeScript SDK speaks, in which a refused
			// subscription is an error the client sees.
			s := start(t, startOpts{dir: dir, args: []string{"--allow-exec"}, protocol: legacy})
			before := escapetable.Snapshot(t, dir)
			ops := escapeOps
			path := expandT(c.Path, dir)
			if c.Cwd != "" {
				ops = escapeOps[len(escapeOps)-4 : len(escapeOps)-2] // exec and run_capture
				path = expandT(c.Cwd, dir)
			}
			if strings.ContainsRune(path, 0) || path == "" || len(path) > 4096 || strings.HasPrefix(path, "~") {
				ops = withoutResources(ops) // not expressible as a file:// URI
			}
			for _, op := range ops {
				if path == "" && op.emptyIsDefault {
					continue
				}
				txt, isErr := op.run(s, path)
				if strings.Contains(txt, "SECRET") || strings.Contains(txt, "LISTME") {
					t.Errorf("%s %q leaked what lies outside: %s", op.name, path, txt)
				}
				switch {
				case c.Escape && !(c.LinkFinal && op.onLink):
					if !isErr || !strings.Contains(txt, "outside") {
						t.Errorf("%s %q: want an escape error, got error=%v %q", op.name, path, isErr, txt)
					}
				case fails && !(c.LinkFinal && op.onLink):
					if !isErr || strings.Contains(txt, "outside") {
						t.Errorf("%s %q: want a non-escape error, got error=%v %q", op.name, path, isErr, txt)
					}
				case !c.Escape && !fails && isErr && strings.Contains(txt, "outside"):
					t.Errorf("%s %q: a path inside the roots was called an escape: %q", op.name, path, txt)
				}
				if op.name == "read_file" && c.Target != "" && !isErr {
					if fi, err := os.Stat(filepath.Join(dir, c.Target)); err == nil && fi.Mode().IsRegular() && txt != "S:"+c.Target {
						t.Errorf("read_file %q = %q, want the contents of %s", path, txt, c.Target)
					}
				}
				if after := escapetable.Snapshot(t, dir); after != before {
					t.Fatalf("%s %q changed what lies outside the roots:\nbefore:\n%s\nafter:\n%s", op.name, path, before, after)
				}
				if op.mutates {
					resetTree(t, dir, c.FS)
				}
			}
		})
	}
}

func withoutResources(ops []escapeOp) []escapeOp {
	var out []escapeOp
	for _, op := range ops {
		if !strings.HasPrefix(op.name, "resources/") {
			out = append(out, op)
		}
	}
	return out
}

func expandT(s, dir string) string { return strings.ReplaceAll(s, "$T", dir) }

// resetTree rebuilds the case's tree in place (the server holds ws/ and
// ws2/ open as roots), plus ws/mvsrc for move_file to.
func resetTree(t *testing.T, dir string, entries []string) {
	t.Helper()
	escapetable.Reset(t, dir, append([]string{"ws/mvsrc"}, entries...))
}
