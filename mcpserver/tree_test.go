package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/mcpserver"
)

// flatten lists a tree as walk does: relative paths, directories with a
// trailing slash, sorted.
func flatten(prefix string, nodes []*mcpserver.TreeNode) []string {
	var out []string
	for _, n := range nodes {
		p := prefix + n.Name
		if n.Type == "directory" {
			out = append(out, p+"/")
			out = append(out, flatten(p+"/", n.Children)...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// TestDirectoryTree: the tree is git's view (the listing computed with git
// ls-files), as JSON text and as structured content alike; maxDepth and
// maxEntries bound it and truncated says so; a name with a line break is
// one entry, exactly.
func TestDirectoryTree(t *testing.T) {
	s := start(t, startOpts{})
	gitInit(t, s.ws)
	mustWrite(t, filepath.Join(s.ws, ".gitignore"), "*.log\nbuild/\n")
	for _, f := range []string{"a.go", "x.log", "build/out", "src/b.go", "src/deep/c.go", "src/deep/d.txt", ".hidden", "evil\nSPOOFED.txt"} {
		mustWrite(t, filepath.Join(s.ws, f), "x")
	}
	var out mcpserver.TreeOut
	res, err := s.callRaw("directory_tree", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("directory_tree: %v %s", err, resultText(res))
	}
	structured(t, res, &out)
	got := strings.Join(flatten("", out.Entries), "\n") + "\n"
	if want := gitWalkListing(t, s.ws); got != want {
		t.Errorf("directory_tree = %q, want (from git) %q", got, want)
	}
	if out.Root != s.ws || out.Truncated {
		t.Errorf("root %q truncated %v", out.Root, out.Truncated)
	}
	var fromText []*mcpserver.TreeNode
	if err := json.Unmarshal([]byte(resultText(res)), &fromText); err != nil {
		t.Fatalf("the text is not the JSON tree: %v\n%s", err, resultText(res))
	}
	if !slices.Equal(flatten("", fromText), flatten("", out.Entries)) {
		t.Errorf("text tree %v, structured %v", flatten("", fromText), flatten("", out.Entries))
	}
	if !slices.Contains(flatten("", out.Entries), "evil\nSPOOFED.txt") || slices.Contains(flatten("", out.Entries), "SPOOFED.txt") {
		t.Errorf("the name with a line break: %q", flatten("", out.Entries))
	}

	res, _ = s.callRaw("directory_tree", map[string]any{"path": "src", "maxDepth": 1})
	structured(t, res, &out)
	if got := flatten("", out.Entries); !slices.Equal(got, []string{"b.go", "deep/"}) {
		t.Errorf("src depth 1 = %q", got)
	}
	res, _ = s.callRaw("directory_tree", map[string]any{"maxEntries": 3})
	out = mcpserver.TreeOut{}
	structured(t, res, &out)
	if got := flatten("", out.Entries); len(got) != 3 || !out.Truncated || !strings.Contains(resultText(res), "cut at 3") {
		t.Errorf("maxEntries 3 = %q truncated %v %s", got, out.Truncated, resultText(res))
	}
	res, _ = s.callRaw("directory_tree", map[string]any{"hidden": true, "noIgnore": true})
	out = mcpserver.TreeOut{}
	structured(t, res, &out)
	for _, w := range []string{".gitignore", ".hidden", "x.log", "build/out"} {
		if !slices.Contains(flatten("", out.Entries), w) {
			t.Errorf("hidden noIgnore lacks %s: %q", w, flatten("", out.Entries))
		}
	}
	if slices.Contains(flatten("", out.Entries), ".git/") {
		t.Error(".git shown")
	}
	s.fails("directory_tree", map[string]any{"path": "a.go"}, "not a directory")
	s.fails("directory_tree", map[string]any{"maxDepth": -1}, `"maxDepth"`, "negative")
	if txt := s.fails("directory_tree", map[string]any{"path": "../out"}, "outside"); strings.Contains(txt, "secret") {
		t.Fatal("listed outside")
	}
}

// TestSearchFiles: a pattern without a slash matches names at any depth,
// with one the relative path; ignored files are not found (git says which);
// a name with a line break is one quoted line of text and exact in the
// structured matches.
func TestSearchFiles(t *testing.T) {
	s := start(t, startOpts{})
	gitInit(t, s.ws)
	mustWrite(t, filepath.Join(s.ws, ".gitignore"), "*.log\nbuild/\n")
	for _, f := range []string{"a.go", "x.log", "build/out.go", "src/b.go", "src/b_test.go", "src/deep/c.go", "src/deep/d.txt", ".hidden.go", "evil\nSPOOFED.go"} {
		mustWrite(t, filepath.Join(s.ws, f), "x")
	}
	search := func(args map[string]any) (string, mcpserver.SearchOut) {
		t.Helper()
		res, err := s.callRaw("search_files", args)
		if err != nil || res.IsError {
			t.Fatalf("search_files %v: %v %s", args, err, resultText(res))
		}
		var out mcpserver.SearchOut
		structured(t, res, &out)
		return resultText(res), out
	}
	paths := func(out mcpserver.SearchOut) []string {
		var ps []string
		for _, m := range out.Matches {
			ps = append(ps, m.Path)
		}
		slices.Sort(ps)
		return ps
	}
	// What git lists, filtered by name: the oracle for "*.go".
	// (The server's own git world, not the developer's HOME.)
	gitOut := serverGit(s.ws).Git(t, s.ws, "ls-files", "-z", "-co", "--exclude-standard")
	var want []string
	for _, f := range strings.Split(gitOut, "\x00") {
		if strings.HasSuffix(f, ".go") && !strings.HasPrefix(filepath.Base(f), ".") {
			want = append(want, f)
		}
	}
	slices.Sort(want)
	txt, out := search(map[string]any{"pattern": "*.go"})
	if got := paths(out); !slices.Equal(got, want) {
		t.Errorf("*.go = %q, want (from git) %q", got, want)
	}
	if !strings.Contains(txt, `"evil\nSPOOFED.go"`+"\n") || strings.Contains(txt, "\nSPOOFED.go\n") {
		t.Errorf("the name with a line break is not one quoted line: %q", txt)
	}
	if !slices.Contains(paths(out), "evil\nSPOOFED.go") {
		t.Errorf("structured matches lack the exact name: %q", paths(out))
	}
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"pattern": "src/**/*.go"}, []string{"src/b.go", "src/b_test.go", "src/deep/c.go"}},
		{map[string]any{"pattern": "*_test.go"}, []string{"src/b_test.go"}},
		{map[string]any{"pattern": "{a,c}.go"}, []string{"a.go", "src/deep/c.go"}},
		{map[string]any{"pattern": "deep/"}, []string{"src/deep"}},
		{map[string]any{"pattern": "*.go", "path": "src/deep"}, []string{"c.go"}},
		{map[string]any{"pattern": "*.go", "hidden": true, "noIgnore": true, "path": "build"}, []string{"out.go"}},
		{map[string]any{"pattern": ".hidden.go", "hidden": true}, []string{".hidden.go"}},
		{map[string]any{"pattern": "*.log"}, nil},
	} {
		if _, out := search(c.args); !slices.Equal(paths(out), c.want) {
			t.Errorf("%v = %q, want %q", c.args, paths(out), c.want)
		}
	}
	txt, out = search(map[string]any{"pattern": "*", "maxEntries": 2})
	if len(out.Matches) != 2 || !out.Truncated || !strings.Contains(txt, "cut at 2") {
		t.Errorf("maxEntries 2: %q %v", txt, out.Truncated)
	}
	s.fails("search_files", map[string]any{"pattern": "[a"}, `"pattern"`, "not a valid glob")
	s.fails("search_files", map[string]any{"pattern": ""}, `"pattern"`)
	s.fails("search_files", map[string]any{"pattern": "*", "path": "a.go"}, "not a directory")
	if txt := s.fails("search_files", map[string]any{"pattern": "*", "path": "../out"}, "outside"); strings.Contains(txt, "secret") {
		t.Fatal("searched outside")
	}
	os.Remove(filepath.Join(s.ws, "a.go"))
}
