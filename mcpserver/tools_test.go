package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/internal/gittest"
	"github.com/agenthost/agenthost/mcpserver"
)

// fileTools are the tools without exec: ours, and the reference
// filesystem server's names beside them (get_file_info,
// list_allowed_directories, list_directory_with_sizes, read_text_file).
// Tools are added, never removed or renamed: a client's names stay.
var fileTools = []string{
	"check_ignore", "create_directory", "directory_tree", "edit_file", "get_file_info",
	"list_allowed_directories", "list_directory", "list_directory_with_sizes", "list_roots", "move_file",
	"read_file", "read_media_file", "read_multiple_files", "read_text_file", "remove_file", "search_files", "send_user_file", "stat", "walk", "write_file",
}

func toolNames(t *testing.T, s *server) []string {
	t.Helper()
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		if tool.InputSchema == nil {
			t.Errorf("%s has no input schema", tool.Name)
		}
	}
	slices.Sort(names)
	return names
}

func TestToolListWithoutExec(t *testing.T) {
	s := start(t, startOpts{})
	if got := toolNames(t, s); !slices.Equal(got, fileTools) {
		t.Fatalf("tools = %v, want %v", got, fileTools)
	}
	// exec is not merely hidden: calling it fails.
	res, err := s.callRaw("exec", map[string]any{"command": "touch " + filepath.Join(s.ws, "pwned")})
	if err == nil && !res.IsError {
		t.Fatalf("exec without --allow-exec ran: %s", resultText(res))
	}
	if _, err := os.Stat(filepath.Join(s.ws, "pwned")); err == nil {
		t.Fatal("exec without --allow-exec ran the command")
	}
}

func TestToolListWithExec(t *testing.T) {
	s := start(t, startOpts{args: []string{"--allow-exec"}})
	want := slices.Sorted(slices.Values(append(slices.Clone(fileTools), "exec", "run_capture")))
	if got := toolNames(t, s); !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
}

func TestReadFile(t *testing.T) {
	s := start(t, startOpts{})
	mustWrite(t, filepath.Join(s.ws, "a.txt"), "one\ntwo\nthree\nfour\n")
	mustWrite(t, filepath.Join(s.ws, "notes.md"), "x")
	mustWrite(t, filepath.Join(s.ws2, "g.txt"), "in the second root")
	mustWrite(t, filepath.Join(s.ws, "bin"), "ok\xff\xfeend")

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "a.txt"}, "one\ntwo\nthree\nfour\n"},
		{map[string]any{"path": filepath.Join(s.ws, "a.txt")}, "one\ntwo\nthree\nfour\n"},
		{map[string]any{"path": "a.txt", "head": 2}, "one\ntwo\n"},
		{map[string]any{"path": "a.txt", "head": 10}, "one\ntwo\nthree\nfour\n"},
		{map[string]any{"path": "a.txt", "tail": 1}, "four\n"},
		{map[string]any{"path": "a.txt", "tail": 3}, "two\nthree\nfour\n"},
		{map[string]any{"path": "a.txt", "tail": 9}, "one\ntwo\nthree\nfour\n"},
		{map[string]any{"path": "../ws2/g.txt"}, "in the second root"},
		{map[string]any{"path": "bin"}, "ok\uFFFD\uFFFDend"},
	} {
		if got := s.ok("read_file", c.args); got != c.want {
			t.Errorf("read_file %v = %q, want %q", c.args, got, c.want)
		}
	}

	s.fails("read_file", map[string]any{"path": "a.txt", "head": 1, "tail": 1}, "not both")
	s.fails("read_file", map[string]any{"path": "a.txt", "head": -1}, "negative")
	s.fails("read_file", map[string]any{"path": "note.md"}, "does not exist", "notes.md", s.ws)
	s.fails("read_file", map[string]any{"path": "sub/deeper/x"}, "does not exist", "a.txt")
	s.fails("read_file", map[string]any{"path": "."}, "directory")
	s.fails("read_file", map[string]any{"path": "a.txt/x"}, "not a directory")
	s.fails("read_file", map[string]any{"path": ""}, "not a usable path")
	s.fails("read_file", map[string]any{"path": "../out/secret"}, "outside", s.ws, s.ws2)
	// A missing required argument is refused by the schema, as a tool error.
	s.fails("read_file", map[string]any{}, "path")
}

func TestReadMultipleFiles(t *testing.T) {
	s := start(t, startOpts{})
	mustWrite(t, filepath.Join(s.ws, "a"), "A\n")
	mustWrite(t, filepath.Join(s.ws, "b"), "B")
	got := s.ok("read_multiple_files", map[string]any{"paths": []string{"a", "missing", "b", "../out/secret"}})
	for _, w := range []string{"==> a <==\nA\n", "==> b <==\nB\n", "==> missing <==\nerror: missing does not exist", "==> ../out/secret <==\nerror: ../out/secret is outside"} {
		if !strings.Contains(got, w) {
			t.Errorf("read_multiple_files: %q lacks %q", got, w)
		}
	}
	if strings.Contains(got, "the secret outside") {
		t.Fatal("read_multiple_files read outside the roots")
	}
	s.fails("read_multiple_files", map[string]any{"paths": []string{"nope", "../out/secret"}}, "does not exist", "outside")
	s.fails("read_multiple_files", map[string]any{"paths": []string{}}, "empty")
	many := make([]string, 65)
	for i := range many {
		many[i] = "a"
	}
	s.fails("read_multiple_files", map[string]any{"paths": many}, "split")
}

func TestWriteFile(t *testing.T) {
	s := start(t, startOpts{})
	res, err := s.callRaw("write_file", map[string]any{"path": "new.txt", "content": "hello\n"})
	if err != nil || res.IsError {
		t.Fatalf("write_file: %v %s", err, resultText(res))
	}
	var fi mcpserver.FileInfo
	structured(t, res, &fi)
	if fi.Path != filepath.Join(s.ws, "new.txt") || fi.Size != 6 || fi.IsDir {
		t.Errorf("write_file output = %+v", fi)
	}
	if got := readDisk(t, filepath.Join(s.ws, "new.txt")); got != "hello\n" {
		t.Errorf("on disk: %q", got)
	}
	s.ok("write_file", map[string]any{"path": "new.txt", "content": "replaced"})
	if got := s.ok("read_file", map[string]any{"path": "new.txt"}); got != "replaced" {
		t.Errorf("read back %q", got)
	}
	s.ok("write_file", map[string]any{"path": filepath.Join(s.ws2, "in2"), "content": "2"})
	if got := readDisk(t, filepath.Join(s.ws2, "in2")); got != "2" {
		t.Errorf("second root: %q", got)
	}
	s.fails("write_file", map[string]any{"path": "nodir/x", "content": "x"}, "does not exist")
	s.fails("write_file", map[string]any{"path": ".", "content": "x"}, "directory")
	s.fails("write_file", map[string]any{"path": "../out/new", "content": "x"}, "outside", s.ws)
	s.fails("write_file", map[string]any{"path": "~/x", "content": "x"}, "outside")
	if _, err := os.Stat(filepath.Join(s.dir, "out", "new")); err == nil {
		t.Fatal("write_file wrote outside the roots")
	}
}

func TestEditFile(t *testing.T) {
	s := start(t, startOpts{})
	p := filepath.Join(s.ws, "e.go")
	orig := "package e\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	mustWrite(t, p, orig)

	// Dry run: a diff, no change.
	diff := s.ok("edit_file", map[string]any{"path": "e.go", "dryRun": true,
		"edits": []map[string]any{{"oldText": "func A() int {\n\treturn 1", "newText": "func A() int {\n\treturn 2"}}})
	for _, w := range []string{"--- " + p, "+++ " + p, "@@ -1,7 +1,7 @@", "-\treturn 1\n+\treturn 2\n", " func A() int {\n"} {
		if !strings.Contains(diff, w) {
			t.Errorf("dry-run diff lacks %q:\n%s", w, diff)
		}
	}
	if readDisk(t, p) != orig {
		t.Fatal("dry run changed the file")
	}

	// Absent and ambiguous: nothing written, a message that says why.
	s.fails("edit_file", map[string]any{"path": "e.go", "edits": []map[string]any{{"oldText": "return 3", "newText": "x"}}}, "not found", "nothing was written")
	s.fails("edit_file", map[string]any{"path": "e.go", "edits": []map[string]any{{"oldText": "return 1", "newText": "x"}}},
		"occurs 2 times", "lines 4, 8", "replace_all", "expected_replacements to 2")
	s.fails("edit_file", map[string]any{"path": "e.go", "edits": []map[string]any{{"oldText": "func  A()  int", "newText": "x"}}}, "whitespace")
	s.fails("edit_file", map[string]any{"path": "e.go", "edits": []map[string]any{{"oldText": "", "newText": "x"}}}, "empty")
	s.fails("edit_file", map[string]any{"path": "e.go", "edits": []map[string]any{}}, "empty")
	// A later edit failing leaves the file as it was: all or nothing.
	s.fails("edit_file", map[string]any{"path": "e.go", "edits": []map[string]any{
		{"oldText": "package e", "newText": "package f"}, {"oldText": "absent", "newText": "x"}}}, "edit 2")
	if readDisk(t, p) != orig {
		t.Fatal("a failed edit changed the file")
	}

	// Real edits, in order, the second seeing the first's result
	// (replaceAll, the earlier spelling of replace_all, still works).
	diff = s.ok("edit_file", map[string]any{"path": "e.go", "edits": []map[string]any{
		{"oldText": "return 1", "newText": "return 7", "replaceAll": true},
		{"oldText": "func B() int {\n\treturn 7", "newText": "func B() int {\n\treturn 8"},
	}})
	want := "package e\n\nfunc A() int {\n\treturn 7\n}\n\nfunc B() int {\n\treturn 8\n}\n"
	if got := readDisk(t, p); got != want {
		t.Fatalf("after edit:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(diff, "+\treturn 8\n") || !strings.Contains(diff, "-\treturn 1\n") {
		t.Errorf("diff:\n%s", diff)
	}

	// CRLF files: the hint names the line endings.
	mustWrite(t, filepath.Join(s.ws, "crlf.txt"), "a\r\nb\r\n")
	s.fails("edit_file", map[string]any{"path": "crlf.txt", "edits": []map[string]any{{"oldText": "a\nb", "newText": "x"}}}, "CRLF")
	// Bytes that are not UTF-8 would be mangled by a text edit: refused.
	mustWrite(t, filepath.Join(s.ws, "bin"), "a\xffb")
	s.fails("edit_file", map[string]any{"path": "bin", "edits": []map[string]any{{"oldText": "a", "newText": "c"}}}, "not valid UTF-8")
	if readDisk(t, filepath.Join(s.ws, "bin")) != "a\xffb" {
		t.Fatal("edit of a binary file changed it")
	}
	s.fails("edit_file", map[string]any{"path": "../out/secret", "edits": []map[string]any{{"oldText": "secret", "newText": "x"}}}, "outside")
	s.fails("edit_file", map[string]any{"path": "nope.go", "edits": []map[string]any{{"oldText": "a", "newText": "b"}}}, "does not exist", "e.go")
}

// TestEditFileCounts: an oldText that occurs more than once is replaced
// only when the edit says so, with replace_all (every occurrence) or
// expected_replacements (every occurrence, and only if there are that
// many); one that matches only when whitespace is ignored is refused, not
// guessed at. Each refusal writes nothing and names the count.
func TestEditFileCounts(t *testing.T) {
	s := start(t, startOpts{})
	p := filepath.Join(s.ws, "c.txt")
	orig := "x = 1\ny = 1\nz = 2\n"
	edit := func(e map[string]any) map[string]any {
		return map[string]any{"path": "c.txt", "edits": []map[string]any{e}}
	}
	reset := func() { mustWrite(t, p, orig) }
	reset()

	// Twice, nothing said: refused, with the count and both arguments.
	s.fails("edit_file", edit(map[string]any{"oldText": "= 1", "newText": "= 9"}), "occurs 2 times", "lines 1, 2", "replace_all", "expected_replacements to 2")
	// The wrong count: refused, naming both counts.
	s.fails("edit_file", edit(map[string]any{"oldText": "= 1", "newText": "= 9", "expected_replacements": 3}), "occurs 2 times", "not the 3")
	s.fails("edit_file", edit(map[string]any{"oldText": "= 2", "newText": "= 9", "expected_replacements": 2}), "occurs 1 times", "not the 2")
	s.fails("edit_file", edit(map[string]any{"oldText": "= 1", "newText": "= 9", "expected_replacements": -1}), "positive")
	// replace_all with a count that does not hold: the count wins.
	s.fails("edit_file", edit(map[string]any{"oldText": "= 1", "newText": "= 9", "replace_all": true, "expected_replacements": 1}), "occurs 2 times", "not the 1")
	// Whitespace only: refused with the hint, not matched loosely.
	s.fails("edit_file", edit(map[string]any{"oldText": "y  =  1", "newText": "y = 3"}), "not found", "differs only in whitespace")
	if got := readDisk(t, p); got != orig {
		t.Fatalf("a refused edit changed the file: %q", got)
	}

	for _, c := range []struct {
		name string
		e    map[string]any
		want string
	}{
		{"replace_all", map[string]any{"oldText": "= 1", "newText": "= 9", "replace_all": true}, "x = 9\ny = 9\nz = 2\n"},
		{"expected_replacements 2", map[string]any{"oldText": "= 1", "newText": "= 9", "expected_replacements": 2}, "x = 9\ny = 9\nz = 2\n"},
		{"both, agreeing", map[string]any{"oldText": "= 1", "newText": "= 9", "replace_all": true, "expected_replacements": 2}, "x = 9\ny = 9\nz = 2\n"},
		{"expected_replacements 1", map[string]any{"oldText": "= 2", "newText": "= 8", "expected_replacements": 1}, "x = 1\ny = 1\nz = 8\n"},
		{"replace_all of one", map[string]any{"oldText": "z", "newText": "w", "replace_all": true}, "x = 1\ny = 1\nw = 2\n"},
		{"once, unique", map[string]any{"oldText": "y = 1", "newText": "y = 5"}, "x = 1\ny = 5\nz = 2\n"},
	} {
		reset()
		s.ok("edit_file", edit(c.e))
		if got := readDisk(t, p); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCreateDirectory(t *testing.T) {
	s := start(t, startOpts{})
	s.ok("create_directory", map[string]any{"path": "a/b/c"})
	if fi, err := os.Stat(filepath.Join(s.ws, "a/b/c")); err != nil || !fi.IsDir() {
		t.Fatalf("a/b/c: %v", err)
	}
	s.ok("create_directory", map[string]any{"path": "a/b/c"}) // exists: fine
	mustWrite(t, filepath.Join(s.ws, "f"), "x")
	s.fails("create_directory", map[string]any{"path": "f"}, "already exists")
	s.fails("create_directory", map[string]any{"path": "../out/d"}, "outside")
	s.fails("create_directory", map[string]any{"path": "../wsx/d"}, "outside")
	if _, err := os.Stat(filepath.Join(s.dir, "out", "d")); err == nil {
		t.Fatal("created outside")
	}
}

func TestRemoveFile(t *testing.T) {
	s := start(t, startOpts{})
	mustWrite(t, filepath.Join(s.ws, "f"), "x")
	mustWrite(t, filepath.Join(s.ws, "target"), "t")
	os.Symlink("target", filepath.Join(s.ws, "link"))
	os.Symlink("../out/secret", filepath.Join(s.ws, "outlink"))
	os.Mkdir(filepath.Join(s.ws, "d"), 0o755)

	s.ok("remove_file", map[string]any{"path": "f"})
	if _, err := os.Stat(filepath.Join(s.ws, "f")); !os.IsNotExist(err) {
		t.Fatal("f still there")
	}
	s.ok("remove_file", map[string]any{"path": "link"})
	if readDisk(t, filepath.Join(s.ws, "target")) != "t" {
		t.Fatal("removing a link touched its target")
	}
	// A link leading out is removed as a link; its target stays.
	s.ok("remove_file", map[string]any{"path": "outlink"})
	if readDisk(t, filepath.Join(s.dir, "out", "secret")) != "the secret outside" {
		t.Fatal("the target outside changed")
	}
	s.fails("remove_file", map[string]any{"path": "f"}, "does not exist", "target")
	s.fails("remove_file", map[string]any{"path": "d"}, "directory")
	s.fails("remove_file", map[string]any{"path": "../out/secret"}, "outside")
	if readDisk(t, filepath.Join(s.dir, "out", "secret")) != "the secret outside" {
		t.Fatal("removed outside")
	}
}

func TestMoveFile(t *testing.T) {
	s := start(t, startOpts{})
	mustWrite(t, filepath.Join(s.ws, "a.txt"), "A")
	mustWrite(t, filepath.Join(s.ws, "b.txt"), "B")
	os.MkdirAll(filepath.Join(s.ws, "dir/sub"), 0o755)

	got := s.ok("move_file", map[string]any{"source": "a.txt", "destination": "dir/c.txt"})
	if !strings.Contains(got, filepath.Join(s.ws, "dir/c.txt")) {
		t.Errorf("move_file said %q", got)
	}
	if readDisk(t, filepath.Join(s.ws, "dir/c.txt")) != "A" {
		t.Fatal("not moved")
	}
	// Across roots.
	s.ok("move_file", map[string]any{"source": "dir/c.txt", "destination": filepath.Join(s.ws2, "c.txt")})
	if readDisk(t, filepath.Join(s.ws2, "c.txt")) != "A" {
		t.Fatal("not moved across roots")
	}
	// A directory.
	s.ok("move_file", map[string]any{"source": "dir", "destination": "dir2"})
	if fi, err := os.Stat(filepath.Join(s.ws, "dir2/sub")); err != nil || !fi.IsDir() {
		t.Fatal("directory not moved")
	}
	s.fails("move_file", map[string]any{"source": "b.txt", "destination": "dir2"}, "exists", "never replaces")
	mustWrite(t, filepath.Join(s.ws, "c.txt"), "C")
	s.fails("move_file", map[string]any{"source": "b.txt", "destination": "c.txt"}, "exists")
	if readDisk(t, filepath.Join(s.ws, "c.txt")) != "C" || readDisk(t, filepath.Join(s.ws, "b.txt")) != "B" {
		t.Fatal("a refused move changed a file")
	}
	s.fails("move_file", map[string]any{"source": "dir2", "destination": "dir2/sub/x"}, "into itself")
	s.fails("move_file", map[string]any{"source": "nope", "destination": "x"}, "does not exist")
	s.fails("move_file", map[string]any{"source": "b.txt", "destination": "nodir/x"}, "does not exist")
	s.fails("move_file", map[string]any{"source": ".", "destination": "x"}, "cannot be moved")
	// Out of the jail, either end: refused, nothing moved.
	s.fails("move_file", map[string]any{"source": "b.txt", "destination": "../out/b.txt"}, "outside", s.ws)
	s.fails("move_file", map[string]any{"source": "../out/secret", "destination": "stolen"}, "outside")
	if readDisk(t, filepath.Join(s.ws, "b.txt")) != "B" || readDisk(t, filepath.Join(s.dir, "out/secret")) != "the secret outside" {
		t.Fatal("an escaping move moved something")
	}
	for _, p := range []string{filepath.Join(s.dir, "out/b.txt"), filepath.Join(s.ws, "stolen")} {
		if _, err := os.Lstat(p); err == nil {
			t.Fatalf("%s exists", p)
		}
	}
}

func TestStat(t *testing.T) {
	s := start(t, startOpts{})
	mustWrite(t, filepath.Join(s.ws, "f"), "12345")
	res, err := s.callRaw("stat", map[string]any{"path": "f"})
	if err != nil || res.IsError {
		t.Fatalf("stat: %v %s", err, resultText(res))
	}
	var fi mcpserver.FileInfo
	structured(t, res, &fi)
	if fi.Path != filepath.Join(s.ws, "f") || fi.Size != 5 || fi.IsDir || fi.Mode != "-rw-r--r--" || fi.ModTime == "" {
		t.Errorf("stat = %+v", fi)
	}
	if !strings.Contains(resultText(res), "file, 5 bytes") {
		t.Errorf("stat text %q", resultText(res))
	}
	res, _ = s.callRaw("stat", map[string]any{"path": "."})
	structured(t, res, &fi)
	if !fi.IsDir || fi.Path != s.ws {
		t.Errorf("stat . = %+v", fi)
	}
	s.fails("stat", map[string]any{"path": "g"}, "does not exist", "f")
	s.fails("stat", map[string]any{"path": "../out/secret"}, "outside")
}

// serverGit is the git world of the server start runs for the workspace
// ws (its HOME and XDG_CONFIG_HOME), so git and the server judge alike.
func serverGit(ws string) *gittest.Env {
	home := filepath.Join(filepath.Dir(ws), "home")
	return gittest.At(home, filepath.Join(home, ".config"))
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	gittest.Skip(t)
	serverGit(dir).Init(t, dir)
}

// gitWalkListing is what the walk tool should print for dir by default,
// computed by git: the files of `git ls-files -co --exclude-standard`
// (dot-files included), and each directory holding one, with a trailing
// slash, sorted.
func gitWalkListing(t *testing.T, dir string) string { return gitListing(t, dir, true) }

// gitWalkListingNoDots is gitWalkListing without dot-files: what walk
// prints with hidden: false.
func gitWalkListingNoDots(t *testing.T, dir string) string { return gitListing(t, dir, false) }

func gitListing(t *testing.T, dir string, dots bool) string {
	t.Helper()
	out := serverGit(dir).Git(t, dir, "ls-files", "-z", "-co", "--exclude-standard")
	set := map[string]bool{}
	for _, f := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		if f == "" || (!dots && (strings.HasPrefix(f, ".") || strings.Contains(f, "/."))) {
			continue
		}
		set[f] = true
		for d := filepath.Dir(f); d != "."; d = filepath.Dir(d) {
			set[d+"/"] = true
		}
	}
	var lines []string
	for k := range set {
		lines = append(lines, k)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// gitIgnores asks git whether it ignores path (relative to dir).
func gitIgnores(t *testing.T, dir, path string) bool {
	t.Helper()
	_, code := serverGit(dir).Run(t, dir, "", "check-ignore", "-q", "--no-index", path)
	switch code {
	case 0:
		return true
	case 1:
		return false
	}
	t.Fatalf("git check-ignore %s: exit %d", path, code)
	return false
}

func TestListDirectory(t *testing.T) {
	s := start(t, startOpts{})
	gitInit(t, s.ws)
	mustWrite(t, filepath.Join(s.ws, ".gitignore"), "ignored.log\n")
	mustWrite(t, filepath.Join(s.ws, "ignored.log"), "x")
	mustWrite(t, filepath.Join(s.ws, "a"), "x")
	mustWrite(t, filepath.Join(s.ws, "sub/b"), "x")
	got := s.ok("list_directory", map[string]any{"path": "."})
	want := ".gitignore\na\nignored.log\nsub/\n"
	if got != want {
		t.Errorf("list_directory . = %q, want %q", got, want)
	}
	if got := s.ok("list_directory", map[string]any{"path": "sub"}); got != "b\n" {
		t.Errorf("list_directory sub = %q", got)
	}
	os.Mkdir(filepath.Join(s.ws, "empty"), 0o755)
	if got := s.ok("list_directory", map[string]any{"path": "empty"}); !strings.Contains(got, "is empty") {
		t.Errorf("list_directory empty = %q", got)
	}
	s.fails("list_directory", map[string]any{"path": "a"}, "not a directory")
	s.fails("list_directory", map[string]any{"path": "nope"}, "does not exist")
	txt := s.fails("list_directory", map[string]any{"path": "../out"}, "outside")
	if strings.Contains(txt, "secret") {
		t.Fatal("listed outside")
	}
}

func TestWalk(t *testing.T) {
	s := start(t, startOpts{})
	gitInit(t, s.ws)
	mustWrite(t, filepath.Join(s.ws, ".gitignore"), "*.log\nbuild/\n")
	for _, f := range []string{"a.go", "x.log", "build/out", "src/b.go", "src/deep/c.go", ".hidden", ".github/workflows/ci.yml", "src/.env"} {
		mustWrite(t, filepath.Join(s.ws, f), "x")
	}
	// git's view by default, dot-files in, as the CLI's walk.
	got := s.ok("walk", map[string]any{})
	if want := gitWalkListing(t, s.ws); got != want {
		t.Errorf("walk = %q, want (from git) %q", got, want)
	}
	if !strings.Contains(got, ".github/workflows/ci.yml\n") {
		t.Errorf("walk lacks .github/workflows/ci.yml: %q", got)
	}
	got = s.ok("walk", map[string]any{"hidden": false})
	if want := gitWalkListingNoDots(t, s.ws); got != want {
		t.Errorf("walk hidden false = %q, want (from git, no dot-files) %q", got, want)
	}
	got = s.ok("walk", map[string]any{"path": "src", "maxDepth": 1})
	if want := ".env\nb.go\ndeep/\n"; got != want {
		t.Errorf("walk src depth 1 = %q, want %q", got, want)
	}
	got = s.ok("walk", map[string]any{"hidden": true, "noIgnore": true})
	for _, w := range []string{".gitignore\n", ".hidden\n", "x.log\n", "build/out\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("walk hidden noIgnore lacks %q: %q", w, got)
		}
	}
	if strings.Contains(got, ".git/") {
		t.Errorf(".git listed: %q", got)
	}
	got = s.ok("walk", map[string]any{"maxEntries": 2, "hidden": false})
	if lines := strings.Split(strings.TrimSpace(got), "\n"); len(lines) != 3 || lines[0] != "a.go" || lines[1] != "src/" || !strings.Contains(lines[2], "more follow") {
		t.Errorf("walk maxEntries 2 = %q", got)
	}
	// An empty answer says what was left out.
	mustWrite(t, filepath.Join(s.ws, "logs/a.log"), "x")
	if got := s.ok("walk", map[string]any{"path": "logs"}); !strings.Contains(got, "nothing under") || !strings.Contains(got, "noIgnore: true") {
		t.Errorf("walk of a directory of ignored files does not say what it left out: %q", got)
	}
	s.fails("walk", map[string]any{"path": "nope"}, "does not exist")
	s.fails("walk", map[string]any{"maxDepth": -1}, "negative")
	txt := s.fails("walk", map[string]any{"path": ".."}, "outside")
	if strings.Contains(txt, "secret") {
		t.Fatal("walked outside")
	}
}

func TestCheckIgnore(t *testing.T) {
	s := start(t, startOpts{})
	gitInit(t, s.ws)
	mustWrite(t, filepath.Join(s.ws, ".gitignore"), "*.log\nbuild/\n")
	paths := []string{"a.log", "a.go", "build/", "build/x"}
	got := s.ok("check_ignore", map[string]any{"paths": append(paths, "../out/secret")})
	want := []string{"../out/secret: error: ../out/secret is outside"}
	for _, p := range paths {
		verdict := "not ignored"
		if gitIgnores(t, s.ws, p) {
			verdict = "ignored"
		}
		want = append(want, p+": "+verdict+"\n")
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("check_ignore lacks %q: %q", w, got)
		}
	}
	s.fails("check_ignore", map[string]any{"paths": []string{"../x"}}, "outside")
	s.fails("check_ignore", map[string]any{"paths": []string{}}, "empty")
}

func TestListRoots(t *testing.T) {
	s := start(t, startOpts{})
	res, err := s.callRaw("list_roots", nil)
	if err != nil || res.IsError {
		t.Fatal(err, resultText(res))
	}
	var out mcpserver.RootsOut
	structured(t, res, &out)
	if !slices.Equal(out.Roots, []string{s.ws, s.ws2}) {
		t.Errorf("roots = %v", out.Roots)
	}
	if !strings.Contains(resultText(res), s.ws+" (workspace root)") {
		t.Errorf("list_roots text %q", resultText(res))
	}
}

func TestExec(t *testing.T) {
	s := start(t, startOpts{args: []string{"--allow-exec"}})
	os.Mkdir(filepath.Join(s.ws, "sub"), 0o755)
	res, err := s.callRaw("exec", map[string]any{"command": "pwd; echo err >&2; exit 3", "cwd": "sub"})
	if err != nil || res.IsError {
		t.Fatal(err, resultText(res))
	}
	var out mcpserver.ExecOut
	structured(t, res, &out)
	if out.ExitCode != 3 || out.Stdout != filepath.Join(s.ws, "sub")+"\n" || out.Stderr != "err\n" {
		t.Errorf("exec = %+v", out)
	}
	if txt := resultText(res); !strings.HasPrefix(txt, "exit code 3") || !strings.Contains(txt, "--- stderr\nerr\n") {
		t.Errorf("exec text %q", txt)
	}
	structuredCall := func(name string, args map[string]any) mcpserver.ExecOut {
		res, err := s.callRaw(name, args)
		if err != nil || res.IsError {
			t.Fatal(err, resultText(res))
		}
		var out mcpserver.ExecOut
		structured(t, res, &out)
		return out
	}
	if out := structuredCall("exec", map[string]any{"command": "sleep 5", "timeoutMs": 200}); !out.TimedOut {
		t.Errorf("timeout: %+v", out)
	}
	if out := structuredCall("run_capture", map[string]any{"program": "printf", "args": []string{"%s|", "a b", "*"}}); out.Stdout != "a b|*|" {
		t.Errorf("run_capture = %+v", out)
	}
	s.fails("run_capture", map[string]any{"program": "no-such-program-xyz"}, "not found")
	s.fails("exec", map[string]any{"command": "touch x", "cwd": "../out"}, "not started", "outside")
	s.fails("exec", map[string]any{"command": "true", "cwd": "nope"}, "not started", "does not exist")
	mustWrite(t, filepath.Join(s.ws, "file"), "x")
	s.fails("exec", map[string]any{"command": "true", "cwd": "file"}, "not started", "not a directory")
	s.fails("exec", map[string]any{"command": " "}, "empty")
	s.fails("run_capture", map[string]any{"program": "true", "cwd": "/"}, "outside")
	if _, err := os.Stat(filepath.Join(s.dir, "out", "x")); err == nil {
		t.Fatal("exec ran outside")
	}
}

func TestSendUserFile(t *testing.T) {
	s := start(t, startOpts{})
	mustWrite(t, filepath.Join(s.ws2, "report.txt"), "report")
	mustWrite(t, filepath.Join(s.ws, "local.txt"), "local")
	res, err := s.callRaw("send_user_file", map[string]any{"files": []string{filepath.Join(s.ws2, "report.txt"), "local.txt"}})
	if err != nil || res.IsError {
		t.Fatal(err, resultText(res))
	}
	var out mcpserver.SendOut
	structured(t, res, &out)
	if out.Staged != 1 || out.Kept != 0 || out.BytesStaged != 6 || len(out.Files) != 2 {
		t.Fatalf("send_user_file = %+v", out)
	}
	if !strings.HasPrefix(out.Files[0], filepath.Join(s.ws, ".agent-harness", "outbox")+"/") || readDisk(t, out.Files[0]) != "report" {
		t.Errorf("staged copy %q", out.Files[0])
	}
	if out.Files[1] != filepath.Join(s.ws, "local.txt") {
		t.Errorf("inside file became %q", out.Files[1])
	}
	// Outside the roots: refused before anything is copied.
	s.fails("send_user_file", map[string]any{"files": []string{filepath.Join(s.dir, "out", "secret")}}, "outside")
	s.fails("send_user_file", map[string]any{"files": []string{"~/.ssh/id_rsa"}}, "outside")
	s.fails("send_user_file", map[string]any{"files": []string{"nope"}}, "does not exist")
	s.fails("send_user_file", map[string]any{"files": []string{"."}}, "directory")
	s.fails("send_user_file", map[string]any{"files": []string{}}, "empty")
	filepath.Walk(filepath.Join(s.ws, ".agent-harness"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && readDisk(t, p) == "the secret outside" {
			t.Errorf("a file from outside was staged: %s", p)
		}
		return nil
	})
}

// TestRawInitialize speaks JSON-RPC lines to the process with no SDK: the
// first line back is the initialize result (nothing is sent before it), and
// a tools/list sent at once, while the tools may still be registering, is
// complete.
func TestRawInitialize(t *testing.T) {
	ws := t.TempDir()
	for range 5 {
		cmd := exec.Command(bin, "mcp", "--root", ws)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
		r := bufio.NewReader(stdout)
		first, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(first, `{"jsonrpc":"2.0","id":1,"result":`) {
			t.Fatalf("first line %q, %v", first, err)
		}
		var init struct {
			Result struct {
				ProtocolVersion string         `json:"protocolVersion"`
				Capabilities    map[string]any `json:"capabilities"`
			} `json:"result"`
		}
		json.Unmarshal([]byte(first), &init)
		if init.Result.ProtocolVersion != "2025-06-18" || init.Result.Capabilities["tools"] == nil || init.Result.Capabilities["resources"] == nil {
			t.Fatalf("initialize result %s", first)
		}
		second, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("tools/list: no reply: %v", err)
		}
		var list struct {
			ID     int `json:"id"`
			Result struct {
				Tools []struct{ Name string } `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(second), &list); err != nil || list.ID != 2 || len(list.Result.Tools) != len(fileTools) {
			t.Fatalf("tools/list: %v %s", err, second)
		}
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("agent-host mcp exited with %v after stdin closed", err)
		}
	}
}
