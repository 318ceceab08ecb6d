package gitconfig

import (
	"bytes"
	"errors"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
)

// gitList is git's own reading of a config text: "key\x00value" pairs
// (value absent for a key given without `=`), or ok false when git
// refuses the text.
func gitList(t testing.TB, cfg []byte) (pairs []string, ok bool) {
	cmd := osexec.Command("git", "config", "--no-includes", "--file", "-", "--list", "--null")
	cmd.Stdin = bytes.NewReader(cfg)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent", "XDG_CONFIG_HOME=/nonexistent")
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	for _, kv := range bytes.Split(out, []byte{0}) {
		if len(kv) == 0 {
			continue
		}
		k, v, has := bytes.Cut(kv, []byte{'\n'})
		p := string(k)
		if has {
			p += "\x00" + string(v)
		}
		pairs = append(pairs, p)
	}
	return pairs, true
}

// checkAgainstGit fails when Parse accepts a text git refuses,
// or reads an accepted one differently from git (keys, order, values). It
// may refuse what git accepts: such a config is restored, which is safe.
func checkAgainstGit(t testing.TB, cfg []byte) {
	got, err := Parse(cfg)
	if err != nil {
		return
	}
	want, ok := gitList(t, cfg)
	if !ok {
		if bytes.ContainsAny(cfg, "\x00") {
			return
		}
		t.Fatalf("Parse accepted %q, which git refuses: %+v", cfg, got)
	}
	var mine []string
	for _, e := range got {
		checkSplit(t, e)
		if e.NoValue {
			if e.Value != "" {
				t.Fatalf("config %q: %s has NoValue and the value %q", cfg, e.Key, e.Value)
			}
			mine = append(mine, e.Key) // a key alone, as git lists it
			continue
		}
		mine = append(mine, e.Key+"\x00"+e.Value)
	}
	if strings.Join(mine, "\n") != strings.Join(want, "\n") {
		t.Fatalf("config %q:\nParse %q\ngit            %q", cfg, mine, want)
	}
}

// checkSplit fails when e's key is not Section, Subsection and Name
// joined as git joins them, split at the first and last dot as git's
// git_config_parse_key splits a key.
func checkSplit(t testing.TB, e Entry) {
	k := e.Section()
	if strings.Count(e.Key, ".") > 1 {
		// A subsection, perhaps empty ([mote ""] gives "mote..u").
		k += "." + e.Subsection()
	}
	k += "." + e.Name()
	if k != e.Key || e.Section() == "" || e.Name() == "" || strings.Contains(e.Section(), ".") || strings.Contains(e.Name(), ".") {
		t.Fatalf("key %q splits into %q %q %q", e.Key, e.Section(), e.Subsection(), e.Name())
	}
}

var gitConfigCases = []string{
	"[core]\n\tbare = false\n\thooksPath = hk\n",
	"[core]\n\thookspath=\"a b\" ; c\n",
	"[core] hooksPath = x\n",
	"[Core]\n\tHooksPath = x\n",
	"[remote \"Or\\\"ig\"]\n\turl = https://e/x\n",
	"[branch.Main]\n\tremote = origin\n",
	"[core]\n\tbare\n",
	"[core]\n\tpager = less \\\n -R\n",
	"[core]\n\tx = \"a\\tb\\n\"\n",
	"# c\n; c\n[user]\n\tname = a # c\n",
	"[[[\n",
	"[core]\n\tx = \"open\n",
	"key = v\n",
	"[core]\n\t1x = v\n",
	"[core \"a\"b]\n",
	"[core]\n\tx = a\\q\n",
	"[merge \"evil\"]\n\tdriver = sh -c 'id'\n",
	"[include]\n\tpath = ../x\n[includeIf \"gitdir:/a/\"]\n\tpath = y\n",
	"\xef\xbb\xbf[core]\n\tbare = true\n",
	"[core]\r\n\tbare = true\r\n",
	"[core]\n\tx =   a   b   \n",
	"[core]\n\tx = a\"  \"b\n",
}

// TestParseGitConfigMatchesGit: git is the oracle of what a config says.
func TestParseGitConfigMatchesGit(t *testing.T) {
	if _, err := osexec.LookPath("git"); err != nil {
		t.Skip("skipped: git is not installed")
	}
	accepted := 0
	for _, c := range gitConfigCases {
		checkAgainstGit(t, []byte(c))
		if _, err := Parse([]byte(c)); err == nil {
			accepted++
		}
	}
	if accepted < len(gitConfigCases)/2 {
		t.Errorf("only %d of %d cases parsed: the parser refuses ordinary configs", accepted, len(gitConfigCases))
	}
	// The configs git init writes must parse, or every `git init` in a
	// sandbox would lose its config.
	dir := t.TempDir()
	cmd := osexec.Command("git", "init", "-q", dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dir + "/.git/config")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(b); err != nil {
		t.Errorf("git init's config does not parse: %q", b)
	}
}

// FuzzParseGitConfig: never a panic, and whatever parses reads as git
// reads it.
func FuzzParseGitConfig(f *testing.F) {
	for _, c := range gitConfigCases {
		f.Add([]byte(c))
	}
	_, noGit := osexec.LookPath("git")
	f.Fuzz(func(t *testing.T, b []byte) {
		if noGit != nil {
			Parse(b)
			return
		}
		checkAgainstGit(t, b)
	})
}

// TestParseParts: the parts of a key, and what a text Parse refuses gives
// back (the entries before the point where it stopped).
func TestParseParts(t *testing.T) {
	got, err := Parse([]byte("[includeIf \"gitdir:~/w/\"]\n\tPath = x\n[branch.Main]\n\tremote\n[core]\n\tbare =\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		sec, sub, name, value string
		noValue               bool
	}{
		{"includeif", "gitdir:~/w/", "path", "x", false},
		{"branch", "main", "remote", "", true},
		{"core", "", "bare", "", false},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		e := got[i]
		if e.Section() != w.sec || e.Subsection() != w.sub || e.Name() != w.name || e.Value != w.value || e.NoValue != w.noValue {
			t.Errorf("entry %d: %+v (%q %q %q), want %+v", i, e, e.Section(), e.Subsection(), e.Name(), w)
		}
	}
	for _, c := range []struct {
		text string
		keys int
	}{
		{"[core]\n\tbare = true\n[[[\n\tx = y\n", 1},
		{"[core]\n\ta = 1\n\tb = \"open\n\tc = 2\n", 1},
		{"[core]\n\ta = 1\n\tb = \\q\n", 1},
		{"key = v\n[core]\n\ta = 1\n", 0},
		{"[core]\n\ta = 1\x00\n", 0},
	} {
		got, err := Parse([]byte(c.text))
		if !errors.Is(err, ErrSyntax) || len(got) != c.keys {
			t.Errorf("Parse(%q) = %+v, %v; want %d entries and ErrSyntax", c.text, got, err, c.keys)
		}
	}
}
