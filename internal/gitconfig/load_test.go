package gitconfig

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gitResolve is git's reading of an include path (config.c,
// handle_path_include): "~/" is $HOME, an absolute path is itself, a
// relative one is taken against the directory of the including file, as
// text (no cleaning: "sub/../x" needs a "sub").
func gitResolve(home string) func(from, p string) []string {
	return func(from, p string) []string {
		switch {
		case strings.HasPrefix(p, "~/"):
			p = home + p[1:]
		case filepath.IsAbs(p):
		default:
			p = from[:strings.LastIndexAny(from, "/"+string(filepath.Separator))+1] + p
		}
		return []string{p}
	}
}

// osRead reads a file as git's access_or_die and fopen do: a missing
// file (ENOENT, ENOTDIR) is absent, anything else that cannot be read an
// error (a directory among them).
func osRead(name string) ([]byte, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, syscall.ENOTDIR) {
		return nil, fs.ErrNotExist
	}
	return b, err
}

// gitEnv is the environment git is run in by these tests: no system or
// global config, HOME the test's directory, no repository around.
func gitEnv(dir string) []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
		"XDG_CONFIG_HOME="+dir, "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir), "GIT_DIR=/nonexistent")
}

// gitIncludes is git's reading of the file top with its includes: the
// entries listed ("key\x00value", or the key alone for a key without a
// value), whether git accepted the file, and whether it refused it for
// the include depth.
func gitIncludes(t testing.TB, dir, top string) (pairs []string, ok, depth bool) {
	cmd := osexec.Command("git", "config", "--includes", "--file", top, "--list", "--null")
	cmd.Dir = dir
	cmd.Env = gitEnv(dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
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
	return pairs, err == nil, strings.Contains(stderr.String(), "exceeded maximum include depth")
}

// listed is entries as gitIncludes lists them.
func listed(entries []Entry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.NoValue {
			out = append(out, e.Key)
		} else {
			out = append(out, e.Key+"\x00"+e.Value)
		}
	}
	return out
}

// writeFiles writes files (name to contents; a name ending in "/" is a
// directory) into a new directory and returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkLoadAgainstGit fails when a Loader with git's rules reads dir/a
// otherwise than `git config --includes --list` does: the same entries
// in the same order when git accepts the files; an error, and the same
// entries before it, when git refuses them for the include depth
// (ErrIncludeDepth, exactly then); an error whenever git refuses. The
// Loader may refuse what git accepts only with ErrSyntax (Parse is
// stricter than git in obscure corners) or ErrTooLarge.
func checkLoadAgainstGit(t testing.TB, dir string) {
	t.Helper()
	top := filepath.Join(dir, "a")
	l := &Loader{ReadFile: osRead, Resolve: gitResolve(dir)}
	got, err := l.Load(context.Background(), top)
	want, ok, depth := gitIncludes(t, dir, top)
	switch {
	case errors.Is(err, ErrIncludeDepth) != depth:
		t.Fatalf("%s: Load error %v; git refused for the depth: %v", dir, err, depth)
	case depth:
		if strings.Join(listed(got), "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: before the depth error, Load gave\n%q\ngit listed\n%q", dir, listed(got), want)
		}
	case !ok && err == nil:
		t.Fatalf("%s: git refuses the files, Load accepted them: %q", dir, listed(got))
	case ok && err != nil:
		if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s: git accepts the files, Load refused them: %v", dir, err)
		}
	case ok:
		if strings.Join(listed(got), "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: Load gave\n%q\ngit listed\n%q", dir, listed(got), want)
		}
	}
}

// selfIncludes is a config that includes itself n times: git stops at
// the depth limit at once; followed without one, it is n^10 readings.
func selfIncludes(name string, n int) string {
	return "[core]\n\tbare = false\n[include]\n" + strings.Repeat("\tpath = "+name+"\n", n)
}

// chain is files a, f1, ..., fn, each including the next.
func chain(n int) map[string]string {
	files := map[string]string{}
	prev := "a"
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("f%d", i)
		files[prev] = fmt.Sprintf("[x]\n\tk = %s\n[include]\n\tpath = %s\n", prev, name)
		prev = name
	}
	files[prev] = "[x]\n\tlast = " + prev + "\n"
	return files
}

var includeCases = []struct {
	name  string
	files map[string]string
}{
	{"self include once", map[string]string{"a": selfIncludes("a", 1)}},
	{"self include five times", map[string]string{"a": selfIncludes("a", 5)}},
	{"two files include each other", map[string]string{"a": "[include]\n\tpath = b\n[x]\n\ty = 1\n", "b": "[x]\n\tz = 2\n[include]\n\tpath = a\n"}},
	{"chain of 10", chain(10)},
	{"chain of 11", chain(11)},
	{"chain of 10 then a missing file", func() map[string]string {
		c := chain(10)
		c["f10"] += "[include]\n\tpath = missing\n"
		return c
	}()},
	{"chain of 10 then an empty file", func() map[string]string {
		c := chain(10)
		c["f10"] += "[include]\n\tpath = empty\n"
		c["empty"] = ""
		return c
	}()},
	{"diamond", map[string]string{"a": "[include]\n\tpath = b\n\tpath = c\n", "b": "[include]\n\tpath = d\n", "c": "[include]\n\tpath = d\n[x]\n\tc = 1\n", "d": "[x]\n\td = 1\n"}},
	{"relative to the including file", map[string]string{"a": "[include]\n\tpath = sub/b\n", "sub/b": "[include]\n\tpath = c\n", "sub/c": "[x]\n\tc = sub\n", "c": "[x]\n\tc = top\n"}},
	{"dot-dot through a missing directory", map[string]string{"a": "[include]\n\tpath = nosuch/../b\n", "b": "[x]\n\tb = 1\n"}},
	{"home", map[string]string{"a": "[include]\n\tpath = ~/b\n", "b": "[x]\n\tb = 1\n"}},
	{"syntax error in an included file", map[string]string{"a": "[include]\n\tpath = b\n[x]\n\tafter = 1\n", "b": "[x]\n\tbefore = 1\n[[[\n"}},
	{"include without a value", map[string]string{"a": "[x]\n\ty = 1\n[include]\n\tpath\n"}},
	{"includeIf without a value, condition false", map[string]string{"a": "[includeIf \"gitdir:/nowhere/\"]\n\tpath\n[x]\n\ty = 1\n"}},
	{"includeIf, condition false", map[string]string{"a": "[includeIf \"onbranch:main\"]\n\tpath = b\n[x]\n\ty = 1\n", "b": "[x]\n\tb = 1\n"}},
	{"include of a directory", map[string]string{"a": "[include]\n\tpath = d\n", "d/": ""}},
	{"empty include path", map[string]string{"a": "[include]\n\tpath =\n[x]\n\ty = 1\n"}},
	{"include of a missing file", map[string]string{"a": "[include]\n\tpath = nosuch\n[x]\n\ty = 1\n"}},
	{"include order", map[string]string{"a": "[x]\n\tv = 1\n[include]\n\tpath = b\n[x]\n\tv = 3\n", "b": "[x]\n\tv = 2\n"}},
	{"include in a capitalised section, quoted", map[string]string{"a": "[Include]\n\tPath = \"b\"\n", "b": "[x]\n\tv = 2\n"}},
}

// TestLoadMatchesGit: git is the oracle of what a config with includes
// says, and of where its include depth ends.
func TestLoadMatchesGit(t *testing.T) {
	if _, err := osexec.LookPath("git"); err != nil {
		t.Skip("skipped: git is not installed")
	}
	for _, c := range includeCases {
		t.Run(c.name, func(t *testing.T) {
			checkLoadAgainstGit(t, writeFiles(t, c.files))
		})
	}
}

// TestLoadErrors: each refusal has its sentinel and names the file.
func TestLoadErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  error
		names string
	}{
		{"self include", map[string]string{"a": selfIncludes("a", 5)}, ErrIncludeDepth, "while including DIR/a from DIR/a"},
		{"chain of 11", chain(11), ErrIncludeDepth, "while including DIR/f11 from DIR/f10"},
		{"syntax", map[string]string{"a": "[include]\n\tpath = b\n", "b": "[[[\n"}, ErrSyntax, "DIR/b"},
		{"no value", map[string]string{"a": "[include]\n\tpath\n"}, ErrSyntax, "DIR/a: missing value for include.path"},
		{"file too large", map[string]string{"a": "[include]\n\tpath = b\n", "b": "[x]\n\ty = " + strings.Repeat("z", 200) + "\n"}, ErrTooLarge, "DIR/b is over 100 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, c.files)
			l := &Loader{ReadFile: osRead, Resolve: gitResolve(dir), MaxFileBytes: 100}
			_, err := l.Load(context.Background(), filepath.Join(dir, "a"))
			if !errors.Is(err, c.want) {
				t.Fatalf("Load: %v, want %v", err, c.want)
			}
			if want := strings.ReplaceAll(c.names, "DIR/", dir+string(filepath.Separator)); !strings.Contains(err.Error(), want) {
				t.Errorf("Load: %q does not say %q", err, want)
			}
		})
	}
}

// memFiles is a file system in memory for the loader: names are looked up
// as they are given.
type memFiles struct {
	files map[string]string
	reads map[string]int
}

func (m *memFiles) read(name string) ([]byte, error) {
	if m.reads == nil {
		m.reads = map[string]int{}
	}
	m.reads[name]++
	s, ok := m.files[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return []byte(s), nil
}

// flatResolve resolves an include within memFiles' one directory: "x"
// and "./x" name x.
func flatResolve(_, p string) []string { return []string{strings.TrimPrefix(p, "./")} }

// fanOut is files f0 ... fn where each includes the next k times: k^n
// readings of fn by git's rules, none too deep.
func fanOut(n, k int) map[string]string {
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("f%d", i)] = "[x]\n\tk = 1\n[include]\n" + strings.Repeat(fmt.Sprintf("\tpath = f%d\n", i+1), k)
	}
	files[fmt.Sprintf("f%d", n)] = "[x]\n\tleaf = 1\n"
	return files
}

// measure runs f and returns how long it took and the bytes it
// allocated.
func measure(f func()) (time.Duration, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	d := time.Since(start)
	runtime.ReadMemStats(&after)
	return d, after.TotalAlloc - before.TotalAlloc
}

// TestLoadBounded: the inputs that are exponential to follow are refused
// at once, within a time and memory bound, and each file is read once.
func TestLoadBounded(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		top   string
		want  error
	}{
		// git: "exceeded maximum include depth" after 11 readings.
		{"five self includes", map[string]string{"a": selfIncludes("a", 5)}, "a", ErrIncludeDepth},
		// git: 5^10 readings (minutes); within git's depth, so the
		// entry bound ends it.
		{"fan-out 5, depth 10", fanOut(10, 5), "f0", ErrTooLarge},
		{"fan-out 1000, depth 3", fanOut(3, 1000), "f0", ErrTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &memFiles{files: c.files}
			var err error
			var n int
			d, alloc := measure(func() {
				ctx, cancel := context.WithTimeout(context.Background(), slowdown*2*time.Second)
				defer cancel()
				l := &Loader{ReadFile: m.read, Resolve: flatResolve}
				var got []Entry
				got, err = l.Load(ctx, c.top)
				n = len(got)
			})
			if !errors.Is(err, c.want) {
				t.Fatalf("Load: %v, want %v", err, c.want)
			}
			if n > DefaultMaxEntries {
				t.Errorf("%d entries, over the bound %d", n, DefaultMaxEntries)
			}
			for name, k := range m.reads {
				if k != 1 {
					t.Errorf("%s read %d times", name, k)
				}
			}
			if d > slowdown*2*time.Second || alloc > 64<<20 {
				t.Errorf("Load took %v and allocated %d MiB (bound: %d s, 64 MiB)", d, alloc>>20, slowdown*2)
			}
		})
	}
}

// TestLoadBounds: each bound of a Loader ends the load with ErrTooLarge
// naming the file; with Once, a file over MaxFileBytes is skipped and the
// rest read.
func TestLoadBounds(t *testing.T) {
	files := map[string]string{
		"a": "[include]\n\tpath = b\n\tpath = c\n\tpath = d\n",
		"b": "[x]\n\tb = " + strings.Repeat("b", 100) + "\n",
		"c": "[x]\n\tc = 1\n\tc = 2\n",
		"d": "[x]\n\td = 1\n",
	}
	for _, c := range []struct {
		name string
		l    Loader
		want string
	}{
		{"file bytes", Loader{MaxFileBytes: 50}, "b is over 50 bytes"},
		{"bytes", Loader{MaxBytes: 160}, "more than 160 bytes in all (reading c)"},
		{"files", Loader{MaxFiles: 2}, "more than 2 files (reading c)"},
		{"entries", Loader{MaxEntries: 4}, "more than 4 entries (reading c)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &memFiles{files: files}
			c.l.ReadFile, c.l.Resolve = m.read, flatResolve
			_, err := c.l.Load(context.Background(), "a")
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load: %v, want ErrTooLarge saying %q", err, c.want)
			}
		})
	}
	m := &memFiles{files: files}
	l := &Loader{ReadFile: m.read, Resolve: flatResolve, Once: true, MaxFileBytes: 50}
	got, err := l.Load(context.Background(), "a")
	if !errors.Is(err, ErrTooLarge) || len(got) != 6 {
		t.Errorf("Once: %q, %v; want the entries of a, c and d and ErrTooLarge for b", listed(got), err)
	}
}

// TestLoadOnce: with Once, a cycle closes without error, every file is
// read once, and a file git refuses gives what it can while the rest is
// read.
func TestLoadOnce(t *testing.T) {
	m := &memFiles{files: map[string]string{
		"a": selfIncludes("a", 5) + "[include]\n\tpath = b\n\tpath = c\n\tpath\n",
		"b": "[core]\n\thooksPath = hb\n[[[\n",
		"c": "[include]\n\tpath = a\n\tpath = b\n[core]\n\thooksPath = hc\n",
	}}
	l := &Loader{ReadFile: m.read, Resolve: flatResolve, Once: true}
	got, err := l.Load(context.Background(), "a")
	if !errors.Is(err, ErrSyntax) {
		t.Errorf("Once: error %v, want the ErrSyntax of b", err)
	}
	var hooks []string
	for _, e := range got {
		if e.Key == "core.hookspath" {
			hooks = append(hooks, e.File+":"+e.Value)
		}
	}
	if strings.Join(hooks, " ") != "b:hb c:hc" {
		t.Errorf("Once: hooksPath entries %q, want b:hb c:hc", hooks)
	}
	for name, k := range m.reads {
		if k != 1 {
			t.Errorf("%s read %d times", name, k)
		}
	}
}

// TestLoadCancel: a load looks at its context between files and entries:
// cancelled in the middle (from ReadFile), it ends with the context's
// error, naming the file.
func TestLoadCancel(t *testing.T) {
	m := &memFiles{files: fanOut(4, 30)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := &Loader{Resolve: flatResolve, ReadFile: func(name string) ([]byte, error) {
		if name == "f3" {
			cancel()
		}
		return m.read(name)
	}}
	_, err := l.Load(ctx, "f0")
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "reading f") {
		t.Fatalf("Load: %v, want context.Canceled naming a file", err)
	}
}

// TestLoadCancelRace cancels loads from another goroutine while they run
// (under -race: no data race between the cancel and the loop), and each
// ends within a bound of the cancel.
func TestLoadCancelRace(t *testing.T) {
	files := fanOut(4, 12) // 12^4 = 20736 readings of f4: some milliseconds
	for i := 0; i < 20; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		var cancelled time.Time
		go func() {
			m := &memFiles{files: files}
			l := &Loader{ReadFile: m.read, Resolve: flatResolve, MaxEntries: 1 << 22}
			_, err := l.Load(ctx, "f0")
			done <- err
		}()
		time.Sleep(time.Duration(i) * 100 * time.Microsecond)
		cancelled = time.Now()
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("Load: %v", err)
			}
			if d := time.Since(cancelled); d > time.Second {
				t.Fatalf("Load returned %v after the cancel", d)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Load did not return 5 s after its context was cancelled")
		}
	}
}

// refLoad is the reference for FuzzConfigIncludes: git's expansion
// written the slow way (every include read and parsed again, no bound
// but visits). It returns the entries listed and "" or the kind of
// error: "depth", "syntax", "budget" (more than visits readings).
func refLoad(files map[string]string, name, from string, depth int, out *[]string, visits *int) string {
	s, ok := files[name]
	if !ok {
		return ""
	}
	if depth > MaxIncludeDepth {
		return "depth"
	}
	if *visits--; *visits < 0 {
		return "budget"
	}
	entries, perr := Parse([]byte(s))
	for _, e := range entries {
		if len(*out) >= 1<<12 {
			return "budget"
		}
		*out = append(*out, listed([]Entry{e})[0])
		if e.Key != "include.path" {
			continue
		}
		if e.NoValue {
			return "syntax"
		}
		if k := refLoad(files, strings.TrimPrefix(e.Value, "./"), name, depth+1, out, visits); k != "" {
			return k
		}
	}
	if perr != nil {
		return "syntax"
	}
	return ""
}

// splitFiles makes files a, b, c, d of fuzz input: its parts between NUL
// bytes (which no config holds).
func splitFiles(b []byte) map[string]string {
	files := map[string]string{}
	for i, part := range bytes.SplitN(b, []byte{0}, 4) {
		files[string(rune('a'+i))] = string(part)
	}
	return files
}

func joinFiles(parts ...string) []byte { return []byte(strings.Join(parts, "\x00")) }

// includeSeeds are the seed corpus of FuzzConfigIncludes (and, with git
// installed, each is checked against git in the unit test run).
var includeSeeds = [][]byte{
	joinFiles(selfIncludes("a", 4)),
	joinFiles(selfIncludes("a", 6)),
	joinFiles("[include]\n\tpath = b\n[x]\n\ty = 1\n", "[x]\n\tz = 2\n[include]\n\tpath = a\n"),
	joinFiles("[include]\n\tpath = b\n\tpath = c\n", "[include]\n\tpath = d\n", "[include]\n\tpath = d\n[x]\n\tc = 1\n", "[x]\n\td = 1\n"),
	joinFiles("[include]\n\tpath = b\n[x]\n\tafter = 1\n", "[x]\n\tbefore = 1\n[[[\n"),
	joinFiles("[x]\n\ty = 1\n[include]\n\tpath\n"),
	joinFiles("[include]\n\tpath = ./b\n\tpath = b\n", "[include]\n\tpath = c\n", "[include]\n\tpath = ./d\n", "[include]\n\tpath = b\n\tpath = b\n"),
	joinFiles("[includeIf \"onbranch:x\"]\n\tpath = b\n[include]\n\tpath = nosuch\n", "[x]\n\tb = 1\n"),
	joinFiles("[Include]\n\tPATH = \"b\"\n[core]\n\tbare\n", "[core]\n\thooksPath = h\n"),
}

// fuzzing reports whether this run is a fuzzing run (-test.fuzz), not
// the seed corpus of a unit test run.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// FuzzConfigIncludes: whatever four files say (a includes b, c, d or
// itself, any number of times, with any syntax), loading a never panics,
// stays within its bounds, reads each file once, gives the same answer
// twice, agrees with a slow reference expansion where that one finishes,
// and with Once gives the same keys where git's reading succeeds. The
// seed corpus (a unit test run) is also checked against git; while
// fuzzing, git is not run (the body must stay fast for -fuzztime
// 100000x).
func FuzzConfigIncludes(f *testing.F) {
	for _, s := range includeSeeds {
		f.Add(s)
	}
	_, noGit := osexec.LookPath("git")
	f.Fuzz(func(t *testing.T, b []byte) {
		files := splitFiles(b)
		const maxEntries = 2000
		load := func(once bool) ([]Entry, error, *memFiles) {
			m := &memFiles{files: files}
			l := &Loader{ReadFile: m.read, Resolve: flatResolve, Once: once, MaxEntries: maxEntries}
			got, err := l.Load(context.Background(), "a")
			return got, err, m
		}
		got, err, m := load(false)
		if len(got) > maxEntries {
			t.Fatalf("%d entries, over the bound %d", len(got), maxEntries)
		}
		for name, k := range m.reads {
			if k != 1 {
				t.Fatalf("%s read %d times", name, k)
			}
		}
		again, err2, _ := load(false)
		if fmt.Sprint(err) != fmt.Sprint(err2) || strings.Join(listed(got), "\n") != strings.Join(listed(again), "\n") {
			t.Fatalf("two loads differ: %v / %v", err, err2)
		}
		var ref []string
		visits := 300
		kind := refLoad(files, "a", "", 0, &ref, &visits)
		if kind != "budget" && !errors.Is(err, ErrTooLarge) {
			var mine string
			switch {
			case errors.Is(err, ErrIncludeDepth):
				mine = "depth"
			case errors.Is(err, ErrSyntax):
				mine = "syntax"
			case err != nil:
				t.Fatalf("unexpected error %v", err)
			}
			if mine != kind {
				t.Fatalf("Load: %v; the reference: %q", err, kind)
			}
			if strings.Join(listed(got), "\n") != strings.Join(ref, "\n") {
				t.Fatalf("Load gave\n%q\nthe reference\n%q", listed(got), ref)
			}
		}
		if err == nil {
			all, oerr, _ := load(true)
			if oerr != nil || !sameSet(listed(all), listed(got)) {
				t.Fatalf("Once: %q, %v; git's reading: %q", listed(all), oerr, listed(got))
			}
		}
		if noGit == nil && !fuzzing() {
			dir := t.TempDir()
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkLoadAgainstGit(t, dir)
		}
	})
}

func sameSet(a, b []string) bool {
	dedupe := func(s []string) string {
		s = append([]string(nil), s...)
		sort.Strings(s)
		out := s[:0]
		for i, v := range s {
			if i == 0 || v != s[i-1] {
				out = append(out, v)
			}
		}
		return strings.Join(out, "\n")
	}
	return dedupe(a) == dedupe(b)
}
