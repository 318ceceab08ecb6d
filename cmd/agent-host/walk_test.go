package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// gitRun runs git in dir with the user's and the system's config shut out.
func gitRun(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out), 0
}

// TestWalkAndCheckIgnoreAgreeWithGit: agent-host walk --hidden lists what
// git ls-files -co --exclude-standard lists, and check-ignore prints and
// exits like git check-ignore.
func TestWalkAndCheckIgnoreAgreeWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	gitRun(t, dir, "init", "-q")
	files := map[string]string{
		".gitignore":         "*.log\nbuild/\n!keep.log\n",
		"sub/.gitignore":     "local/\n*.tmp\n",
		"a.go":               "",
		"x.log":              "",
		"keep.log":           "",
		"build/out":          "",
		"sub/b.go":           "",
		"sub/c.tmp":          "",
		"sub/local/d":        "",
		"sub/deep/e.go":      "",
		".hidden/f":          "",
		".git/info/exclude2": "",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	t.Chdir(dir)

	out, _ := gitRun(t, dir, "ls-files", "-co", "--exclude-standard")
	want := strings.Fields(out)
	sort.Strings(want)
	if len(want) < 5 {
		t.Fatalf("git lists only %v: the tree was not built", want)
	}
	code, got, errs := runCLI(t, "", "walk", "--hidden", "--sort")
	if code != 0 {
		t.Fatalf("walk: exit %d: %s", code, errs)
	}
	if g := strings.Fields(got); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Fatalf("walk --hidden:\n%s\ngit ls-files -co --exclude-standard:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}

	for i, paths := range [][]string{
		{"x.log", "keep.log", "a.go", "build/out", "sub/c.tmp", "sub/local/d", "missing.log"},
		{"a.go", "sub/b.go"},
	} {
		gout, gcode := gitRun(t, dir, append([]string{"check-ignore", "--no-index"}, paths...)...)
		if gcode != i { // the first batch has ignored paths (0), the second none (1)
			t.Fatalf("git check-ignore %v exited %d: the case does not test what it says", paths, gcode)
		}
		code, out, errs := runCLI(t, "", append([]string{"check-ignore"}, paths...)...)
		if code != gcode || out != gout {
			t.Errorf("check-ignore %v: exit %d %q (%s); git: exit %d %q", paths, code, out, errs, gcode, gout)
		}
	}
}
