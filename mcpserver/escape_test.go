package mcpserver_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/mcpserver"
)

// The escape table of host/escape_test.go, driven through the MCP tools of
// a real agent-host mcp process: each case is a tiny filesystem and a path
// (or a working directory for exec), and every path-taking tool, resource
// read and subscription gets that path. Whatever the tool, nothing outside
// the roots may be read, written or listed.
//
// Every tree has ws/ (the workspace root), ws2/ (a second root), wsabc/ (a
// sibling sharing the root's prefix), out/ (outside) and home/ ($HOME).
// Files outside hold "SECRET-CONTENT" and each outside directory holds a
// LISTME file that no case names, so a leak of contents or of a listing
// shows in a tool's output.
type escapeCase struct {
	name      string
	fs        []string
	cwd       string // set: the case is about exec's working directory
	path      string
	escape    bool // the path leaves every root
	fails     bool // another error
	target    string
	linkFinal bool // the last component is a link: ops on the link itself may succeed
}

var escapeCases = []escapeCase{
	{name: "plain file", fs: []string{"ws/f"}, path: "f", target: "ws/f"},
	{name: "nested file", fs: []string{"ws/a/b/f"}, path: "a/b/f", target: "ws/a/b/f"},
	{name: "dot", path: ".", target: "ws"},
	{name: "dir then dotdot", fs: []string{"ws/a/"}, path: "a/..", target: "ws"},
	{name: "trailing slash dir", fs: []string{"ws/a/"}, path: "a/", target: "ws/a"},
	{name: "new file", path: "new", target: "ws/new"},
	{name: "dotdot", path: "..", escape: true},
	{name: "dotdot outside file", path: "../out/secret", escape: true},
	{name: "deep dotdot outside", fs: []string{"ws/a/b/"}, path: "a/b/../../../out/secret", escape: true},
	{name: "dotdot new file outside", path: "../out/new", escape: true},
	{name: "absolute inside", fs: []string{"ws/f"}, path: "$T/ws/f", target: "ws/f"},
	{name: "absolute outside", path: "$T/out/secret", escape: true},
	{name: "absolute etc passwd", path: "/etc/passwd", escape: true},
	{name: "absolute slash", path: "/", escape: true},
	{name: "link to file inside", fs: []string{"ws/f", "ws/lf => f"}, path: "lf", target: "ws/f", linkFinal: true},
	{name: "relative link out", fs: []string{"ws/lo => ../out/secret"}, path: "lo", escape: true, linkFinal: true},
	{name: "absolute link out", fs: []string{"ws/la => $T/out/secret"}, path: "la", escape: true, linkFinal: true},
	{name: "link to dir inside", fs: []string{"ws/a/b/f", "ws/ld => a"}, path: "ld/b/f", target: "ws/a/b/f"},
	{name: "link to dir outside", fs: []string{"ws/lod => ../out"}, path: "lod/secret", escape: true},
	{name: "link to dir outside itself", fs: []string{"ws/lod => ../out"}, path: "lod", escape: true, linkFinal: true},
	{name: "link to dir outside new file", fs: []string{"ws/lod => ../out"}, path: "lod/new", escape: true},
	{name: "dotdot after link", fs: []string{"ws/a/b/", "ws/a/f2", "ws/lb => a/b"}, path: "lb/../f2", target: "ws/a/f2"},
	{name: "dotdot after link as dir", fs: []string{"ws/a/b/", "ws/lb => a/b"}, path: "lb/..", target: "ws/a"},
	{name: "link loop", fs: []string{"ws/l1 => l2", "ws/l2 => l1"}, path: "l1", fails: true, linkFinal: true},
	{name: "self loop in the middle", fs: []string{"ws/self => self"}, path: "self/x", fails: true},
	{name: "chain then out", fs: []string{"ws/c1 => c2", "ws/c2 => ../out/secret"}, path: "c1", escape: true, linkFinal: true},
	{name: "link into second root", fs: []string{"ws2/g", "ws/to2 => $T/ws2"}, path: "to2/g", target: "ws2/g"},
	{name: "relative link into second root", fs: []string{"ws2/g", "ws/rel2 => ../ws2/g"}, path: "rel2", target: "ws2/g", linkFinal: true},
	{name: "dotdot into sibling root", fs: []string{"ws2/g"}, path: "../ws2/g", target: "ws2/g"},
	{name: "absolute under second root", fs: []string{"ws2/g"}, path: "$T/ws2/g", target: "ws2/g"},
	{name: "second root link back out", fs: []string{"ws2/back => ../out/secret"}, path: "$T/ws2/back", escape: true, linkFinal: true},
	{name: "sibling prefix absolute", path: "$T/wsabc/x", escape: true},
	{name: "sibling prefix relative", path: "../wsabc/x", escape: true},
	{name: "sibling prefix link", fs: []string{"ws/sp => ../wsabc/x"}, path: "sp", escape: true, linkFinal: true},
	{name: "tilde ssh keys", path: "~/.ssh/authorized_keys", escape: true},
	{name: "tilde alone", path: "~", escape: true},
	{name: "tilde user stays literal", path: "~user/f", fs: []string{"ws/~user/f"}, target: "ws/~user/f"},
	{name: "tilde in the middle stays literal", path: "a/~/b", fs: []string{"ws/a/~/b"}, target: "ws/a/~/b"},
	{name: "link to authorized_keys", fs: []string{"ws/keys => $T/home/.ssh/authorized_keys"}, path: "keys", escape: true, linkFinal: true},
	{name: "dangling link outside", fs: []string{"ws/dang => $T/out/created"}, path: "dang", escape: true, linkFinal: true},
	{name: "dangling link inside", fs: []string{"ws/dangin => made"}, path: "dangin", target: "ws/made", linkFinal: true},
	{name: "link to root slash", fs: []string{"ws/root => /"}, path: "root/etc/passwd", escape: true},
	{name: "link up and back in", fs: []string{"ws/f", "ws/up => .."}, path: "up/ws/f", target: "ws/f"},
	{name: "link up and out", fs: []string{"ws/up => .."}, path: "up/out/secret", escape: true},
	{name: "link up and list out", fs: []string{"ws/up => .."}, path: "up/out", escape: true},
	{name: "link to sibling root via dotdot", fs: []string{"ws2/g", "ws/dd => ../ws2"}, path: "dd/g", target: "ws2/g"},
	{name: "file as directory", fs: []string{"ws/f"}, path: "f/x", fails: true},
	{name: "NUL byte", path: "f\x00../../out/secret", fails: true},
	{name: "empty path", path: "", fails: true},
	{name: "over-long path", path: strings.Repeat("a/", 2100) + "f", fails: true},
	// JSON strings are UTF-8: the name reaches the server with U+FFFD in
	// place of the bad bytes, which names nothing; still no escape.
	{name: "invalid UTF-8 name", fs: []string{"ws/bad\xff\xfe"}, path: "bad\xff\xfe"},
	{name: "cwd inside", fs: []string{"ws/a/b/f"}, cwd: "a"},
	{name: "cwd through link", fs: []string{"ws/a/", "ws/ld => a"}, cwd: "ld"},
	{name: "cwd in second root", cwd: "$T/ws2"},
	{name: "cwd outside", cwd: "$T/out", escape: true},
	{name: "cwd dotdot", cwd: "..", escape: true},
	{name: "cwd link outside", fs: []string{"ws/lod => ../out"}, cwd: "lod", escape: true},
	{name: "cwd tilde", cwd: "~", escape: true},
}

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
	for _, c := range escapeCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			dir, _ = filepath.EvalSymlinks(dir)
			resetTree(t, dir, c.fs)
			// The protocol the TypeScript SDK speaks, in which a refused
			// subscription is an error the client sees.
			s := start(t, startOpts{dir: dir, args: []string{"--allow-exec"}, protocol: legacy})
			before := snapshot(t, dir)
			ops := escapeOps
			path := expandT(c.path, dir)
			if c.cwd != "" {
				ops = escapeOps[len(escapeOps)-4 : len(escapeOps)-2] // exec and run_capture
				path = expandT(c.cwd, dir)
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
				case c.escape && !(c.linkFinal && op.onLink):
					if !isErr || !strings.Contains(txt, "outside") {
						t.Errorf("%s %q: want an escape error, got error=%v %q", op.name, path, isErr, txt)
					}
				case c.fails && !(c.linkFinal && op.onLink):
					if !isErr || strings.Contains(txt, "outside") {
						t.Errorf("%s %q: want a non-escape error, got error=%v %q", op.name, path, isErr, txt)
					}
				case !c.escape && !c.fails && isErr && strings.Contains(txt, "outside"):
					t.Errorf("%s %q: a path inside the roots was called an escape: %q", op.name, path, txt)
				}
				if op.name == "read_file" && c.target != "" && !isErr {
					if fi, err := os.Stat(filepath.Join(dir, c.target)); err == nil && fi.Mode().IsRegular() && txt != "S:"+c.target {
						t.Errorf("read_file %q = %q, want the contents of %s", path, txt, c.target)
					}
				}
				if after := snapshot(t, dir); after != before {
					t.Fatalf("%s %q changed what lies outside the roots:\nbefore:\n%s\nafter:\n%s", op.name, path, before, after)
				}
				if op.mutates {
					resetTree(t, dir, c.fs)
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

// resetTree empties ws/ and ws2/ (keeping the directories themselves: the
// server holds them open as roots) and rebuilds everything from entries:
// "dir/", "file" (contents "S:" and its path; outside the roots
// "SECRET-CONTENT") or "link => target".
func resetTree(t *testing.T, dir string, entries []string) {
	t.Helper()
	for _, top := range []string{"ws", "ws2", "wsabc", "out", "home"} {
		p := filepath.Join(dir, top)
		if top == "ws" || top == "ws2" {
			ents, _ := os.ReadDir(p)
			for _, e := range ents {
				if err := os.RemoveAll(filepath.Join(p, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"ws/", "ws2/", "ws/mvsrc", "wsabc/x", "wsabc/LISTME", "out/secret", "out/LISTME", "home/.ssh/authorized_keys", "home/LISTME"}
	for _, e := range append(base, entries...) {
		e = expandT(e, dir)
		if name, target, ok := strings.Cut(e, " => "); ok {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		p := filepath.Join(dir, e)
		if strings.HasSuffix(e, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		contents := "S:" + e
		if !strings.HasPrefix(e, "ws/") && !strings.HasPrefix(e, "ws2/") {
			contents = "SECRET-CONTENT"
		}
		if err := os.WriteFile(p, []byte(contents), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot describes everything outside the roots (out/, wsabc/, home/):
// names, modes, sizes and content hashes.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	for _, top := range []string{"out", "wsabc", "home"} {
		filepath.WalkDir(filepath.Join(dir, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				lines = append(lines, p+" ERR "+err.Error())
				return nil
			}
			fi, _ := os.Lstat(p)
			line := fmt.Sprintf("%s %v %d", p, fi.Mode(), fi.Size())
			if fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				line += fmt.Sprintf(" %x", sha256.Sum256(b))
			}
			lines = append(lines, line)
			return nil
		})
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
