package walk

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// confCase is one conformance case: a tiny repository (files, ignore
// files, configuration) plus extra paths to ask about. The expected answers
// come from git (see checkAgainstGit), never from the table.
type confCase struct {
	name   string
	files  []string          // "a/b" file, "a/b/" directory, "a -> t" symbolic link
	write  map[string]string // path -> contents ("~/", "$XDG/", "/" prefixes: see gitEnv.abs)
	config []string          // repository config: "key", "value", "key", "value", ...
	xdg    bool              // set XDG_CONFIG_HOME
	probes []string          // more paths for IsIgnored (need not exist; "x/" is a directory)
	setup  func(t *testing.T, e *gitEnv)
	// outside: the repository's own config names a file outside the
	// repository, which a Cache with a Jail confined to the repository
	// ignores on purpose (TestJailConfinesRepositoryFiles covers that).
	outside bool
}

// Files most cases share, so every rule is tried against a spread of names.
var commonFiles = []string{
	"README.md", "main.go", "a.log", "keep.log", "a.txt", "b.txt",
	"src/main.go", "src/util.go", "src/a.log", "src/gen/out.go",
	"src/deep/er/x.txt", "src/deep/er/y.log", "docs/a.md", "docs/b/c.md",
	"build/out.bin", "build/keep.txt", "build/sub/deep.o", "foo/bar/baz.txt",
	"x/foo", "empty/", ".env", ".config/app.json",
}

// with is commonFiles plus extra.
func with(extra ...string) []string { return append(slices.Clone(commonFiles), extra...) }

var conformanceCases = []confCase{
	// Patterns are relative to their own file's directory.
	{name: "relative to own directory", files: commonFiles, write: map[string]string{"src/.gitignore": "main.go\n*.log\n"}},
	{name: "basename pattern matches at any depth", files: commonFiles, write: map[string]string{".gitignore": "x.txt\nout.go\n"}},
	{name: "nested file anchored", files: commonFiles, write: map[string]string{"src/.gitignore": "/gen\n/deep/er/x.txt\n"}, probes: []string{"gen", "src/gen/", "src/x/gen"}},

	// Anchoring.
	{name: "leading slash anchors", files: with("src/README.md"), write: map[string]string{".gitignore": "/README.md\n/src/util.go\n"}},
	{name: "middle slash anchors", files: with("lib/docs/a.md"), write: map[string]string{".gitignore": "docs/a.md\n"}},
	{name: "trailing slash only is not anchoring", files: with("src/build/x"), write: map[string]string{".gitignore": "build/\n"}},
	{name: "anchored dir-only", files: with("src/build/x"), write: map[string]string{".gitignore": "/build/\n"}},

	// Directory-only patterns.
	{name: "dir-only does not match a file", files: with("foo2", "bar/foo2/x", "bar/x/"), write: map[string]string{".gitignore": "foo2/\nfoo/\n"}, probes: []string{"nothere/", "foo2/", "bar/foo2/"}},
	{name: "dir-only with inner slash", files: commonFiles, write: map[string]string{".gitignore": "src/deep/\nfoo/bar/\n"}},
	{name: "dir-only star", files: commonFiles, write: map[string]string{".gitignore": "*/\n!src/\n"}},
	{name: "dir-only ends-with", files: with("lib.d/x", "x.d"), write: map[string]string{".gitignore": "*.d/\n"}},
	{name: "symlink to a directory is not matched by dir/", files: with("linkdir -> src", "linkfile -> a.txt", "real/x"), write: map[string]string{".gitignore": "linkdir/\nreal/\n"}},
	{name: "symlink matched by name", files: with("linkdir -> src", "dangling -> nowhere"), write: map[string]string{".gitignore": "linkdir\ndangling\n"}},

	// Double stars.
	{name: "leading **/", files: commonFiles, write: map[string]string{".gitignore": "**/x.txt\n**/gen\n"}},
	{name: "leading **/ with path", files: with("q/deep/er/z"), write: map[string]string{".gitignore": "**/deep/er\n"}},
	{name: "trailing /**", files: commonFiles, write: map[string]string{".gitignore": "src/**\nfoo/**\n"}, probes: []string{"src", "src/", "foo"}},
	{name: "trailing /** keeps the dir itself", files: commonFiles, write: map[string]string{".gitignore": "build/**\n!build/keep.txt\n"}},
	{name: "middle /**/ with backtracking", files: with("a/b/c/b", "a/x/b", "a/x/y/b", "a/bb", "ab/b", "a/y/b/z/b", "a/z/bb/b"), write: map[string]string{".gitignore": "a/**/b\n"}},
	{name: "**/ and /**/ combined", files: with("p/q/r/s/t.txt", "q/r/t.txt", "q/t.txt"), write: map[string]string{".gitignore": "**/q/**/t.txt\n"}},
	{name: "other ** is a single star", files: with("quxbar", "qux/bar", "quxxbar", "a/qux/x/bar", "abc", "a/bc"), write: map[string]string{".gitignore": "qux**bar\n**c\n"}},
	{name: "a/**b is a/*b", files: with("a/b", "a/xb", "a/x/b", "a/x/yb"), write: map[string]string{".gitignore": "a/**b\n"}},
	{name: "prefix then ** spans directories", files: with("qux/x/bar", "qux/bar", "quxa/x/bar", "quxx/bar"), write: map[string]string{".gitignore": "qux**/bar\n"}},
	{name: "lone **", files: commonFiles, write: map[string]string{".gitignore": "**\n!*.go\n"}},
	{name: "/**/ anchored", files: with("x/y/qux", "qux", "y/foo/z"), write: map[string]string{".gitignore": "/**/qux\n/**/foo\n"}},
	{name: "** dir-only", files: commonFiles, write: map[string]string{".gitignore": "src/**/\n"}},
	{name: "***", files: with("a/b/c"), write: map[string]string{".gitignore": "a/***/c\n"}},

	// Single stars and question marks.
	{name: "star does not cross slash", files: with("docs/x/y.md"), write: map[string]string{".gitignore": "docs/*.md\n"}},
	{name: "star slash", files: commonFiles, write: map[string]string{".gitignore": "*/gen\nsrc/*/er\n"}},
	{name: "question mark", files: with("a/b", "ab", "a?b", "aXb"), write: map[string]string{".gitignore": "a?b\n?.txt\n"}},
	{name: "question mark not slash in path", files: with("d/a/b", "d/aXb"), write: map[string]string{".gitignore": "d/a?b\n"}},

	// Negation.
	{name: "negation", files: commonFiles, write: map[string]string{".gitignore": "*.log\n!keep.log\n"}},
	{name: "no re-inclusion below excluded dir", files: commonFiles, write: map[string]string{".gitignore": "build/\n!build/keep.txt\n!keep.txt\n"}},
	{name: "re-inclusion with dir/*", files: commonFiles, write: map[string]string{".gitignore": "build/*\n!build/keep.txt\n"}},
	{name: "re-include a directory then exclude inside", files: commonFiles, write: map[string]string{".gitignore": "*\n!*/\n!*.go\n"}},
	{name: "last matching line wins", files: commonFiles, write: map[string]string{".gitignore": "*.txt\n!a.txt\na.txt\n!b.txt\n"}},
	{name: "negated dir-only", files: commonFiles, write: map[string]string{".gitignore": "src/*\n!src/deep/\nsrc/deep/er/*.log\n"}},
	{name: "deeper file re-includes", files: commonFiles, write: map[string]string{".gitignore": "*.log\n", "src/.gitignore": "!a.log\n"}},
	{name: "deeper file re-includes a dir", files: with("src/build/x", "lib/build/y"), write: map[string]string{".gitignore": "build/\n", "src/.gitignore": "!build/\n"}},
	{name: "deeper file excludes again", files: commonFiles, write: map[string]string{".gitignore": "*.log\n!keep.log\n", "src/.gitignore": "*\n!*.go\n!*/\n", "src/deep/.gitignore": "!*.txt\n"}},
	{name: ".gitignore inside an ignored directory does not apply", files: commonFiles, write: map[string]string{".gitignore": "build/\n", "build/.gitignore": "!*\n!keep.txt\n"}, probes: []string{"build/keep.txt", "build/new.txt"}},
	{name: ".gitignore inside an ignored directory cannot re-include its own dir", files: commonFiles, write: map[string]string{".gitignore": "src/\n", "src/.gitignore": "!/\n!*\n"}},

	// Escapes, comments and whitespace.
	{name: "comment and escaped hash", files: with("#foo", "#bar", "a#b"), write: map[string]string{".gitignore": "#foo\n\\#bar\na#b\n"}},
	{name: "escaped bang", files: with("!important", "important"), write: map[string]string{".gitignore": "\\!important\n"}},
	{name: "trailing spaces trimmed", files: with("bar", "bar  "), write: map[string]string{".gitignore": "bar   \n"}},
	{name: "escaped trailing space kept", files: with("qux ", "qux", "baz  ", "baz "), write: map[string]string{".gitignore": "qux\\ \nbaz \\  \n"}},
	{name: "trailing backslash never matches", files: with("qux\\", "qux"), write: map[string]string{".gitignore": "qux\\\n"}},
	{name: "spaces inside", files: with("a b", "a  b", " lead"), write: map[string]string{".gitignore": "a b\n lead\n"}},
	{name: "backslash escapes a letter", files: with("ab", "a\\b"), write: map[string]string{".gitignore": "a\\b\n"}},
	{name: "escaped glob characters", files: with("*.txt", "?x", "[ab]"), write: map[string]string{".gitignore": "\\*.txt\n\\?x\n\\[ab]\n"}},
	{name: "blank and whitespace-only lines", files: commonFiles, write: map[string]string{".gitignore": "\n   \n\t\n*.md\n\n"}},
	{name: "bare bang and slash", files: commonFiles, write: map[string]string{".gitignore": "!\n/\n//\n!/\n"}},

	// Character classes.
	{name: "bracket set", files: with("a1", "b1", "c1", "d1"), write: map[string]string{".gitignore": "[abc]1\n"}},
	{name: "negated set with !", files: with("a1", "b1", "c1", "d1"), write: map[string]string{".gitignore": "[!a]1\n"}},
	{name: "negated set with ^", files: with("a1", "b1", "c1", "d1"), write: map[string]string{".gitignore": "[^ab]1\n"}},
	{name: "bracket first", files: with("]1", "a1", "!1", "b1"), write: map[string]string{".gitignore": "[]a]1\n[!]b]2\n"}},
	{name: "ranges", files: with("f0", "f5", "f9", "fa", "fz", "fA", "f-", "g-"), write: map[string]string{".gitignore": "f[0-4]\nf[a-c-]\ng[-]\n"}},
	{name: "range edge dash", files: with("x-", "xa", "xb", "xz"), write: map[string]string{".gitignore": "x[a-]\n"}},
	{name: "posix classes", files: with("c1", "cA", "ca", "c_", "c ", "c.", "c\t"), write: map[string]string{".gitignore": "c[[:digit:]]\nc[[:upper:]]\nc[[:space:]]\nc[[:punct:]]\n"}},
	{name: "posix alpha alnum xdigit", files: with("d1", "dA", "dg", "d_", "e1", "eF", "eg"), write: map[string]string{".gitignore": "d[[:alpha:]]\ne[[:xdigit:]]\n"}},
	{name: "unknown posix class never matches", files: with("c1", "ca"), write: map[string]string{".gitignore": "c[[:bogus:]]\n*.log\n"}},
	{name: "unterminated bracket never matches", files: with("[abc", "a", "[abc]"), write: map[string]string{".gitignore": "[abc\n[ab\n"}},
	{name: "colon bracket not a class", files: with("[", ":", "a", "]", ":x"), write: map[string]string{".gitignore": "[[:a]\n"}},
	{name: "escape inside bracket", files: with("]x", "\\x", "ax"), write: map[string]string{".gitignore": "[\\]]x\n[\\\\]x\n"}},
	{name: "bracket never matches slash", files: with("a/b", "axb"), write: map[string]string{".gitignore": "a[/x]b\n"}},
	{name: "braces are literal", files: with("{a,b}.txt", "a.md", "{a}"), write: map[string]string{".gitignore": "{a,b}.txt\n*.{md}\n{a}\n"}},

	// Bytes, encodings and odd names.
	{name: "byte-wise matching of UTF-8", files: with("é", "éé", "ü.txt", "y"), write: map[string]string{".gitignore": "?\n??.txt\n"}},
	{name: "invalid UTF-8 names", files: with("\xff.bin", "bad\xfe/x", "ok.bin"), write: map[string]string{".gitignore": "\xff*\n!ok.bin\n*.bin\n"}},
	{name: "names with newlines", files: with("new\nline", "tab\tname", "dir\nx/y.txt"), write: map[string]string{".gitignore": "*line\n"}},
	{name: "UTF-8 BOM", files: commonFiles, write: map[string]string{".gitignore": "\xef\xbb\xbf*.log\n", "src/.gitignore": "\xef\xbb\xbf#c\nmain.go\n"}},
	{name: "CRLF line endings", files: with("crlf\r"), write: map[string]string{".gitignore": "*.log\r\n!keep.log\r\nbuild/\r\n"}},
	{name: "no final newline", files: commonFiles, write: map[string]string{".gitignore": "*.txt\n*.md"}},
	{name: "NUL in a line", files: commonFiles, write: map[string]string{".gitignore": "*.md\x00junk\n*.go\n"}},

	// Case folding.
	{name: "ignorecase", files: with("A.LOG", "Build/x", "MAIN.GO"), config: []string{"core.ignorecase", "true"}, write: map[string]string{".gitignore": "*.Log\nbuild/\nmain.go\n"}},
	{name: "ignorecase classes", files: with("A1", "a1", "B1", "b1", "Z2", "z2"), config: []string{"core.ignorecase", "true"}, write: map[string]string{".gitignore": "[A]1\n[a]1\n[B-C]1\n[[:upper:]]2\n"}},
	{name: "ignorecase escapes and paths", files: with("SRC/Gen/x", "Docs/A.md"), config: []string{"core.ignorecase", "true"}, write: map[string]string{".gitignore": "\\Docs/a.md\n/src/gen/\n"}},
	{name: "ignorecase off", files: with("A.LOG", "Build/x"), config: []string{"core.ignorecase", "false"}, write: map[string]string{".gitignore": "*.log\nbuild/\n"}},

	// Precedence between sources.
	{name: "info/exclude", files: commonFiles, write: map[string]string{".git/info/exclude": "*.md\n/src/gen/\n"}},
	{name: "gitignore beats info/exclude", files: commonFiles, write: map[string]string{".git/info/exclude": "*.log\n", ".gitignore": "!a.log\n"}},
	{name: "info/exclude beats global", files: commonFiles, xdg: true, write: map[string]string{"$XDG/git/ignore": "*.txt\n", ".git/info/exclude": "!a.txt\n"}},
	{name: "deeper beats parent beats exclude beats global", files: commonFiles, xdg: true, write: map[string]string{
		"$XDG/git/ignore": "*.txt\n*.md\n", ".git/info/exclude": "!*.txt\n", ".gitignore": "docs/*.md\n!a.md\nx.txt\n", "src/deep/.gitignore": "!x.txt\n",
	}},
	{name: "global excludes via XDG", files: commonFiles, xdg: true, write: map[string]string{"$XDG/git/ignore": "*.log\nbuild/\n"}},
	{name: "global excludes via ~/.config default", files: commonFiles, write: map[string]string{"~/.config/git/ignore": "*.log\n/docs/\n"}},
	{name: "global excludes via core.excludesFile", files: commonFiles, xdg: true, write: map[string]string{
		"~/.gitconfig": "[core]\n\texcludesFile = ~/my-ignore\n", "~/my-ignore": "*.md\n", "$XDG/git/ignore": "*.go\n",
	}},
	{name: "core.excludesFile absolute in repo config", files: commonFiles, outside: true, setup: func(t *testing.T, e *gitEnv) {
		e.write("/elsewhere/ignore", "*.txt\n!a.txt\n")
		e.git(e.repo, "config", "core.excludesFile", filepath.Join(e.tmp, "elsewhere", "ignore"))
	}},
	{name: "core.excludesFile missing file", files: commonFiles, write: map[string]string{"~/.gitconfig": "[core]\n\texcludesfile = /does/not/exist\n", "~/.config/git/ignore": "*.go\n"}},
	{name: "config include.path", files: commonFiles, write: map[string]string{
		"~/.gitconfig": "[include]\n\tpath = extra.inc\n", "~/extra.inc": "[core]\n\tignorecase = true\n\texcludesFile = ~/ign\n", "~/ign": "*.LOG\n",
	}},
	{name: "config includeIf gitdir", files: commonFiles, setup: func(t *testing.T, e *gitEnv) {
		e.write("~/.gitconfig", "[includeIf \"gitdir:"+e.repo+"/\"]\n\tpath = ~/repo.inc\n[includeIf \"gitdir:/nowhere/\"]\n\tpath = ~/other.inc\n")
		e.write("~/repo.inc", "[core]\n\texcludesFile = ~/ign1\n")
		e.write("~/other.inc", "[core]\n\texcludesFile = ~/ign2\n")
		e.write("~/ign1", "*.md\n")
		e.write("~/ign2", "*.go\n")
	}},

	// Literal fast paths must keep line order.
	{name: "literal maps keep last-match-wins", files: commonFiles, write: map[string]string{".gitignore": "a.txt\n*.txt\n!a.txt\nmain.go\n!*.go\n/src/util.go\n"}},
	{name: "extension map with multi-dot suffix", files: with("x.tar.gz", "y.gz", "z.tar.gzz", "tar.gz"), write: map[string]string{".gitignore": "*.tar.gz\n"}},
	{name: "ends-with without dot", files: with("file~", "x.bak~", "notes"), write: map[string]string{".gitignore": "*~\n*tes\n"}},

	// Repository structure.
	{name: "nested repository has its own rules", files: commonFiles, write: map[string]string{".gitignore": "*.txt\n", "inner/.gitignore": "*.go\n", "inner/a.txt": "", "inner/b.go": "", "inner/sub/c.txt": ""}, setup: func(t *testing.T, e *gitEnv) {
		e.git(e.abs("inner"), "-c", "init.defaultBranch=main", "init", "-q")
	}},
	{name: "nested repository ignored by outer", files: commonFiles, write: map[string]string{".gitignore": "inner/\n", "inner/a.txt": ""}, setup: func(t *testing.T, e *gitEnv) {
		e.git(e.abs("inner"), "-c", "init.defaultBranch=main", "init", "-q")
	}},
	{name: "nested repository info/exclude", files: commonFiles, write: map[string]string{".git/info/exclude": "*.md\n", "deep/inner/x.md": "", "deep/inner/y.go": ""}, setup: func(t *testing.T, e *gitEnv) {
		e.git(e.abs("deep/inner"), "-c", "init.defaultBranch=main", "init", "-q")
		e.write("deep/inner/.git/info/exclude", "*.go\n")
	}},
	{name: "stray .git directory is not a repository", files: with("fake/.git/", "fake/a.log", "fake/b.txt"), write: map[string]string{".gitignore": "*.log\n"}},
	{name: "symlink loop", files: with("loop -> loop", "up -> ..", "self -> .", "d/back -> ../d"), write: map[string]string{".gitignore": "*.log\n"}},
	{name: "empty gitignore and gitignore directory", files: with("src/.gitignore/x"), write: map[string]string{".gitignore": ""}},
	{name: "symlinked .gitignore is not followed", files: with("rules.txt", "src/.gitignore -> ../rules.txt"), write: map[string]string{"rules.txt": "*.go\n"}},
	{name: "dot-files", files: with(".hidden/x", "a/.b/c", ".envrc"), write: map[string]string{".gitignore": ".env*\n!.envrc\n"}},
	{name: "many rules", files: commonFiles, setup: func(t *testing.T, e *gitEnv) {
		var b []byte
		for i := 0; i < 300; i++ {
			b = append(b, []byte("gen"+string(rune('a'+i%26))+"*"+string(rune('0'+i%10))+"\n")...)
		}
		b = append(b, "*.md\n!docs/b/\n"...)
		e.write(".gitignore", string(b))
	}},
}

func TestConformance(t *testing.T) {
	if len(conformanceCases) < 60 {
		t.Fatalf("only %d conformance cases", len(conformanceCases))
	}
	for _, tc := range conformanceCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newGitEnv(t, tc.xdg)
			e.make(tc.files...)
			for p, s := range tc.write {
				e.write(p, s)
			}
			for i := 0; i+1 < len(tc.config); i += 2 {
				e.git(e.repo, "config", tc.config[i], tc.config[i+1])
			}
			if tc.setup != nil {
				tc.setup(t, e)
			}
			checkAgainstGit(t, e, e.cache(), tc.probes)
			// With a Jail whose root is the repository, global files
			// outside it are trusted and everything inside is read
			// through the jail: git's answers must not change.
			if !tc.outside {
				t.Run("jailed", func(t *testing.T) {
					checkAgainstGit(t, e, e.jailedCache(e.repo), tc.probes)
				})
			}
		})
	}
}

// TestWorktree: a linked worktree's ".git" is a file; info/exclude comes
// from the common directory and the worktree's own .gitignore applies.
func TestWorktree(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, false)
	e.make(commonFiles...)
	e.write(".gitignore", "*.log\n")
	e.write(".git/info/exclude", "*.md\n")
	e.git(e.repo, "add", ".gitignore")
	e.git(e.repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
	wt := filepath.Join(e.tmp, "wt")
	e.git(e.repo, "worktree", "add", "-q", wt)
	for _, f := range []string{"a.log", "b.md", "c.txt", "sub/d.log", "sub/e.go"} {
		e.write("/wt/"+f, "x")
	}
	if fi, err := os.Lstat(filepath.Join(wt, ".git")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("worktree .git is not a file: %v", err)
	}
	we := *e
	we.repo = wt
	checkAgainstGit(t, &we, e.cache(), []string{"new.md", "sub/new.log"})
	// Jailed to the worktree: the git directory and the common directory
	// its ".git" file and commondir name lie outside and are trusted.
	checkAgainstGit(t, &we, e.jailedCache(wt), []string{"new.md", "sub/new.log"})
}
