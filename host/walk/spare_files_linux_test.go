package walk

import (
	"os"
	"testing"
)

// TestFilesAppearInBareDirectories: a directory met with neither a .git
// nor a .gitignore keeps no files in its state (dirFilesOf hands them
// back as the spare for the next directory met). A .gitignore or a .git
// created there later, removed again, or a .gitignore that is a
// directory, must be seen at the next re-check, and a spare must never
// stand for two directories: git is the oracle after every step, with a
// Cache that looks by path and one that looks through descriptors the
// Jail opens, re-checking by stat on every call (Recheck < 0) or only
// after inotify reports a change.
func TestFilesAppearInBareDirectories(t *testing.T) {
	for _, mode := range []string{"stat", "fd", "inotify"} {
		t.Run(mode, func(t *testing.T) {
			e := newGitEnv(t, false)
			e.make("a/x.txt", "a/b/y.txt", "a/b/c/z.log", "d/w.txt", "d/e/v.log", "f/g/h/u.txt", "f/g/t.log")
			var c *Cache
			switch mode {
			case "fd":
				c = e.jailedCache(e.tmp)
				c.Recheck = -1
			case "stat":
				c = e.cache()
				c.Recheck = -1
			default:
				c = e.cache()
			}
			t.Cleanup(func() { c.Close() })
			steps := []struct {
				name   string
				change func()
			}{
				{"bare directories", func() {}},
				{"a/.gitignore created", func() { e.write("a/.gitignore", "*.txt\n") }},
				{"a/b/c/.gitignore created below it", func() { e.write("a/b/c/.gitignore", "!*.log\n*.log\n") }},
				{"d/e/.gitignore created", func() { e.write("d/e/.gitignore", "*.log\n") }},
				{"a/.gitignore removed", func() { must(t, os.Remove(e.abs("a/.gitignore"))) }},
				{"f/g/.gitignore is a directory", func() { must(t, os.MkdirAll(e.abs("f/g/.gitignore"), 0o755)) }},
				{"f/.gitignore created", func() { e.write("f/.gitignore", "t.log\nh/\n") }},
				{"d/e/.gitignore removed", func() { must(t, os.Remove(e.abs("d/e/.gitignore"))) }},
			}
			for _, s := range steps {
				s.change()
				compareGit(t, e, mode+": "+s.name, askAll(t, e, c))
			}
			// A repository appears in a bare directory: its paths are
			// then judged by its own rules (none), not the outer ones.
			e.write(".gitignore", "*.log\n")
			before := askAll(t, e, c)
			compareGit(t, e, mode+": root rules", before)
			if !before["d/e/v.log"] {
				t.Fatal("d/e/v.log is not ignored: the case tests nothing")
			}
			e.g.Init(t, e.abs("d"))
			if got := askAll(t, e, c); got["d/e/v.log"] {
				t.Errorf("%s: d/e/v.log still judged by the outer rules after d became a repository", mode)
			}
		})
	}
}
