package walk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agenthost/agenthost/internal/gitconfig"
)

// This file finds what a repository contributes besides its .gitignore
// files: where its git directory is (".git" may be a file, as in a linked
// worktree or a submodule), core.ignorecase and core.excludesFile from the
// git configuration, info/exclude, and the global excludes file.

// ErrIncludeDepth is what Walk (inside a *PartialError) and IsIgnored
// return for a repository whose git configuration git refuses to read
// because a file in it is reached through more than 10 nested includes
// ("exceeded maximum include depth": most often a config that includes
// itself). The message names the file and the one including it. git
// fails every command in that repository: IsIgnored gives no answer there,
// and Walk lists the repository by the configuration read before the
// fault.
var ErrIncludeDepth = gitconfig.ErrIncludeDepth

// ErrConfigTooLarge is reported like ErrIncludeDepth for a repository
// whose configuration, with its includes, is past the bounds of
// gitconfig.Loader (a file over 4 MiB, 16 MiB or 131,072 entries in all,
// or 1,024 files): git would read on, but a hostile config could make that
// reading take minutes and gigabytes.
var ErrConfigTooLarge = gitconfig.ErrTooLarge

// repoInfo is one repository's non-directory ignore sources.
type repoInfo struct {
	root      string // the working tree root (the directory holding .git)
	gitDir    string
	commonDir string
	valid     bool     // a git directory with a HEAD was found
	fold      bool     // core.ignorecase
	exclude   *ruleSet // $GIT_COMMON_DIR/info/exclude, nil if none
	global    *ruleSet // core.excludesFile or its XDG default, nil if none
	// cfgErr is why the configuration could not be read as git reads it
	// (ErrIncludeDepth, ErrConfigTooLarge), or the context's error when
	// the reading was cut short (interrupted: the repoInfo is then kept
	// nowhere, see repoFor).
	cfgErr      error
	interrupted bool
	// indexFile is $GIT_DIR/index. It is not among deps: it changes at
	// every git add, which must not make the repository's configuration
	// be read again; indexFor re-checks it on its own.
	indexFile *cachedFile

	checked int64
	watched bool // every dependency is watched (as of wgen)
	wgen    uint64
	deps    []*cachedFile
	gens    []uint64
}

// repoFor returns the up-to-date repository rooted at root (a directory
// holding a ".git" entry). Reading its configuration stops when ctx ends:
// the repoInfo returned then has interrupted set and is not kept. Callers
// hold c.mu.
func (c *Cache) repoFor(ctx context.Context, root string, now int64) *repoInfo {
	r := c.repos[root]
	if r != nil {
		if c.trusted(r.checked, r.wgen, r.watched, now) {
			return r
		}
		// The gen before the loads, which may let the lock go: a change
		// reported meanwhile must leave r untrusted.
		same, watched, gen := true, true, c.gen
		for i, f := range r.deps {
			if f.load(c, now).gen != r.gens[i] {
				same = false
				break
			}
			watched = watched && f.watched
		}
		if same {
			r.checked, r.watched, r.wgen = now, watched, gen
			return r
		}
	}
	r = c.loadRepo(ctx, root, now)
	if !r.interrupted {
		c.repos[root] = r
	}
	return r
}

// loadRepo reads a repository's git directory, configuration and exclude
// files, recording every file consulted (present or not) as a dependency.
func (c *Cache) loadRepo(ctx context.Context, root string, now int64) *repoInfo {
	r := &repoInfo{root: root, checked: now, watched: true, wgen: c.gen}
	depOf := func(path string, statOnly bool) *cachedFile {
		f := c.file(path, true, statOnly).load(c, now)
		r.deps = append(r.deps, f)
		r.gens = append(r.gens, f.gen)
		r.watched = r.watched && f.watched
		return f
	}
	dep := func(path string) *cachedFile { return depOf(path, false) }

	dotgit := dep(filepath.Join(root, ".git"))
	r.gitDir = filepath.Join(root, ".git")
	if dotgit.key.exists && !dotgit.key.isDir {
		// "gitdir: <path>", relative to the directory holding the file.
		line := string(bytes.TrimRight(dotgit.data, "\r\n"))
		if rest, ok := strings.CutPrefix(line, "gitdir:"); ok {
			r.gitDir = absJoin(root, strings.TrimSpace(rest))
		}
	}
	// Like git, accept only a git directory that has a HEAD: a stray empty
	// ".git" does not make a repository.
	r.valid = depOf(filepath.Join(r.gitDir, "HEAD"), true).key.exists
	r.commonDir = r.gitDir
	if cd := dep(filepath.Join(r.gitDir, "commondir")); len(cd.data) > 0 {
		r.commonDir = absJoin(r.gitDir, strings.TrimRight(string(cd.data), "\r\n"))
	}

	cfg, err := c.readConfig(ctx, r, dep)
	r.cfgErr = err
	r.interrupted = errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	r.fold = cfg.ignoreCase
	excludes := cfg.excludesFile
	if !cfg.excludesSet {
		if xdg := c.getenv("XDG_CONFIG_HOME"); xdg != "" {
			excludes = filepath.Join(xdg, "git", "ignore")
		} else if home := c.getenv("HOME"); home != "" {
			excludes = filepath.Join(home, ".config", "git", "ignore")
		}
	}
	// Compiling the exclude files stops when ctx ends, as reading the
	// configuration does: the repoInfo is then interrupted, not kept.
	rulesOf := func(f *cachedFile) *ruleSet {
		rs, err := f.rules(c, ctx, "", r.fold)
		if err != nil {
			r.cfgErr, r.interrupted = err, true
		}
		return rs
	}
	if excludes != "" && !cfg.excludesDenied {
		r.global = rulesOf(dep(absJoin(root, excludes)))
	}
	r.exclude = rulesOf(dep(filepath.Join(r.commonDir, "info", "exclude")))
	r.indexFile = c.file(filepath.Join(r.gitDir, "index"), true, false)
	if !r.indexFile.isIndex {
		// Read up to maxIndexFileSize from now on; an entry that a config
		// include made first was read to maxIgnoreFileSize, so look again.
		r.indexFile.isIndex, r.indexFile.checked = true, 0
	}
	return r
}

// indexFor returns r's index as it is now (re-read when the file changed,
// by the same rules as any file the Cache depends on), decoded outside the
// lock; one whose decoding ctx stopped is returned with that error and not
// kept. Callers hold c.mu.
func (c *Cache) indexFor(ctx context.Context, r *repoInfo, now int64) *gitIndex {
	if r == nil || r.indexFile == nil {
		return nil
	}
	f := r.indexFile.load(c, now)
	if f.index != nil && f.indexGen == f.gen && (f.key.exists || f.index.absentAt == f.checked) {
		return f.index
	}
	if f.key.exists && !f.key.isDir && f.key.size > 0 && len(f.data) == 0 {
		// Not read: over maxIndexFileSize, or it failed. Never taken for
		// an absent index, which would change what is tracked.
		ix := &gitIndex{err: fmt.Errorf("%s: %w: %d bytes, could not be read", f.path, ErrIndexUnsupported, f.key.size)}
		if f.key.size > maxIndexFileSize {
			ix.err = fmt.Errorf("%s: %w: %d bytes, over the %d this package reads", f.path, ErrIndexTooLarge, f.key.size, maxIndexFileSize)
		} else if err := c.indexOpenErr(f.path); err != nil {
			ix.err = err // it cannot be opened: say why, as git does
		}
		f.index, f.indexGen = ix, f.gen
		return ix
	}
	data, gen, path, checked, absent := f.data, f.gen, f.path, f.checked, !f.key.exists
	c.mu.Unlock()
	var ix *gitIndex
	if absent {
		// Absent, or not to be opened (git stops there): see indexOpenErr.
		ix = &gitIndex{absentAt: checked}
		ix.err = c.indexOpenErr(path)
	} else {
		ix = parseIndex(ctx, data, path)
	}
	c.mu.Lock()
	if f.gen == gen && ctx.Err() == nil {
		f.index, f.indexGen = ix, gen
	}
	return ix
}

// absJoin makes p absolute against dir (p may already be absolute).
func absJoin(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// gitConfig is what the walker needs from git's configuration.
type gitConfig struct {
	ignoreCase   bool
	excludesFile string
	excludesSet  bool
	// excludesDenied: excludesFile came from a file inside the Jail's
	// roots and names one outside them; it is taken as missing.
	excludesDenied bool
}

// readConfig reads the configuration files git would, in git's order (the
// last value wins): the system file (unless GIT_CONFIG_NOSYSTEM), the
// global ones (GIT_CONFIG_GLOBAL, or $XDG_CONFIG_HOME/git/config then
// ~/.gitconfig), the repository's config and, with
// extensions.worktreeConfig, its config.worktree, then GIT_CONFIG_COUNT
// pairs from the environment. include.path and includeIf "gitdir:" /
// "gitdir/i:" are followed (gitconfig.Loader: git's include depth, each
// file read once, bounded); other includeIf conditions are not. With a
// Jail, a file read through it (one inside the roots) may name only paths
// inside the roots: a core.excludesFile, include.path or includeIf path
// it names outside them is taken as a file that does not exist, whatever
// is there (git would read it; see Jail).
//
// A file that does not parse gives the variables before the fault, and
// the others are read on (git would refuse to run; we keep what we
// understood). A fault git dies on that leaves no configuration to speak
// of (ErrIncludeDepth, ErrConfigTooLarge) or the end of ctx stops the
// reading: what was read before it is returned with the error.
func (c *Cache) readConfig(ctx context.Context, r *repoInfo, dep func(string) *cachedFile) (gitConfig, error) {
	var cfg gitConfig
	worktreeConfig := false
	// key is as git lists it (section and name lower-cased); jailed: the
	// variable comes from a file read through the Jail.
	set := func(key, value string, noValue, jailed bool) {
		switch key {
		case "core.ignorecase":
			if b, ok := parseGitBool(value, noValue); ok {
				cfg.ignoreCase = b
			}
		case "core.excludesfile":
			if noValue {
				return
			}
			cfg.excludesFile = c.expandConfigPath(value)
			cfg.excludesSet = cfg.excludesFile != ""
			cfg.excludesDenied = cfg.excludesSet && !c.confinedPath(jailed, absJoin(r.root, cfg.excludesFile))
		case "extensions.worktreeconfig":
			if b, ok := parseGitBool(value, noValue); ok {
				worktreeConfig = b
			}
		}
	}
	jailed := map[string]bool{} // by file read: read through the Jail
	l := &gitconfig.Loader{
		// Each file is a dependency of the repository, looked at once.
		ReadFile: func(path string) ([]byte, error) {
			f := dep(path)
			if !f.key.exists {
				return nil, fs.ErrNotExist
			}
			jailed[path] = f.jailed
			return f.data, nil
		},
		Resolve: func(from, p string) []string {
			if p := absJoin(filepath.Dir(from), c.expandConfigPath(p)); c.confinedPath(jailed[from], p) {
				return []string{p}
			}
			return nil
		},
		Cond: func(from, cond string) bool { return c.gitdirCondition(cond, filepath.Dir(from), r.gitDir) },
	}
	readFile := func(path string) error {
		entries, err := l.Load(ctx, path)
		for _, e := range entries {
			set(e.Key, e.Value, e.NoValue, jailed[e.File])
		}
		if errors.Is(err, gitconfig.ErrSyntax) {
			return nil
		}
		return err
	}

	var files []string
	if !isTrue(c.getenv("GIT_CONFIG_NOSYSTEM")) {
		sys := c.getenv("GIT_CONFIG_SYSTEM")
		if sys == "" {
			sys = "/etc/gitconfig"
		}
		files = append(files, sys)
	}
	if g := c.getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, c.expandConfigPath(g))
	} else {
		if xdg := c.getenv("XDG_CONFIG_HOME"); xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		} else if home := c.getenv("HOME"); home != "" {
			files = append(files, filepath.Join(home, ".config", "git", "config"))
		}
		if home := c.getenv("HOME"); home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	files = append(files, filepath.Join(r.commonDir, "config"))
	for _, f := range files {
		if err := readFile(f); err != nil {
			return cfg, err
		}
	}
	if worktreeConfig {
		if err := readFile(filepath.Join(r.gitDir, "config.worktree")); err != nil {
			return cfg, err
		}
	}
	if n, err := strconv.Atoi(c.getenv("GIT_CONFIG_COUNT")); err == nil {
		for i := 0; i < n; i++ {
			k := c.getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
			v := c.getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))
			if dot, last := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.'); dot > 0 && dot == last {
				set(strings.ToLower(k), v, false, false) // git lower-cases a key's section and name
			}
		}
	}
	return cfg, nil
}

// expandConfigPath expands a leading "~/" (or a lone "~") as git does for
// path-valued variables.
func (c *Cache) expandConfigPath(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home := c.getenv("HOME"); home != "" {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// gitdirCondition evaluates an includeIf condition; only "gitdir:" and
// "gitdir/i:" are understood (anything else is false). As in git, a
// pattern not starting with '/', "~/" or "./" gets "**/" in front, one
// ending in '/' gets "**" appended, and "./" is relative to the directory
// of the file holding the condition.
func (c *Cache) gitdirCondition(cond, configDir, gitDir string) bool {
	var fold bool
	var pat string
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		pat = cond[len("gitdir:"):]
	case strings.HasPrefix(cond, "gitdir/i:"):
		pat, fold = cond[len("gitdir/i:"):], true
	default:
		return false
	}
	switch {
	case strings.HasPrefix(pat, "~/"):
		pat = c.expandConfigPath(pat)
	case strings.HasPrefix(pat, "./"):
		pat = filepath.Join(configDir, pat[2:])
		if strings.HasSuffix(cond, "/") {
			pat += "/"
		}
	case !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	flags := wmPathname
	if fold {
		flags |= wmCasefold
	}
	if wildmatch(pat, gitDir, flags) {
		return true
	}
	if real, err := filepath.EvalSymlinks(gitDir); err == nil && real != gitDir {
		return wildmatch(pat, real, flags)
	}
	return false
}

// parseGitBool reads a git boolean; a variable with no "=" (noValue) is
// true.
func parseGitBool(v string, noValue bool) (value, ok bool) {
	if noValue {
		return true, true
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0", "":
		return false, true
	}
	if n, err := strconv.Atoi(v); err == nil {
		return n != 0, true
	}
	return false, false
}

func isTrue(v string) bool {
	b, ok := parseGitBool(v, false)
	return ok && b
}
