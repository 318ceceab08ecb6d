package main

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/agenthost/agenthost/internal/gittest"
)

// gitWorld puts the test and the git it runs in one isolated git
// configuration (internal/gittest): the CLI runs in-process and reads
// os.Getenv, so the process environment is set too.
// writeFiles creates each file (and its parent directories) below dir
// with its body.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

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
	writeFiles(t, dir, files)
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

// TestCheckIgnoreFlagsAgreeWithGit: check-ignore's output and exit status
// are git check-ignore's, byte for byte, for -v, -v -n, -q, --no-index,
// --stdin and -z, with tracked files the rules ignore, negations, nested
// and global rules, and from a subdirectory.
func TestCheckIgnoreFlagsAgreeWithGit(t *testing.T) {
	g := gitWorld(t)
	dir := filepath.Join(filepath.Dir(g.Home), "repo")
	g.Init(t, dir)
	files := map[string]string{
		".gitignore":     "*.log\n!keep.log\nbuild/\n# comment\n  \nspace\\ \n",
		"sub/.gitignore": "*.tmp\n!/local/\n",
		"a.go":           "", "x.log": "", "keep.log": "", "tracked.log": "", "build/out": "", "sub/c.tmp": "",
		"sub/local/d.tmp": "", "sub/e.go": "", "odd\tname.log": "",
	}
	writeFiles(t, dir, files)
	os.MkdirAll(filepath.Join(g.XDG, "git"), 0o755)
	os.WriteFile(filepath.Join(g.XDG, "git", "ignore"), []byte("*.md\n"), 0o644)
	g.Git(t, dir, "add", "-f", "tracked.log", "build/out")

	paths := []string{"x.log", "keep.log", "tracked.log", "build/out", "build/new", "sub/c.tmp", "sub/local/d.tmp", "a.go", "README.md", "missing.log", "odd\tname.log", "sub/", "build/"}
	cases := [][]string{
		{"check-ignore"},
		{"check-ignore", "-v"},
		{"check-ignore", "-v", "-n"},
		{"check-ignore", "--no-index"},
		{"check-ignore", "-v", "--no-index", "-n"},
		{"check-ignore", "--verbose", "--non-matching"},
	}
	for _, sub := range []string{"", "sub"} {
		wd := filepath.Join(dir, sub)
		t.Chdir(wd)
		root := []string{"--root", dir} // the jail's default root is the working directory
		ps := paths
		if sub != "" {
			ps = []string{"c.tmp", "local/d.tmp", "e.go", "../x.log", "../tracked.log", "local/"}
		}
		for _, c := range cases {
			args := append(append([]string{}, c...), ps...)
			gout, gcode := g.Run(t, wd, "", args...)
			code, out, errs := runCLI(t, "", withRoot(args, root)...)
			if code != gcode || out != gout {
				t.Errorf("in %q, %v:\nagent-host exit %d:\n%s(%s)\ngit exit %d:\n%s", sub, args, code, out, errs, gcode, gout)
			}
			// The same through --stdin, and with -z.
			sargs := append(append([]string{}, c...), "--stdin")
			gout, gcode = g.Run(t, wd, strings.Join(ps, "\n")+"\n", sargs...)
			code, out, errs = runCLI(t, strings.Join(ps, "\n")+"\n", withRoot(sargs, root)...)
			if code != gcode || out != gout {
				t.Errorf("in %q, %v --stdin:\nagent-host exit %d:\n%q (%s)\ngit exit %d:\n%q", sub, c, code, out, errs, gcode, gout)
			}
			zargs := append(sargs, "-z")
			gout, gcode = g.Run(t, wd, strings.Join(ps, "\x00")+"\x00", zargs...)
			code, out, errs = runCLI(t, strings.Join(ps, "\x00")+"\x00", withRoot(zargs, root)...)
			if code != gcode || out != gout {
				t.Errorf("in %q, %v:\nagent-host exit %d:\n%q (%s)\ngit exit %d:\n%q", sub, zargs, code, out, errs, gcode, gout)
			}
		}
	}
	t.Chdir(dir)
	// -q: the exit status only; and git's fatal errors exit 128.
	for _, args := range [][]string{
		{"check-ignore", "-q", "x.log"}, {"check-ignore", "-q", "a.go"}, {"check-ignore", "-q", "tracked.log"},
		{"check-ignore", "-n", "x.log"}, {"check-ignore"}, {"check-ignore", "-q", "a.go", "x.log"},
		{"check-ignore", "--stdin", "x.log"}, {"check-ignore", "-q", "-v", "x.log"},
	} {
		gout, gcode := g.Run(t, dir, "", args...)
		code, out, _ := runCLI(t, "", args...)
		if code != gcode || out != gout {
			t.Errorf("%v: agent-host exit %d %q, git exit %d %q", args, code, out, gcode, gout)
		}
	}
	if code, _, _ := runCLI(t, "", "check-ignore", "../outside"); code != 128 {
		t.Errorf("a path outside the jail: exit %d, want 128 as git's fatal error", code)
	}
}

// withRoot puts flags right after the subcommand's name in args.
func withRoot(args, flags []string) []string {
	return append(append(append([]string{}, args[0]), flags...), args[1:]...)
}

// TestWalkThisRepository: agent-host walk with no flags prints exactly the
// set git ls-files -co --exclude-standard prints for this repository
// (dot-files and tracked files the rules ignore included), but for
// tracked files deleted from disk, which are not there to list.
func TestWalkThisRepository(t *testing.T) {
	g := gitWorld(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	top, code := g.Run(t, wd, "", "rev-parse", "--show-toplevel")
	if code != 0 {
		t.Skip("not in a git checkout")
	}
	top = strings.TrimSpace(top)
	out := g.Git(t, top, "ls-files", "-z", "-co", "--exclude-standard")
	var want []string
	for _, f := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		if _, err := os.Lstat(filepath.Join(top, f)); err == nil && f != "" {
			want = append(want, f)
		}
	}
	sort.Strings(want)
	want = slices.Compact(want) // an unmerged path is listed once per stage
	if len(want) < 50 {
		t.Fatalf("git lists only %d files: not this repository?", len(want))
	}
	t.Chdir(top)
	code, got, errs := runCLI(t, "", "walk", "-0")
	if code != 0 {
		t.Fatalf("walk: exit %d: %s", code, errs)
	}
	g2 := strings.Split(strings.TrimRight(got, "\x00"), "\x00")
	sort.Strings(g2)
	if strings.Join(g2, "\n") != strings.Join(want, "\n") {
		t.Fatalf("agent-host walk and git ls-files -co --exclude-standard differ:\n%s", setDiff(want, g2))
	}
}

// setDiff lists what only one of two sorted lists holds.
func setDiff(want, got []string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, s := range want {
		w[s] = true
	}
	for _, s := range got {
		g[s] = true
	}
	var b strings.Builder
	for _, s := range want {
		if !g[s] {
			b.WriteString("  missing: " + s + "\n")
		}
	}
	for _, s := range got {
		if !w[s] {
			b.WriteString("  extra:   " + s + "\n")
		}
	}
	return b.String()
}

// TestWalkFlags: -g/--glob as ripgrep reads them, several PATHs, --sort,
// --no-hidden and -u.
func TestWalkFlags(t *testing.T) {
	g := gitWorld(t)
	dir := filepath.Join(filepath.Dir(g.Home), "repo")
	g.Init(t, dir)
	writeFiles(t, dir, map[string]string{".gitignore": "*.log\n", "a.go": "", "b.txt": "", "x.log": "", ".env": "",
		"src/c.go": "", "src/d.txt": "", "src/gen/e.go": "", "docs/f.md": ""})
	os.Symlink("src", filepath.Join(dir, "lnk"))
	os.Symlink("..", filepath.Join(dir, "src", "up"))
	os.Symlink(filepath.Dir(g.Home), filepath.Join(dir, "outside"))
	t.Chdir(dir)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--sort", "-L", "-g", "*.go", "-g", "!gen/"}, "a.go lnk/c.go src/c.go"},
		{[]string{"--sort", "--follow", "-g", "out*"}, "outside"}, // leads out of the root: a file
		{[]string{"--sort"}, ".env .gitignore a.go b.txt docs/f.md lnk outside src/c.go src/d.txt src/gen/e.go src/up"},
		{[]string{"--sort=path", "-g", "*.go"}, "a.go src/c.go src/gen/e.go"},
		{[]string{"--sort=path", "-g", "*.go", "-g", "!gen/"}, "a.go src/c.go"},
		{[]string{"--sort=path", "--glob", "!*.txt", "--no-hidden"}, "a.go docs/f.md lnk outside src/c.go src/gen/e.go src/up"},
		{[]string{"--sort=path", "-g", "/*.go"}, "a.go"},
		{[]string{"--sort=path", "-g", "src/**/*.go"}, "src/c.go src/gen/e.go"},
		{[]string{"--sort=path", "-g", "*.{md,txt}"}, "b.txt docs/f.md src/d.txt"},
		{[]string{"--sort=path", "-u", "-g", "*.log"}, "x.log"},
		{[]string{"--sort=path", "src", "docs"}, "docs/f.md src/c.go src/d.txt src/gen/e.go src/up"},
		{[]string{"--sort=none", "--no-hidden", "docs"}, "docs/f.md"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(t, "", append([]string{"walk"}, c.args...)...)
		got := strings.Join(strings.Fields(out), " ")
		if code != 0 || got != c.want {
			t.Errorf("walk %v: exit %d %q (%s), want %q", c.args, code, got, errs, c.want)
		}
	}
	if code, _, _ := runCLI(t, "", "walk", "--sort=size"); code != 2 {
		t.Errorf("--sort=size: exit %d, want 2", code)
	}
}

// worlds holds each test's git world for gitRun.
var worlds sync.Map // *testing.T -> *gittest.Env

// gitRun runs git in dir in the test's isolated git world, which the
// in-process CLI shares (the first call in a test sets the process
// environment; see gitWorld): it returns git's output and exit code.
func gitRun(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	g, ok := worlds.Load(t)
	if !ok {
		g = gitWorld(t)
		worlds.Store(t, g)
		t.Cleanup(func() { worlds.Delete(t) })
	}
	return g.(*gittest.Env).Run(t, dir, "", args...)
}
