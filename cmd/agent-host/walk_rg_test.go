package main

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWalkGlobsAsRipgrep: agent-host walk --no-hidden with -g globs lists
// what rg --files lists with the same globs, ignored and hidden files that
// a glob names included (ripgrep's overrides come before its ignore
// rules). ripgrep is the oracle: the expectations are its output.
func TestWalkGlobsAsRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed: it is this test's oracle (.ci/run installs it)")
	}
	g := gitWorld(t)
	dir := filepath.Join(filepath.Dir(g.Home), "repo")
	g.Init(t, dir)
	files := map[string]string{
		".gitignore":       "build/\n*.log\n/out\n",
		"src/.gitignore":   "gen/\n!keep.log\n",
		"a.go":             "",
		"x.log":            "",
		".env":             "",
		".hd/q.go":         "",
		"build/a.txt":      "",
		"build/sub/b.go":   "",
		"out":              "",
		"src/c.go":         "",
		"src/b.log":        "",
		"src/keep.log":     "",
		"src/.hid.log":     "",
		"src/gen/e.go":     "",
		"src/gen/f.txt":    "",
		"docs/f.md":        "",
		"docs/deep/g.md":   "",
		"docs/deep/h.go":   "",
		"vendor/v.go":      "",
		"vendor/sub/w.log": "",
	}
	writeFiles(t, dir, files)
	t.Chdir(dir)
	globSets := [][]string{
		{"*.log"},
		{".env"},
		{".hd/"},
		{".hd/", ".hd/**"},
		{"*.go", "!src/"},
		{"build/", "build/**"},
		{"build/**"},
		{"!*.go"},
		{"!*.go", "*.log"},
		{"*.log", "!src/**"},
		{"gen/"},
		{"src/gen/**", "src/gen/"},
		{"/out"},
		{"out"},
		{"*.{md,go}", "!deep/"},
		{"**/*.log"},
		{"!vendor/", "*.log"},
		{"docs/**", "!*.md"},
	}
	for _, gs := range globSets {
		var args []string
		for _, gl := range gs {
			args = append(args, "-g", gl)
		}
		cmd := exec.Command(rg, append([]string{"--files"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil && len(out) > 0 {
			t.Fatalf("rg --files %q: %v", args, err)
		}
		want := sortedFields(string(out))
		code, got, errs := runCLI(t, "", append([]string{"walk", "--no-hidden"}, args...)...)
		if code != 0 {
			t.Errorf("walk %q: exit %d (%s)", args, code, errs)
			continue
		}
		if g := sortedFields(got); !slices.Equal(g, want) {
			t.Errorf("walk --no-hidden %q:\n got %q\nwant %q (rg --files)", args, g, want)
		}
	}
}

func sortedFields(s string) []string {
	f := strings.Fields(s)
	slices.Sort(f)
	return f
}
