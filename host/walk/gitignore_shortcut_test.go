package walk

import (
	"strings"
	"testing"
)

// The rule shortcuts ("**/name" as a basename, the required-literal
// filter, extension keys for any glob ending in ".ext") must not change a
// single answer: these tests match every pattern against every path with
// and without them.

var shortcutPatterns = []string{
	"**/cache/", "**/cache", "/**/cache", "**/tmp/**", "**/c*che", "**/ca[c]he", "**/a/cache",
	"*.py[co]", "[a-c]*.txt", "docs/**/*.txt", "/testdata/*.json", "a*b*c", "*\\.txt",
	"x\\*y.txt", "[]a].txt", "[.txt", "*.tar.gz", "!**/keep", "abc?def", "*.[ch]", "ab*",
	"*ache", "c?che/", "**/", "**", "*", "?", "a/**/b", "qux**/bar", "*.t[x]t", "*[!.]txt",
	"foo\\", "**/.env", "**/x.txt", "**/gen", "**/q/**/t.txt", "*.go/", "**/Cache",
}

var shortcutPaths = []string{
	"cache", "a/cache", "a/b/cache", "cache/x", "a/cache/x", "cachex", "xcache", "tmp", "tmp/x",
	"a/tmp/b/c", "atmp/x", "x.pyc", "x.pyo", "x.py", "a.py/x", "b.txt", "d.txt", "bx.txt", "docs/a.txt",
	"docs/x/y/z.txt", "docs.txt", "testdata/a.json", "x/testdata/a.json", "abc", "axbxc", "a.txt",
	"x*y.txt", "xay.txt", "].txt", "a.txt", "[.txt", "f.tar.gz", "f.gz", "keep", "a/keep", "abcXdef",
	"x.c", "x.h", "x.o", "ab", "abx", "ache", "cxche", "a/b", "a/x/y/b", "qux/bar", "quxa/x/bar", "foo",
	"foo\\", ".env", "a/.env", "x.txt", "gen", "q/t.txt", "p/q/r/t.txt", "main.go", "Cache", "a/CACHE",
	"a/", "cache/", "",
}

// lastName is the name judge matches with path: its last component, or ""
// for a path ending in '/' (judge's "dir/", matched with an empty name).
func lastName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// matchBothWays matches path against the rules text compiled with and
// without the shortcuts and reports any difference.
func matchBothWays(t *testing.T, text, path string) {
	t.Helper()
	name := lastName(path)
	for _, fold := range []bool{false, true} {
		for _, base := range []string{"", "sub/"} {
			plain := parseRulesAs(&ruleSet{source: "x", base: base, fold: fold, plain: true}, []byte(text))
			fast := parseRules([]byte(text), "x", base, fold)
			for _, isDir := range []bool{false, true} {
				if a, b := plain.match(path, name, isDir), fast.match(path, name, isDir); a != b {
					t.Errorf("rules %q base %q fold %v: match(%q, %q, dir %v) = %d with shortcuts, %d without",
						text, base, fold, path, name, isDir, b, a)
				}
			}
		}
	}
}

func TestRuleShortcutsAgree(t *testing.T) {
	for _, p := range shortcutPatterns {
		for _, path := range shortcutPaths {
			matchBothWays(t, p, path)
		}
	}
	// All of them in one file: the maps and the glob list interleave.
	all := strings.Join(shortcutPatterns, "\n")
	for _, path := range shortcutPaths {
		matchBothWays(t, all, path)
	}
}

// TestRuleShortcutsUsed makes sure the shortcuts are taken (else the test
// above compares the plain matcher with itself).
func TestRuleShortcutsUsed(t *testing.T) {
	rs := parseRules([]byte("**/cache/\n[a-c]*.txt\n**/tmp/**\n"), "x", "", false)
	if got, ok := rs.byName["cache"]; !ok || got != 0 || rs.same[0] != -1 || rs.rules[0].flags&ruleMustBeDir == 0 {
		t.Errorf(`"**/cache/" is not a directory-only basename rule: byName %v`, rs.byName)
	}
	if got, ok := rs.byExt["txt"]; !ok || got != 1 || rs.same[1] != -1 {
		t.Errorf(`"[a-c]*.txt" is not keyed by its extension: byExt %v`, rs.byExt)
	}
	if rs.rules[2].need != "tmp" {
		t.Errorf(`"**/tmp/**" requires %q, want "tmp"`, rs.rules[2].need)
	}
}

func TestRequiredLiteral(t *testing.T) {
	for p, want := range map[string]string{
		"**/tmp/**": "tmp", "*.py[co]": ".py", "[a-c]*.txt": "", "a*bc*def": "def", "x\\*yz.txt": "",
		"ab?cd": "ab", "*": "", "a/b*": "", "docs/**/*.txt": "docs", "**/*.txt": ".txt", "*.min.js": ".min.js",
	} {
		if got := requiredLiteral(p); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", p, got, want)
		}
	}
}

// FuzzRuleShortcuts holds the shortcuts to the plain matcher on any rule
// line and path.
func FuzzRuleShortcuts(f *testing.F) {
	for i, p := range shortcutPatterns {
		f.Add(p, shortcutPaths[i%len(shortcutPaths)])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 64 || len(path) > 64 || strings.ContainsAny(pattern, "\n\r\x00") || strings.Contains(path, "\x00") {
			return
		}
		matchBothWays(t, pattern, path)
	})
}
