package main

import (
	"path/filepath"
	"testing"
)

// TestCheckIgnorePathspecsAsGit: check-ignore reads its arguments as git
// does, as pathspecs: one with glob characters that matches a tracked path
// (with '*' matching '/' too) is not reported, one that matches none is
// judged as a name, and --no-index judges every one as a name. git is the
// oracle, byte for byte, from the top and from a subdirectory.
func TestCheckIgnorePathspecsAsGit(t *testing.T) {
	g := gitWorld(t)
	dir := filepath.Join(filepath.Dir(g.Home), "repo")
	g.Init(t, dir)
	writeFiles(t, dir, map[string]string{"a.log": "", "b.log": "", "sub/c.log": "", "sub/d.log": "", "sub/deep/e.log": "",
		"x.tmp": "", "[ab].log": "", ".gitignore": "*.log\n*.tmp\n"})
	if out, code := g.Run(t, dir, "", "add", "-f", "a.log", "sub/deep/e.log"); code != 0 {
		t.Fatalf("git add: %s", out)
	}
	specs := []string{"*.log", "[ab].log", "b.log", "a.log", "b?log", "sub/*.log", "sub/c*", "s*", "*e.log", "zz*.log",
		`\*.log`, `sub/\*`, "*.tmp", "sub/deep/*", "sub/d.log", "[!a].log", "*"}
	for _, cwd := range []string{dir, filepath.Join(dir, "sub")} {
		t.Chdir(cwd)
		for _, extra := range [][]string{nil, {"-v"}, {"--no-index"}, {"-v", "-n"}} {
			args := append(append([]string{"check-ignore"}, extra...), specs...)
			gout, gcode := g.Run(t, cwd, "", args...)
			code, out, errs := runCLI(t, "", args...)
			if code != gcode || out != gout {
				t.Errorf("in %s, %q: exit %d\n%s(%s)\ngit: exit %d\n%s", filepath.Base(cwd), args, code, out, errs, gcode, gout)
			}
		}
	}
}
