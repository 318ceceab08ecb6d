package senduserfile

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPyPathsAgreeWithPython: pyRealpath, pyNormpath and pyPurePath give
// what Python gives (python3 is the oracle) on a tree of files, links to
// files, to directories, up, to nowhere and in loops, for paths with
// missing parts, "..", ".", doubled and trailing slashes.
func TestPyPathsAgreeWithPython(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"a/b", "c"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "a/b/f"), []byte("f"), 0o644)
	for link, target := range map[string]string{
		"a/lf":    "b/f",
		"a/ld":    "b",
		"a/up":    "..",
		"a/abs":   filepath.Join(root, "c"),
		"a/none":  "missing/x",
		"loop1":   "loop2",
		"loop2":   "loop1",
		"self":    "self/x",
		"c/chain": "../a/lf",
		"c/dd":    "../../",
	} {
		os.Symlink(target, filepath.Join(root, link))
	}
	var paths []string
	for _, rel := range []string{
		"", "a", "a/b/f", "a/b/f/", "a/b/f/.", "a/b/f/..", "a/lf", "a/lf/", "a/ld/f", "a/ld/../b/f",
		"a/up/a/lf", "a/abs/chain", "a/none", "a/none/..", "a/missing/../b/f", "a/missing/../../a/lf",
		"loop1", "loop1/x/..", "self", "self/y", "c/chain", "c/dd", "c/dd/..", "a//b///f", "./a/./b/f",
		"a/b/f/x", "a/b/f/x/..", "a/b/f/../f", "../../..", "a/../../..",
	} {
		paths = append(paths, root+"/"+rel)
	}
	paths = append(paths, "/", "//", "///", "//x/../y", "/..", "/../x", root+"//a")
	in, _ := json.Marshal(paths)
	cmd := exec.Command("python3", "-c", `import json, os, sys, pathlib
ps = json.load(sys.stdin)
print(json.dumps([[os.path.realpath(p), os.path.normpath(p), str(pathlib.PurePosixPath(p))] for p in ps]))`)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want [][3]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	fast := 0
	for i, p := range paths {
		real, err := pyRealpath(p)
		if err != nil {
			t.Errorf("pyRealpath(%q): %v", p, err)
		}
		got := [3]string{real, pyNormpath(p), pyPurePath(p)}
		if got != want[i] {
			t.Errorf("%q: realpath, normpath, PurePosixPath = %q; python: %q", p, got, want[i])
		}
		// The hook's shortcuts, where the kernel finds no link on the way:
		// the same real path, and for a file the same one opened.
		if r, ok := realNoLinks(p); ok {
			fast++
			if r != want[i][0] {
				t.Errorf("realNoLinks(%q) = %q; python's realpath: %q", p, r, want[i][0])
			}
		}
		if f, r, ok := openSourceNoLinks(p); ok {
			f.Close()
			if r != want[i][0] {
				t.Errorf("openSourceNoLinks(%q) gives %q; python's realpath: %q", p, r, want[i][0])
			}
		}
	}
	// Both answers must occur: the shortcut for the paths without a link,
	// "don't know" for the others (and none where the platform cannot
	// tell).
	if canTellNoLinks && (fast == 0 || fast == len(paths)) {
		t.Errorf("realNoLinks answered for %d of %d paths", fast, len(paths))
	}
}
