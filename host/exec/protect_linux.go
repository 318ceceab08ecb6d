package exec

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// The protected set is checked and restored after the command's whole
// tree has ended, not refused while it runs: Landlock grants rights on
// hierarchies and cannot say "writable directory, these names inside it
// read-only", and bind mounts could only cover paths that exist before the
// run (a new .envrc or a hook in a hooks directory made by the command
// would pass). So the parent lists the protected paths of every root
// before the run (contents, mode, link target), lists them again after,
// and puts back what changed: a new protected path is removed, a changed
// one rewritten, a removed one recreated. Every step is done through
// descriptors opened without following links from the root down, so a
// link the command left in place of a directory cannot steer the
// restore outside.

// maxProtectedBytes caps the size of one protected file kept for a
// restore; a larger one (not expected: hooks, configs) is kept by size
// and mode only, and a change to it removes the file.
const maxProtectedBytes = 1 << 20

// protEntry is one protected path as it was.
type protEntry struct {
	mode os.FileMode // type and permission bits
	data []byte      // file contents; nil when over the cap
	link string      // link target
	big  bool
	// stamp identifies a file too big to keep (inode, size, change
	// time): a change to it shows in the stamp.
	stamp [4]int64
}

// protectSnap is the protected set of some roots at one moment.
type protectSnap struct {
	roots   []string
	extra   []string
	entries map[string]protEntry // root index "\x00" relative path
}

// snapshotProtected lists the protected paths inside roots.
func snapshotProtected(roots, extra []string) *protectSnap {
	p := &protectSnap{roots: roots, extra: extra}
	p.entries = p.scan()
	return p
}

// scan lists the protected paths now.
func (p *protectSnap) scan() map[string]protEntry {
	out := map[string]protEntry{}
	var split [][]string
	for _, pat := range append(append([]string(nil), ProtectedPaths...), p.extra...) {
		if pat = strings.Trim(pat, "/"); pat != "" {
			split = append(split, strings.Split(pat, "/"))
		}
	}
	for i, root := range p.roots {
		w := protWalker{root: root, idx: i, out: out, split: split}
		w.dir("")
	}
	return out
}

// protWalker walks one root for the protected set.
type protWalker struct {
	root     string
	idx      int
	split    [][]string // the protected patterns, by component
	out      map[string]protEntry
	hookDirs []string // core.hooksPath directories found, relative
}

func protKey(idx int, rel string) string { return string(rune('0'+idx)) + "\x00" + rel }

// dir walks the directory rel (relative to the root, "" for the root).
// The walk holds one descriptor per level and opens each directory from
// its parent's descriptor without following links.
func (w *protWalker) dir(rel string) {
	fd, err := openNoFollow(w.root, rel, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return
	}
	w.dirAt(fd, rel)
}

// dirAt walks the directory open as fd, named rel, and closes fd.
func (w *protWalker) dirAt(fd int, rel string) {
	f := os.NewFile(uintptr(fd), rel)
	ents, _ := f.ReadDir(-1)
	for _, e := range ents {
		name := e.Name()
		crel := name
		if rel != "" {
			crel = rel + "/" + name
		}
		isDir := e.IsDir()
		if name == ".git" && isDir {
			w.gitDir(crel, path.Dir(crel))
			continue
		}
		if w.protected(name, crel) {
			w.record(crel)
			continue
		}
		if isDir {
			cfd, err := openatOwner(int(f.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY)
			if err == nil {
				w.dirAt(cfd, crel)
			}
		}
	}
	f.Close()
}

// protected reports whether rel (whose last component is name) matches
// a protected pattern: the pattern's components against rel's last
// components. The last component is compared first: most names match no
// pattern's.
func (w *protWalker) protected(name, rel string) bool {
	for _, pp := range w.split {
		if !matchComponent(pp[len(pp)-1], name) {
			continue
		}
		if len(pp) == 1 {
			return true
		}
		parts := strings.Split(rel, "/")
		if len(pp) > len(parts) {
			continue
		}
		tail := parts[len(parts)-len(pp):]
		ok := true
		for i := range pp[:len(pp)-1] {
			if !matchComponent(pp[i], tail[i]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// matchComponent is path.Match for one component, with fast paths for a
// pattern without metacharacters and for prefix*suffix: the walk asks it
// of every name.
func matchComponent(pat, name string) bool {
	if !strings.ContainsAny(pat, `*?[\`) {
		return pat == name
	}
	if i := strings.IndexByte(pat, '*'); i >= 0 && !strings.ContainsAny(pat[i+1:], `*?[\`) && !strings.ContainsAny(pat[:i], `?[\`) {
		// prefix*suffix: the one glob of the default list.
		prefix, suffix := pat[:i], pat[i+1:]
		return len(name) >= len(prefix)+len(suffix) && strings.HasPrefix(name, prefix) && strings.HasSuffix(name, suffix) &&
			!strings.Contains(name, "/")
	}
	m, _ := path.Match(pat, name)
	return m
}

// gitDir records the protected parts of the git directory rel, whose
// worktree is work ("." for the root).
func (w *protWalker) gitDir(rel, work string) {
	for _, name := range []string{"config", "config.worktree", "commondir", "gitdir"} {
		w.recordIfExists(path.Join(rel, name))
	}
	w.recordIfExists(path.Join(rel, "hooks"))
	if cfg, err := readFileNoFollow(w.root, path.Join(rel, "config")); err == nil {
		if hp := hooksPath(cfg); hp != "" {
			var hrel string
			switch {
			case filepath.IsAbs(hp):
				if r, err := filepath.Rel(w.root, hp); err == nil && !strings.HasPrefix(r, "..") {
					hrel = filepath.ToSlash(r)
				}
			default:
				hrel = path.Clean(path.Join(work, hp))
			}
			if hrel != "" && !strings.HasPrefix(hrel, "..") && hrel != "." {
				w.recordIfExists(hrel)
			}
		}
	}
	for _, sub := range []string{"modules", "worktrees"} {
		w.nestedGitDirs(path.Join(rel, sub))
	}
}

// nestedGitDirs records the git directories beneath rel (.git/modules
// names may hold slashes; .git/worktrees has one level).
func (w *protWalker) nestedGitDirs(rel string) {
	ents, err := readDirNoFollow(w.root, rel)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.typ != unix.DT_DIR {
			continue
		}
		crel := path.Join(rel, e.name)
		if _, err := lstatNoFollow(w.root, path.Join(crel, "HEAD")); err == nil {
			w.gitDir(crel, crel) // a hooksPath there is relative to a worktree we do not know: taken from it
			continue
		}
		w.nestedGitDirs(crel)
	}
}

// hooksPath returns core.hooksPath from a config file's text, as git
// reads it (`git config --file - core.hooksPath`), or "".
func hooksPath(cfg []byte) string {
	if !bytes.Contains(bytes.ToLower(cfg), []byte("hookspath")) {
		return ""
	}
	cmd := osexec.Command("git", "config", "--file", "-", "--get", "core.hooksPath")
	cmd.Stdin = bytes.NewReader(cfg)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func (w *protWalker) recordIfExists(rel string) {
	if _, err := lstatNoFollow(w.root, rel); err == nil {
		w.record(rel)
	}
}

// record keeps rel (and, for a directory, everything beneath it).
func (w *protWalker) record(rel string) {
	st, err := lstatNoFollow(w.root, rel)
	if err != nil {
		return
	}
	e := protEntry{mode: fileMode(st)}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		e.link, _ = readlinkNoFollow(w.root, rel)
	case unix.S_IFREG:
		if st.Size > maxProtectedBytes {
			e.big = true
		} else if b, err := readFileNoFollow(w.root, rel); err == nil {
			e.data = b
		} else {
			e.big = true
		}
		if e.big {
			e.stamp = [4]int64{int64(st.Ino), st.Size, st.Ctim.Sec, st.Ctim.Nsec}
		}
	case unix.S_IFDIR:
		w.out[protKey(w.idx, rel)] = e
		ents, err := readDirNoFollow(w.root, rel)
		if err != nil {
			return
		}
		for _, c := range ents {
			w.record(path.Join(rel, c.name))
		}
		return
	}
	w.out[protKey(w.idx, rel)] = e
}

// restore lists the protected set again and puts it back as the snapshot
// had it. It returns the paths it changed, sorted.
func (p *protectSnap) restore() []string {
	now := p.scan()
	var changed []string
	// Removals first, deepest first: new paths and paths whose type
	// changed.
	var gone []string
	for k, e := range now {
		old, ok := p.entries[k]
		if !ok || old.mode.Type() != e.mode.Type() {
			if ok || !harmlessNew(k, e) {
				gone = append(gone, k)
			}
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(gone)))
	for _, k := range gone {
		idx, rel := splitKey(k)
		if keepConfig(p.roots[idx], rel, now[k], protEntry{}, false) {
			continue
		}
		removeNoFollow(p.roots[idx], rel)
		changed = append(changed, filepath.Join(p.roots[idx], rel))
	}
	// Then recreate or rewrite, shallowest first.
	var keys []string
	for k := range p.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		old := p.entries[k]
		cur, ok := now[k]
		same := ok && cur.mode == old.mode && cur.link == old.link && bytes.Equal(cur.data, old.data) && cur.big == old.big && cur.stamp == old.stamp
		if same && !slicesContain(gone, k) {
			continue
		}
		idx, rel := splitKey(k)
		if ok && keepConfig(p.roots[idx], rel, cur, old, true) {
			continue
		}
		if writeBack(p.roots[idx], rel, old) {
			changed = append(changed, filepath.Join(p.roots[idx], rel))
		}
	}
	sort.Strings(changed)
	return dedupe(changed)
}

// harmlessNew reports whether a new protected path may stay: the sample
// hooks and empty directories `git init` makes.
func harmlessNew(k string, e protEntry) bool {
	_, rel := splitKey(k)
	if strings.HasSuffix(rel, ".sample") && e.mode.IsRegular() {
		return strings.Contains(rel, "/hooks/") // git runs no hook named *.sample
	}
	if e.mode.IsDir() && path.Base(rel) == "hooks" {
		return true // its contents are judged one by one
	}
	return false
}

// keepConfig reports whether a new or changed git config file may stay:
// when git itself lists in it only keys that run nothing.
func keepConfig(root, rel string, cur, old protEntry, existed bool) bool {
	base := path.Base(rel)
	if base != "config" || !strings.Contains(rel, ".git") || !cur.mode.IsRegular() || cur.big {
		return false
	}
	if existed && !old.mode.IsRegular() {
		return false
	}
	cmd := osexec.Command("git", "config", "--file", "-", "--list", "--null")
	cmd.Stdin = bytes.NewReader(cur.data)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(out, []byte{0}) {
		if len(kv) == 0 {
			continue
		}
		key, _, _ := bytes.Cut(kv, []byte{'\n'})
		if !safeGitConfigKey(string(key)) {
			return false
		}
	}
	return true
}

// safeGitConfigKey reports whether a git config key (as git lists it:
// section, subsection and name, lower-cased but for the subsection) runs
// nothing and points git at nothing the command could have filled. Every
// other key in a changed config (core.fsmonitor, core.hooksPath,
// core.sshCommand, filter.*, diff.*.textconv, alias.*, include.path,
// credential.helper, ...) makes the whole file be restored.
func safeGitConfigKey(key string) bool {
	section, rest, _ := strings.Cut(key, ".")
	name := rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		name = rest[i+1:]
	}
	switch section {
	case "core":
		switch name {
		case "repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase",
			"precomposeunicode", "symlinks", "autocrlf", "eol", "safecrlf", "quotepath", "abbrev":
			return true
		}
	case "extensions", "user", "init", "pull", "push", "merge", "rebase", "status", "color", "advice", "gc", "fetch", "index", "pack", "feature":
		switch section + "." + name {
		case "merge.tool", "pull.rebase.exec":
			return false
		}
		return true
	case "branch":
		switch name {
		case "remote", "merge", "rebase", "pushremote", "description":
			return true
		}
	case "remote":
		switch name {
		case "url", "pushurl", "fetch", "push", "tagopt", "prune", "mirror":
			return true
		}
	case "submodule":
		switch name {
		case "url", "active", "branch", "shallow":
			return true
		}
	}
	return false
}

func splitKey(k string) (int, string) {
	i, rel, _ := strings.Cut(k, "\x00")
	return int(i[0] - '0'), rel
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func fileMode(st *unix.Stat_t) os.FileMode {
	m := os.FileMode(st.Mode & 0o777)
	if st.Mode&unix.S_ISUID != 0 {
		m |= os.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		m |= os.ModeSetgid
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= os.ModeDir
	case unix.S_IFLNK:
		m |= os.ModeSymlink
	case unix.S_IFREG:
	default:
		m |= os.ModeIrregular
	}
	return m
}
