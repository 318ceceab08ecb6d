package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

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
	for _, f := range []string{"a.go", "x.log", "build/out", "src/b.go", "src/deep/c.go", "src/deep/d.txt", ".hidden", ".github/workflows/ci.yml", "evil\nSPOOFED.txt"} {
		mustWrite(t, filepath.Join(s.ws, f), "x")
	}
	var out mcpserver.TreeOut
	res, err := s.callRaw("directory_tree", map[string]any{"hidden": false})
	if err != nil || res.IsError {
		t.Fatalf("directory_tree: %v %s", err, resultText(res))
	}
	structured(t, res, &out)
	if got, want := strings.Join(flatten("", out.Entries), "\n")+"\n", gitWalkListingNoDots(t, s.ws); got != want {
		t.Errorf("directory_tree hidden false = %q, want (from git, no dot-files) %q", got, want)
	}
	// git's view by default, dot-files in.
	res, err = s.callRaw("directory_tree", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("directory_tree: %v %s", err, resultText(res))
	}
	out = mcpserver.TreeOut{}
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
	res, _ = s.callRaw("directory_tree", map[string]any{"maxEntries": 3, "hidden": false})
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
	mustWrite(t, filepath.Join(s.ws, ".github/workflows/ci.yml"), "on: push\n")
	// What git lists, filtered by name: the oracle for "*.go" (dot-files
	// in, as git lists them) and, with hidden false, for that without
	// dot-files. (The server's own git world, not the developer's HOME.)
	gitOut := serverGit(s.ws).Git(t, s.ws, "ls-files", "-z", "-co", "--exclude-standard")
	var want, wantNoDots []string
	for _, f := range strings.Split(gitOut, "\x00") {
		if strings.HasSuffix(f, ".go") {
			want = append(want, f)
			if !strings.HasPrefix(filepath.Base(f), ".") {
				wantNoDots = append(wantNoDots, f)
			}
		}
	}
	slices.Sort(want)
	slices.Sort(wantNoDots)
	if _, out := search(map[string]any{"pattern": "*.go", "hidden": false}); !slices.Equal(paths(out), wantNoDots) {
		t.Errorf("*.go hidden false = %q, want (from git) %q", paths(out), wantNoDots)
	}
	// A dot-directory's files are found by default, as git lists them.
	if txt, out := search(map[string]any{"pattern": "**/*.yml"}); !slices.Equal(paths(out), []string{".github/workflows/ci.yml"}) {
		t.Errorf("**/*.yml = %q (%s), want .github/workflows/ci.yml", paths(out), txt)
	}
	// An empty answer says what was left out.
	if txt, _ := search(map[string]any{"pattern": "**/*.yml", "hidden": false}); !strings.Contains(txt, "dot-files") || !strings.Contains(txt, "hidden: true") {
		t.Errorf("an empty search with hidden false does not say dot-files were left out: %q", txt)
	}
	if txt, _ := search(map[string]any{"pattern": "*.log"}); !strings.Contains(txt, "files git ignores") || !strings.Contains(txt, "noIgnore: true") {
		t.Errorf("an empty search does not say ignored files were left out: %q", txt)
	}
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
		{map[string]any{"pattern": ".hidden.go"}, []string{".hidden.go"}},
		{map[string]any{"pattern": ".hidden.go", "hidden": false}, nil},
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

// TestDirectoryTreeEncoded: directory_tree writes its answer itself, once
// (lent to the transport when large): the structured content fits the
// schema it declares and holds the same tree as the text; an empty
// directory has "children": [] (as the reference server's), one at
// maxDepth none, and the last entry of a cut tree none; every name is
// exact, with enough entries that the reply's values are lent.
func TestDirectoryTreeEncoded(t *testing.T) {
	s := start(t, startOpts{})
	names := []string{"a<b>&c.txt", `q"uote.txt`, "back\\slash", "line\u2028sep", "x\nSPOOFED.txt", "sub/deep/f.go", "sub/g.go"}
	for i := range 1200 {
		names = append(names, fmt.Sprintf("sub/many/<%04d> & \"q\"\n.txt", i))
	}
	for _, f := range names {
		mustWrite(t, filepath.Join(s.ws, f), "x")
	}
	for _, d := range []string{"empty", "sub/deep/empty2", "zlast"} {
		if err := os.MkdirAll(filepath.Join(s.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	schema := outputSchema(t, s, "directory_tree")
	// children of each directory by path: nil (no field) or the names.
	type dirs map[string]*[]string
	collect := func(nodes []any) dirs {
		out := dirs{}
		var walk func(prefix string, nodes []any)
		walk = func(prefix string, nodes []any) {
			for _, n := range nodes {
				m := n.(map[string]any)
				p := prefix + m["name"].(string)
				if m["type"] != "directory" {
					if _, ok := m["children"]; ok {
						t.Errorf("file %q has children", p)
					}
					continue
				}
				kids, ok := m["children"].([]any)
				if !ok {
					out[p] = nil
					continue
				}
				names := []string{}
				for _, k := range kids {
					names = append(names, k.(map[string]any)["name"].(string))
				}
				out[p] = &names
				walk(p+"/", kids)
			}
		}
		walk("", nodes)
		return out
	}
	for _, c := range []struct {
		args map[string]any
		// want: directory -> "[]" (empty), "-" (no field) or "+" (some).
		want      map[string]string
		truncated bool
	}{
		{map[string]any{"maxEntries": 50000}, map[string]string{"empty": "[]", "sub": "+", "sub/deep": "+", "sub/deep/empty2": "[]", "sub/many": "+", "zlast": "[]"}, false},
		{map[string]any{"maxDepth": 1}, map[string]string{"empty": "-", "sub": "-", "zlast": "-"}, false},
		{map[string]any{"maxDepth": 2}, map[string]string{"empty": "[]", "sub": "+", "sub/deep": "-", "sub/many": "-", "zlast": "[]"}, false},
		{map[string]any{"maxEntries": 8}, map[string]string{"empty": "[]", "sub": "+", "sub/deep": "+", "sub/deep/empty2": "-"}, true},
	} {
		res, err := s.callRaw("directory_tree", c.args)
		if err != nil || res.IsError {
			t.Fatalf("directory_tree %v: %v %s", c.args, err, resultText(res))
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("directory_tree %v: structured content does not fit the declared schema: %v\n%.500s", c.args, err, raw)
		}
		if v["truncated"] != c.truncated || v["root"] != s.ws {
			t.Errorf("directory_tree %v: truncated %v root %v", c.args, v["truncated"], v["root"])
		}
		txt := resultText(res)
		if c.truncated {
			txt = txt[:strings.LastIndex(txt, "\n(cut at")]
		}
		var fromText []any
		if err := json.Unmarshal([]byte(txt), &fromText); err != nil {
			t.Fatalf("the text is not the JSON tree: %v\n%.500s", err, txt)
		}
		got, gotText := collect(v["entries"].([]any)), collect(fromText)
		if !reflect.DeepEqual(got, gotText) {
			t.Errorf("directory_tree %v: text and structured content differ", c.args)
		}
		for d, w := range c.want {
			kids, ok := got[d]
			var g string
			switch {
			case !ok:
				g = "not listed"
			case kids == nil:
				g = "-"
			case len(*kids) == 0:
				g = "[]"
			default:
				g = "+"
			}
			if g != w {
				t.Errorf("directory_tree %v: %s has children %s, want %s", c.args, d, g, w)
			}
		}
		if !c.truncated && c.args["maxDepth"] == nil {
			var flat []string
			var walk func(prefix string, nodes []any)
			walk = func(prefix string, nodes []any) {
				for _, n := range nodes {
					m := n.(map[string]any)
					p := prefix + m["name"].(string)
					if m["type"] == "directory" {
						kids, _ := m["children"].([]any)
						walk(p+"/", kids)
						continue
					}
					flat = append(flat, p)
				}
			}
			walk("", v["entries"].([]any))
			slices.Sort(flat)
			want := slices.Clone(names)
			slices.Sort(want)
			if !slices.Equal(flat, want) {
				t.Errorf("directory_tree: files %q, want %q", flat, want)
			}
		}
	}
}

// outputSchema is the output schema tool declares in tools/list, resolved.
func outputSchema(t *testing.T, s *server, tool string) *jsonschema.Resolved {
	t.Helper()
	tools, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != tool {
			continue
		}
		raw, err := json.Marshal(tl.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sc jsonschema.Schema
		if err := json.Unmarshal(raw, &sc); err != nil {
			t.Fatal(err)
		}
		r, err := sc.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	t.Fatalf("%s declares no output schema", tool)
	return nil
}
