package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWalkDirsAreGitsUnignoredDirectories (issue 25): walk --dirs lists a
// directory whose files are all ignored (logs/ holding only a.log), an
// empty one, and one holding only such a directory, where git status and
// git ls-files --directory --no-empty-directory show nothing. That is by
// design: a directory is listed unless a rule ignores it or a directory
// above it (git's own rule for directories: git check-ignore does not
// ignore logs/, and git ls-files -o --directory --exclude-standard lists
// logs/ and empty/ too), not by whether something below survives the
// rules, which a walk that streams in path order could only learn by
// reading every directory below before printing it. git is the oracle:
// the directories are those of the tree that git check-ignore --no-index
// does not ignore, the files those of git ls-files -co --exclude-standard.
func TestWalkDirsAreGitsUnignoredDirectories(t *testing.T) {
	g := gitWorld(t)
	dir := filepath.Join(filepath.Dir(g.Home), "repo")
	g.Init(t, dir)
	writeFiles(t, dir, map[string]string{
		".gitignore":             "*.log\nbuild/\n",
		"logs/a.log":             "",
		"deep/inner/b.log":       "",
		"build/x.go":             "",
		"src/x.go":               "",
		"src/sub/y.go":           "",
		"src/gen/.gitignore":     "*\n!.gitignore\n",
		"src/gen/z.go":           "",
		"src/keep/.gitignore":    "!*.log\n",
		"src/keep/c.log":         "",
		"src/keep/logs2/d.log":   "",
		"src/keep/logs2/e.go":    "",
		"nested/build/inner.txt": "",
	})
	for _, d := range []string{"empty", "deep/empty2"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)

	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() && p != dir {
			rel, _ := filepath.Rel(dir, p)
			dirs = append(dirs, filepath.ToSlash(rel)+"/")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Asked without the trailing "/": git check-ignore reads "gen/" against
	// the rules inside gen (a "*" there ignores it), where a walk, as git
	// ls-files, enters gen to look for what those rules re-include.
	var asked []string
	for _, d := range dirs {
		asked = append(asked, strings.TrimSuffix(d, "/"))
	}
	ignored, code := g.Run(t, dir, strings.Join(asked, "\n")+"\n", "check-ignore", "--no-index", "--stdin")
	if code != 0 {
		t.Fatalf("git check-ignore --stdin: exit %d: the tree ignores no directory", code)
	}
	var want []string
	for _, d := range dirs {
		if !slices.Contains(strings.Fields(ignored), strings.TrimSuffix(d, "/")) {
			want = append(want, d)
		}
	}
	files, _ := g.Run(t, dir, "", "ls-files", "-co", "--exclude-standard")
	want = append(want, strings.Fields(files)...)
	slices.Sort(want)
	// The case is what it says: git's directory listing shows logs/ and
	// empty/, its status neither.
	lsDirs, _ := g.Run(t, dir, "", "ls-files", "-o", "--directory", "--exclude-standard")
	status, _ := g.Run(t, dir, "", "status", "--porcelain", "--untracked-files=normal")
	for _, d := range []string{"logs/", "empty/"} {
		if !slices.Contains(want, d) || !slices.Contains(strings.Fields(lsDirs), d) || strings.Contains(status, d) {
			t.Fatalf("%s: git check-ignore, ls-files --directory and status do not tell the case apart:\n%s\n%s", d, lsDirs, status)
		}
	}

	code, out, errs := runCLI(t, "", "walk", "--dirs", "--sort=path")
	if code != 0 {
		t.Fatalf("walk --dirs: exit %d: %s", code, errs)
	}
	got := strings.Fields(out)
	slices.Sort(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("walk --dirs:\n%s\ngit (directories check-ignore leaves, files ls-files -co --exclude-standard lists):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
