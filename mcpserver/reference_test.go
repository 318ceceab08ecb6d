package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/mcpserver"
)

// referenceVersion is the reference filesystem server the parity test
// installs from npm.
const referenceVersion = "2026.8.31"

// referenceTree makes the tree both servers answer about: files of sizes
// that show each unit of formatSize, a directory tree with names the
// excludePatterns name, empty directories, a link, names each JSON
// encoder escapes its own way and dot-files (which both show by default).
// Not a git repository: the reference applies no ignore rules.
func referenceTree(t *testing.T) (dir, ws string) {
	dir = t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	ws = filepath.Join(dir, "ws")
	for _, d := range []string{"ws/empty", "home", "ws2"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(ws, "alpha.txt"), "one\ntwo\nthree\n")
	mustWrite(t, filepath.Join(ws, "Beta.md"), strings.Repeat("b", 1500))
	mustWrite(t, filepath.Join(ws, "gamma.bin"), strings.Repeat("g", 1_200_000))
	mustWrite(t, filepath.Join(ws, "nonl.txt"), "a\nb\nc")
	mustWrite(t, filepath.Join(ws, "zero"), "")
	mustWrite(t, filepath.Join(ws, "sub/c.go"), "package c\n")
	mustWrite(t, filepath.Join(ws, "sub/tie.txt"), strings.Repeat("t", 2688)) // 2.625 KB: toFixed rounds the tie up
	mustWrite(t, filepath.Join(ws, "sub/node_modules/x.js"), "x")
	mustWrite(t, filepath.Join(ws, "sub/deep/d.log"), "log")
	mustWrite(t, filepath.Join(ws, "sub/deep/e.go"), "package e\n")
	// Names each JSON encoder escapes its own way, and empty directories
	// at two depths, for directory_tree's text.
	for _, f := range []string{`q"uote.txt`, "a<b>&c.txt", "tab\there", "back\\slash", "ünï日本.txt", "line\u2028sep", "ctl\x01x", "e1/e2/keep", ".dotfile", ".github/workflows/ci.yml"} {
		mustWrite(t, filepath.Join(ws, "sub/odd", f), "x")
	}
	os.Remove(filepath.Join(ws, "sub/odd/e1/e2/keep"))
	if err := os.MkdirAll(filepath.Join(ws, "sub/odd/e3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("alpha.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	return dir, ws
}

// TestReferenceTools: the reference server's names answer as it does, on
// our Host (the parity test compares them with the reference itself).
func TestReferenceTools(t *testing.T) {
	dir, ws := referenceTree(t)
	s := start(t, startOpts{dir: dir})
	if got := s.ok("read_text_file", map[string]any{"path": "alpha.txt"}); got != "one\ntwo\nthree\n" {
		t.Errorf("read_text_file = %q", got)
	}
	if got := s.ok("read_text_file", map[string]any{"path": "alpha.txt", "head": 2}); got != "one\ntwo" {
		t.Errorf("read_text_file head 2 = %q", got)
	}
	if got := s.ok("read_text_file", map[string]any{"path": "nonl.txt", "tail": 2}); got != "b\nc" {
		t.Errorf("read_text_file tail 2 = %q", got)
	}
	s.fails("read_text_file", map[string]any{"path": "../out/secret"}, "outside")
	s.fails("read_text_file", map[string]any{"path": "alpha.txt", "head": 1, "tail": 1}, "not both")

	info := s.ok("get_file_info", map[string]any{"path": "Beta.md"})
	want := regexp.MustCompile(`^size: 1500\ncreated: [A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d{4} \d\d:\d\d:\d\d GMT[+-]\d{4} \(.+\)\nmodified: .+\naccessed: .+\nisDirectory: false\nisFile: true\npermissions: 644$`)
	if !want.MatchString(info) {
		t.Errorf("get_file_info:\n%s", info)
	}
	if info := s.ok("get_file_info", map[string]any{"path": "sub"}); !strings.Contains(info, "isDirectory: true\nisFile: false\npermissions: 755") {
		t.Errorf("get_file_info of a directory:\n%s", info)
	}
	s.fails("get_file_info", map[string]any{"path": "../out/secret"}, "outside")

	if got := s.ok("list_allowed_directories", map[string]any{}); got != "Allowed directories:\n"+ws+"\n"+filepath.Join(dir, "ws2") {
		t.Errorf("list_allowed_directories = %q", got)
	}

	listing := s.ok("list_directory_with_sizes", map[string]any{"path": "."})
	// The exact columns are the parity test's (against the reference
	// itself); here the order, the kinds, the units and the totals.
	var order []string
	for _, l := range strings.Split(listing, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && strings.HasPrefix(f[0], "[") {
			order = append(order, f[0]+" "+f[1]+" "+strings.Join(f[2:], " "))
		}
	}
	wantOrder := []string{"[FILE] alpha.txt 14 B", "[FILE] Beta.md 1.46 KB", "[DIR] empty ", "[FILE] gamma.bin 1.14 MB",
		"[FILE] link 14 B", "[FILE] nonl.txt 5 B", "[DIR] sub ", "[FILE] zero 0 B"}
	if !slices.Equal(order, wantOrder) || !strings.HasSuffix(listing, "\n\nTotal: 6 files, 2 directories\nCombined size: 1.15 MB") {
		t.Errorf("list_directory_with_sizes:\n%s\nwant the entries %q and the totals", listing, wantOrder)
	}
	bySize := s.ok("list_directory_with_sizes", map[string]any{"path": ".", "sortBy": "size"})
	if !strings.HasPrefix(bySize, "[FILE] gamma.bin") {
		t.Errorf("sortBy size:\n%s", bySize)
	}
	s.fails("list_directory_with_sizes", map[string]any{"path": ".", "sortBy": "date"}, "name", "size")
	s.fails("list_directory_with_sizes", map[string]any{"path": "../out"}, "outside")

	// excludePatterns: on search_files a glob of the relative path; on
	// directory_tree also a bare name at any depth.
	found := s.ok("search_files", map[string]any{"path": ".", "pattern": "**/*.go", "excludePatterns": []string{"sub/deep"}})
	if found != "sub/c.go\n" {
		t.Errorf("search_files with excludePatterns:\n%s", found)
	}
	tree := s.ok("directory_tree", map[string]any{"path": "sub", "excludePatterns": []string{"node_modules", "*.log"}})
	var nodes []map[string]any
	if err := json.Unmarshal([]byte(tree), &nodes); err != nil {
		t.Fatalf("directory_tree: %v\n%s", err, tree)
	}
	if strings.Contains(tree, "node_modules") || strings.Contains(tree, "x.js") || !strings.Contains(tree, "d.log") || !strings.Contains(tree, "e.go") {
		t.Errorf("directory_tree with excludePatterns:\n%s", tree)
	}
}

// TestExcludePatternsBounded: a call with more excludePatterns than the
// bound, or a pattern longer than it, is refused at once, before a walk
// that would match every entry against each.
func TestExcludePatternsBounded(t *testing.T) {
	dir, _ := referenceTree(t)
	s := start(t, startOpts{dir: dir})
	many := make([]string, 100_000)
	for i := range many {
		many[i] = "**/x" + strings.Repeat("*", i%8) + "y"
	}
	long := []string{strings.Repeat("**/a", 1000)}
	for _, tool := range []string{"search_files", "directory_tree"} {
		for _, pats := range [][]string{many, long} {
			args := map[string]any{"path": ".", "pattern": "**", "excludePatterns": pats}
			if tool == "directory_tree" {
				delete(args, "pattern")
			}
			start := time.Now()
			s.fails(tool, args, "excludePatterns")
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%s took %v to refuse %d patterns", tool, d, len(pats))
			}
		}
	}
}

// TestReferenceParity installs the reference filesystem server from npm
// and asks it and ours the same questions on the same tree: the
// reference-named tools must answer alike, with what must differ
// normalised (birth and access times).
func TestReferenceParity(t *testing.T) {
	if testing.Short() {
		t.Skip("installs @modelcontextprotocol/server-filesystem from npm")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: the comparison with @modelcontextprotocol/server-filesystem needs it")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the comparison with @modelcontextprotocol/server-filesystem needs it")
	}
	pkgDir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", pkgDir, "--cache", filepath.Join(pkgDir, ".npm"),
		"@modelcontextprotocol/server-filesystem@"+referenceVersion)
	install.Env = append(os.Environ(), "HOME="+pkgDir, "npm_config_update_notifier=false")
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("npm install @modelcontextprotocol/server-filesystem@%s failed (no network?): %v\n%s", referenceVersion, err, out)
	}
	dir, ws := referenceTree(t)
	ours := start(t, startOpts{dir: dir, noWs2: true})

	cmd := exec.Command(node, filepath.Join(pkgDir, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), ws)
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
	client := mcp.NewClient(&mcp.Implementation{Name: "parity", Version: "1"}, nil)
	cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer ccancel()
	ref, err := client.Connect(cctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting the reference server: %v", err)
	}
	defer ref.Close()
	refCall := func(name string, args map[string]any) string {
		t.Helper()
		res, err := ref.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("reference %s %v: %v %s", name, args, err, resultText(res))
		}
		return resultText(res)
	}
	// What may differ: birth and access times (reading a file may set
	// its atime). directory_tree's text is the reference's byte for byte,
	// "children": [] of an empty directory included.
	times := regexp.MustCompile(`(?m)^(created|accessed): .*$`)
	norm := func(name, s string) string {
		if name == "get_file_info" {
			s = times.ReplaceAllString(s, "$1: T")
		}
		return s
	}
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"read_text_file", map[string]any{"path": filepath.Join(ws, "alpha.txt")}},
		{"read_text_file", map[string]any{"path": filepath.Join(ws, "alpha.txt"), "head": 2}},
		{"read_text_file", map[string]any{"path": filepath.Join(ws, "nonl.txt"), "tail": 2}},
		{"read_text_file", map[string]any{"path": filepath.Join(ws, "nonl.txt"), "head": 9}},
		{"get_file_info", map[string]any{"path": filepath.Join(ws, "Beta.md")}},
		{"get_file_info", map[string]any{"path": filepath.Join(ws, "zero")}},
		{"get_file_info", map[string]any{"path": filepath.Join(ws, "sub")}},
		{"list_allowed_directories", map[string]any{}},
		{"list_directory_with_sizes", map[string]any{"path": ws}},
		{"list_directory_with_sizes", map[string]any{"path": ws, "sortBy": "size"}},
		{"list_directory_with_sizes", map[string]any{"path": filepath.Join(ws, "sub"), "sortBy": "name"}},
		{"directory_tree", map[string]any{"path": ws}},
		{"directory_tree", map[string]any{"path": filepath.Join(ws, "sub/odd")}},
		{"directory_tree", map[string]any{"path": filepath.Join(ws, "sub/odd/e3")}},
		{"directory_tree", map[string]any{"path": ws, "excludePatterns": []string{"node_modules", "*.bin", "sub/deep/*.log"}}},
	} {
		want := norm(c.name, refCall(c.name, c.args))
		got := norm(c.name, ours.ok(c.name, c.args))
		if got != want {
			t.Errorf("%s %v:\nours:\n%s\nreference:\n%s", c.name, c.args, got, want)
		}
	}

	// search_files answers in our shape (relative paths, one a line); the
	// reference gives absolute ones. The same matches, excludePatterns
	// applied alike.
	for _, c := range []struct {
		pattern string
		exclude []string
	}{
		{"**/*.go", nil},
		{"**/*.go", []string{"sub/deep"}},
		{"**", []string{"**/node_modules", "*.bin"}},
		{"**/*.yml", nil},
		{"**/.*", nil},
	} {
		args := map[string]any{"path": ws, "pattern": c.pattern}
		if c.exclude != nil {
			args["excludePatterns"] = c.exclude
		}
		var want, got []string
		for _, l := range strings.Split(refCall("search_files", args), "\n") {
			if l != "No matches found" && l != "" {
				want = append(want, l)
			}
		}
		res, err := ours.callRaw("search_files", args)
		if err != nil || res.IsError {
			t.Fatalf("search_files %v: %v %s", args, err, resultText(res))
		}
		var out mcpserver.SearchOut
		structured(t, res, &out)
		for _, m := range out.Matches {
			got = append(got, filepath.Join(ws, m.Path))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("search_files %v:\nours %q\nreference %q", args, got, want)
		}
	}
}

// TestMessages: the wording of four answers a client sees.
func TestMessages(t *testing.T) {
	s := start(t, startOpts{})
	// write_file under a missing directory names that directory (the
	// first one missing), as agent-host write does, not the file.
	msg := s.fails("write_file", map[string]any{"path": "nodir/deeper/x.txt", "content": "x"},
		"directory "+filepath.Join(s.ws, "nodir")+" does not exist", "create_directory")
	if strings.Contains(msg, "x.txt does not exist") {
		t.Errorf("write_file names the file as missing: %s", msg)
	}
	// read_file of a directory says so once.
	msg = s.fails("read_file", map[string]any{"path": "."}, "is a directory")
	if n := strings.Count(msg, "is a directory"); n != 1 || strings.Contains(msg, "(is a directory (is a directory))") {
		t.Errorf("read_file of a directory: %q", msg)
	}

	// move_file takes the source's name away and cannot be repeated:
	// destructive, not idempotent. Every tool states each hint.
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v do not state every hint", tool.Name, a)
			continue
		}
		if tool.Name == "move_file" && (!*a.DestructiveHint || a.IdempotentHint || a.ReadOnlyHint) {
			t.Errorf("move_file annotations: destructive %v, idempotent %v, read-only %v; want true, false, false", *a.DestructiveHint, a.IdempotentHint, a.ReadOnlyHint)
		}
		if strings.HasPrefix(tool.Name, "read_text") || strings.HasPrefix(tool.Name, "get_file") || strings.HasPrefix(tool.Name, "list_") {
			if !a.ReadOnlyHint || *a.DestructiveHint {
				t.Errorf("%s is not annotated read-only", tool.Name)
			}
		}
	}

	// serverInfo.version is what agent-host --version prints.
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimPrefix(strings.TrimSpace(string(out)), "agent-host ")
	if got := s.cs.InitializeResult().ServerInfo.Version; got != want {
		t.Errorf("serverInfo.version %q, agent-host --version %q", got, want)
	}
}
