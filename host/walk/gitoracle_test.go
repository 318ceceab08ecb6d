package walk

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agenthost/agenthost/internal/gittest"
)

// This file is the oracle: it builds real repositories in temporary
// directories and asks git what is ignored. No expected answer in these
// tests is typed in by hand.

// gitEnv is an isolated git world (internal/gittest): its own HOME,
// global config and (optionally) XDG_CONFIG_HOME, no system config, for
// git and for the Cache alike.
type gitEnv struct {
	t    testing.TB
	g    *gittest.Env
	tmp  string
	home string
	xdg  string // "" when XDG_CONFIG_HOME is unset
	repo string
}

func newGitEnv(t testing.TB, xdg bool) *gitEnv {
	t.Helper()
	var opts []gittest.Option
	if !xdg {
		opts = append(opts, gittest.NoXDG())
	}
	g := gittest.New(t, opts...)
	tmp := filepath.Dir(g.Home)
	e := &gitEnv{t: t, g: g, tmp: tmp, home: g.Home, xdg: g.XDG, repo: filepath.Join(tmp, "repo")}
	g.Init(t, e.repo)
	return e
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// getenv is the Cache.Getenv of this world.
func (e *gitEnv) getenv(k string) string { return e.g.Getenv(k) }

func (e *gitEnv) cache() *Cache { return &Cache{Getenv: e.getenv} }

// git runs git in dir and returns its stdout.
func (e *gitEnv) git(dir string, args ...string) []byte {
	e.t.Helper()
	return e.gitIn(dir, nil, args...)
}

func (e *gitEnv) gitIn(dir string, stdin []byte, args ...string) []byte {
	e.t.Helper()
	out, code := e.g.Run(e.t, dir, string(stdin), args...)
	// check-ignore exits 1 when nothing is ignored.
	if code != 0 && (code != 1 || args[0] != "check-ignore") {
		e.t.Fatalf("git %q in %s: exit %d", args, dir, code)
	}
	return []byte(out)
}

// abs resolves the test DSL's path prefixes: "~/" is HOME, "$XDG/" is
// XDG_CONFIG_HOME, "/" is the temporary directory, anything else is inside
// the repository.
func (e *gitEnv) abs(p string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(e.home, p[2:])
	case strings.HasPrefix(p, "$XDG/"):
		return filepath.Join(e.xdg, p[5:])
	case strings.HasPrefix(p, "/"):
		return filepath.Join(e.tmp, p[1:])
	}
	return filepath.Join(e.repo, p)
}

// write creates a file (and its parents) with contents.
func (e *gitEnv) write(p, contents string) {
	e.t.Helper()
	a := e.abs(p)
	must(e.t, os.MkdirAll(filepath.Dir(a), 0o755))
	must(e.t, os.WriteFile(a, []byte(contents), 0o644))
}

// make creates entries from the DSL: "a/b" a file, "a/b/" a directory,
// "a -> target" a symbolic link.
func (e *gitEnv) make(specs ...string) {
	e.t.Helper()
	for _, s := range specs {
		switch {
		case strings.Contains(s, " -> "):
			name, target, _ := strings.Cut(s, " -> ")
			a := e.abs(name)
			must(e.t, os.MkdirAll(filepath.Dir(a), 0o755))
			must(e.t, os.Symlink(target, a))
		case strings.HasSuffix(s, "/"):
			must(e.t, os.MkdirAll(e.abs(s), 0o755))
		default:
			e.write(s, "x\n")
		}
	}
}

// diskTree lists everything under root except ".git" entries: files (and
// symbolic links) and directories, relative to root.
func diskTree(t testing.TB, root string) (files, dirs []string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: skipped, as the walk reports it
		}
		if p == root {
			return nil
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.IsDir():
			dirs = append(dirs, rel)
		case d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0:
			files = append(files, rel)
		}
		return nil
	})
	must(t, err)
	return files, dirs
}

// isRepoRoot reports whether dir holds a git repository git would see.
func isRepoRoot(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, ".git"))
	if err != nil {
		return false
	}
	if fi.IsDir() {
		_, err := os.Stat(filepath.Join(dir, ".git", "HEAD"))
		return err == nil
	}
	return fi.Mode().IsRegular()
}

// oracle answers, by asking git, what a walk from e.repo should list and
// whether a path is ignored. Paths are relative to e.repo, '/'-separated.
type oracle struct {
	e     *gitEnv
	mu    sync.Mutex
	asked map[string]map[string]bool // repo root -> rel path -> ignored
}

func newOracle(e *gitEnv) *oracle { return &oracle{e: e, asked: map[string]map[string]bool{}} }

// repoChain returns the repositories holding rel (outermost first) as
// paths relative to e.repo ("" is e.repo itself).
func (o *oracle) repoChain(rel string) []string {
	chain := []string{""}
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		d := strings.Join(parts[:i], "/")
		if isRepoRoot(filepath.Join(o.e.repo, d)) {
			chain = append(chain, d)
		}
	}
	return chain
}

// prefetch asks git check-ignore, one process per repository, about every
// path given (relative to e.repo), plus every repository root on the way.
func (o *oracle) prefetch(paths []string) {
	per := map[string][]string{}
	for _, p := range paths {
		chain := o.repoChain(strings.TrimSuffix(p, "/"))
		for i, r := range chain {
			var q string
			if i+1 < len(chain) {
				q = chain[i+1] // the nested root, judged by its parent repo
			} else {
				q = p
			}
			if r != "" {
				q = strings.TrimPrefix(q, r+"/")
			}
			per[r] = append(per[r], q)
		}
	}
	for r, qs := range per {
		dir := filepath.Join(o.e.repo, r)
		var in bytes.Buffer
		for _, q := range qs {
			// "./" keeps a leading ':' from reading as pathspec magic
			// (check-ignore refuses GIT_LITERAL_PATHSPECS); git echoes it.
			in.WriteString("./" + q)
			in.WriteByte(0)
		}
		out := o.e.gitIn(dir, in.Bytes(), "check-ignore", "-z", "-v", "-n", "--no-index", "--stdin")
		f := strings.Split(string(out), "\x00")
		o.mu.Lock()
		m := o.asked[r]
		if m == nil {
			m = map[string]bool{}
			o.asked[r] = m
		}
		for i := 0; i+3 < len(f); i += 4 {
			// A match has a source; its pattern may be empty (a line of
			// spaces is the empty pattern, which matches "dir/").
			source, pattern, path := f[i], f[i+2], strings.TrimPrefix(f[i+3], "./")
			m[path] = source != "" && !strings.HasPrefix(pattern, "!")
		}
		o.mu.Unlock()
	}
}

// ignoredIn is git check-ignore's answer for rel in repository r.
func (o *oracle) ignoredIn(r, rel string) bool {
	o.mu.Lock()
	m, ok := o.asked[r][rel]
	o.mu.Unlock()
	if !ok {
		o.prefetch([]string{strings.TrimPrefix(r+"/"+rel, "/")})
		o.mu.Lock()
		m, ok = o.asked[r][rel]
		o.mu.Unlock()
		if !ok {
			o.e.t.Fatalf("git check-ignore gave no answer for %q in %q", rel, r)
		}
	}
	return m
}

// ignored is the answer for rel (relative to e.repo): fromTop judges it as
// a walk from e.repo does (a nested repository's root is judged by the
// repository around it); otherwise only its own repository is asked.
func (o *oracle) ignored(rel string, fromTop bool) bool {
	chain := o.repoChain(strings.TrimSuffix(rel, "/"))
	own := chain[len(chain)-1]
	q := rel
	if own != "" {
		q = strings.TrimPrefix(rel, own+"/")
	}
	if o.ignoredIn(own, q) {
		return true
	}
	if fromTop {
		for i := 1; i < len(chain); i++ {
			nested := strings.TrimPrefix(chain[i], chain[i-1]+"/")
			if chain[i-1] == "" {
				nested = chain[i]
			}
			if o.ignoredIn(chain[i-1], nested) {
				return true
			}
		}
	}
	return false
}

// files lists what git ls-files -co --exclude-standard shows for dir
// (relative to e.repo), with each nested repository expanded by asking it,
// tracked files that are ignored or gone from the disk left out (the walk
// knows nothing of the index).
func (o *oracle) files(dir string) []string {
	abs := filepath.Join(o.e.repo, dir)
	out := o.e.git(abs, "ls-files", "-z", "-o", "-c", "--exclude-standard")
	var res []string
	seen := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		if !strings.HasSuffix(p, "/") {
			if _, err := os.Lstat(filepath.Join(abs, p)); err != nil {
				continue
			}
			if o.ignoredIn(dir, p) {
				continue
			}
		}
		full := p
		if dir != "" {
			full = dir + "/" + p
		}
		if strings.HasSuffix(p, "/") {
			res = append(res, o.files(strings.TrimSuffix(full, "/"))...)
			continue
		}
		res = append(res, full)
	}
	sort.Strings(res)
	return res
}

// walkIsLsFiles fails t (what says which case) unless a Walk of e.repo,
// hidden files in, lists exactly the files git ls-files -co
// --exclude-standard names; it reports whether they agreed.
func walkIsLsFiles(t testing.TB, e *gitEnv, what string) bool {
	t.Helper()
	want := slices.Compact(nulList(e.git(e.repo, "ls-files", "-z", "-co", "--exclude-standard")))
	got, _, err := walkRel(t, e.cache(), e.repo, Options{Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: walk and git differ:\n%s", what, diff(want, got))
		return false
	}
	return true
}

// walkRel runs a Walk from e.repo and returns the entries relative to it,
// files and directories apart, sorted.
func walkRel(t testing.TB, c *Cache, root string, opts Options) (files, dirs []string, err error) {
	t.Helper()
	var mu sync.Mutex
	err = c.Walk(context.Background(), root, opts, func(en Entry) error {
		rel, rerr := filepath.Rel(root, en.Path)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		mu.Lock()
		defer mu.Unlock()
		if en.IsDir {
			dirs = append(dirs, rel)
		} else {
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	sort.Strings(dirs)
	return files, dirs, err
}

// hidden reports whether some component of rel starts with '.'.
func hidden(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if strings.HasPrefix(c, ".") {
			return true
		}
	}
	return false
}

func filter(in []string, keep func(string) bool) []string {
	var out []string
	for _, s := range in {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// diff describes how got differs from want, or "" when equal.
func diff(want, got []string) string {
	w := map[string]bool{}
	for _, s := range want {
		w[s] = true
	}
	g := map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	var b strings.Builder
	for _, s := range want {
		if !g[s] {
			b.WriteString("  missing: " + quote(s) + "\n")
		}
	}
	for _, s := range got {
		if !w[s] {
			b.WriteString("  extra:   " + quote(s) + "\n")
		}
	}
	return b.String()
}

func quote(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f || s[i] == '"' || s[i] == '\\' {
			return strconv.Quote(s)
		}
	}
	return s
}

// checkAgainstGit compares Walk (all option combinations that git can
// judge) and IsIgnored (for every file and directory on disk and the extra
// probes) with git's answers for the repository of e.
func checkAgainstGit(t *testing.T, e *gitEnv, c *Cache, probes []string) {
	t.Helper()
	o := newOracle(e)
	diskFiles, diskDirs := diskTree(t, e.repo)
	var all []string
	all = append(all, diskFiles...)
	all = append(all, diskDirs...)
	for _, d := range diskDirs {
		all = append(all, d+"/")
	}
	all = append(all, probes...)
	o.prefetch(all)

	wantFiles := o.files("")
	var wantDirs []string
	for _, d := range diskDirs {
		if !o.ignored(d, true) {
			wantDirs = append(wantDirs, d)
		}
	}

	gotFiles, gotDirs, err := walkRel(t, c, e.repo, Options{Hidden: true})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	if d := diff(wantFiles, gotFiles); d != "" {
		t.Errorf("Walk(Hidden) files differ from git ls-files -o --exclude-standard:\n%s", d)
	}
	if d := diff(wantDirs, gotDirs); d != "" {
		t.Errorf("Walk(Hidden) directories differ from git check-ignore:\n%s", d)
	}

	// Without Hidden: the same minus anything under a dot-name.
	gotFiles, gotDirs, err = walkRel(t, c, e.repo, Options{})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	notHidden := func(s string) bool { return !hidden(s) }
	if d := diff(filter(wantFiles, notHidden), gotFiles); d != "" {
		t.Errorf("Walk() files differ:\n%s", d)
	}
	if d := diff(filter(wantDirs, notHidden), gotDirs); d != "" {
		t.Errorf("Walk() directories differ:\n%s", d)
	}

	// NoIgnore: everything on disk but .git.
	gotFiles, gotDirs, err = walkRel(t, c, e.repo, Options{NoIgnore: true, Hidden: true})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	sort.Strings(diskFiles)
	if d := diff(diskFiles, gotFiles); d != "" {
		t.Errorf("Walk(NoIgnore) files differ from the disk:\n%s", d)
	}
	if d := diff(diskDirs, gotDirs); d != "" {
		t.Errorf("Walk(NoIgnore) directories differ from the disk:\n%s", d)
	}

	// MaxDepth 1: the top level of the full answer.
	gotFiles, gotDirs, err = walkRel(t, c, e.repo, Options{Hidden: true, MaxDepth: 1})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	top := func(s string) bool { return !strings.Contains(s, "/") }
	if d := diff(filter(wantFiles, top), gotFiles); d != "" {
		t.Errorf("Walk(MaxDepth 1) files differ:\n%s", d)
	}
	if d := diff(filter(wantDirs, top), gotDirs); d != "" {
		t.Errorf("Walk(MaxDepth 1) directories differ:\n%s", d)
	}

	// IsIgnored, from the top and from the path's own repository.
	ctx := context.Background()
	for _, p := range all {
		abs := filepath.Join(e.repo, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			abs += string(os.PathSeparator)
		}
		for _, fromTop := range []bool{true, false} {
			tp := ""
			if fromTop {
				tp = e.repo
			}
			got, err := c.IsIgnored(ctx, tp, abs)
			if err != nil {
				t.Errorf("IsIgnored(%q): %v", p, err)
				continue
			}
			if want := o.ignored(p, fromTop); got != want {
				t.Errorf("IsIgnored(top=%v, %s) = %v, git check-ignore says %v", fromTop, quote(p), got, want)
			}
		}
	}
}
