package walk

import "testing"

// configSyntaxCases are git config texts whose reading decides the answers:
// each sets core.excludesFile, core.ignorecase or an include in a way a
// reader that is not git's own gets wrong (go-git's gcfg, which the walk
// used before, refused a byte-order mark and a key on the header's line
// and kept a continuation's newline), or in a way that must have no
// effect. git decides every expectation (checkAgainstGit).
var configSyntaxCases = []confCase{
	{name: "byte-order mark", files: commonFiles, write: map[string]string{
		"~/.gitconfig": "\xef\xbb\xbf[core]\n\texcludesFile = ~/ign\n", "~/ign": "*.md\n",
	}},
	{name: "key on the header's line", files: commonFiles, write: map[string]string{
		"~/.gitconfig": "[core] excludesFile = ~/ign\n", "~/ign": "*.md\n",
	}},
	{name: "continuation in a value", files: commonFiles, write: map[string]string{
		"~/.gitconfig": "[core]\n\texcludesFile = ~/i\\\ngn\n", "~/ign": "*.md\n", "~/i\ngn": "*.go\n",
	}},
	{name: "CRLF lines, quotes and a comment", files: commonFiles, write: map[string]string{
		"~/.gitconfig": "[core]\r\n\texcludesFile = \"~/my ign\" ; the list\r\n", "~/my ign": "*.txt\n!a.txt\n",
	}},
	{name: "escapes and inner quotes", files: commonFiles, write: map[string]string{
		"~/.gitconfig": "[core]\n\texcludesFile = ~/a\"#\"b\\\\c\n", "~/a#b\\c": "*.log\n",
	}},
	{name: "section and key in capitals, a key alone is true", files: with("A.LOG", "Build/x", "MAIN.GO"), write: map[string]string{
		"~/.gitconfig": "[CORE]\n\tIgnoreCase\n", ".gitignore": "*.Log\nbuild/\nmain.go\n",
	}},
	{name: "an empty value is false", files: with("A.LOG", "Build/x"), write: map[string]string{
		"~/.gitconfig": "[core]\n\tignorecase = true\n[core]\n\tignorecase =\n", ".gitignore": "*.log\nbuild/\n",
	}},
	{name: "empty subsection is not the section", files: with("A.LOG", "Build/x"), write: map[string]string{
		"~/.gitconfig": "[core \"\"]\n\tignorecase = true\n\texcludesFile = ~/ign\n", "~/ign": "*.md\n", ".gitignore": "*.log\nbuild/\n",
	}},
	{name: "old-style subsection is not the section", files: commonFiles, write: map[string]string{
		"~/.gitconfig": "[core.sub]\n\texcludesFile = ~/ign\n[include \"x\"]\n\tpath = ~/inc\n", "~/ign": "*.md\n", "~/inc": "[core]\n\texcludesFile = ~/ign\n",
	}},
	{name: "include path quoted, in a capitalised section", files: commonFiles, write: map[string]string{
		"~/.gitconfig": "[Include]\n\tPATH = \"extra inc\"\n", "~/extra inc": "[core]\n\texcludesFile = ~/ign\n", "~/ign": "*.go\n",
	}},
	{name: "includeIf condition case is kept", files: commonFiles, setup: func(t *testing.T, e *gitEnv) {
		e.write("~/.gitconfig", "[includeIf \"GITDIR:"+e.repo+"/\"]\n\tpath = ~/a.inc\n[includeIf \"gitdir:"+e.repo+"/\"]\n\tpath = ~/b.inc\n")
		e.write("~/a.inc", "[core]\n\texcludesFile = ~/ign1\n")
		e.write("~/b.inc", "[core]\n\texcludesFile = ~/ign2\n")
		e.write("~/ign1", "*.md\n")
		e.write("~/ign2", "*.go\n")
	}},
	{name: "repository config after the global one", files: commonFiles, outside: true, write: map[string]string{
		"~/.gitconfig": "[core]\n\texcludesFile = ~/ign1\n", "~/ign1": "*.md\n", "~/ign2": "*.go\n",
	}, setup: func(t *testing.T, e *gitEnv) {
		e.write(".git/config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[core \"x\"]\n\texcludesFile = ~/ign1\n[core]\n\texcludesFile = ~/ign2\n")
	}},
}

// TestConfigSyntax: the walk reads config files as git does (git is the
// oracle), directly and through a Jail whose root is the repository.
func TestConfigSyntax(t *testing.T) {
	for _, tc := range configSyntaxCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newGitEnv(t, tc.xdg)
			e.make(tc.files...)
			for p, s := range tc.write {
				e.write(p, s)
			}
			if tc.setup != nil {
				tc.setup(t, e)
			}
			checkAgainstGit(t, e, e.cache(), tc.probes)
			if !tc.outside {
				checkAgainstGit(t, e, e.jailedCache(e.repo), tc.probes)
			}
		})
	}
}
