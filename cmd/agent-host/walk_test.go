package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/internal/gittest"
)

// gitWorld puts the test and the git it runs in one isolated git
// configuration (internal/gittest): the CLI runs in-process and reads
// os.Getenv, so the process environment is set too.
func gitWorld(t *testing.T) *gittest.Env {
	t.Helper()
	g := gittest.New(t)
	g.Setenv(t)
	return g
}

// TestWalkAndCheckIgnoreAgreeWithGit: agent-host walk --hidden lists what
// git ls-files -co --exclude-standard lists, and check-ignore prints and
// exits like git check-ignore.
func TestWalkAndCheckIgnoreAgreeWithGit(t *testing.T) {
	g := gitWorld(t)
	dir := filepath.Join(filepath.Dir(g.Home), "repo")
	g.Init(t, dir)
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

	out, _ := g.Run(t, dir, "", "ls-files", "-co", "--exclude-standard")
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
		gout, gcode := g.Run(t, dir, "", append([]string{"check-ignore", "--no-index"}, paths...)...)
		if gcode != i { // the first batch has ignored paths (0), the second none (1)
			t.Fatalf("git check-ignore %v exited %d: the case does not test what it says", paths, gcode)
		}
		code, out, errs := runCLI(t, "", append([]string{"check-ignore"}, paths...)...)
		if code != gcode || out != gout {
			t.Errorf("check-ignore %v: exit %d %q (%s); git: exit %d %q", paths, code, out, errs, gcode, gout)
		}
	}
}
