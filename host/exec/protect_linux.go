package exec

import (
	"bytes"
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/internal/gitconfig"
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

// maxKeptBytes caps the contents one snapshot keeps in memory, all roots
// together: past it, files are kept by stamp (inode, size, change time)
// like a file over maxProtectedBytes, and a change to one removes it. A
// repository that arrives with thousands of large files in a protected
// directory then costs the parent this much, not their total size.
const maxKeptBytes = 16 << 20

// protEntry is one protected path as it was.
type protEntry struct {
	mode os.FileMode // type and permission bits
	data []byte      // file contents; nil when over the cap
	link string      // link target
	big  bool
	// stamp identifies a file too big to keep (inode, size, change
	// time): a change to it shows in the stamp.
	stamp [4]int64
	// gitConfig marks the config file of a git directory (a .git, a
	// module's, a bare repository's under any name).
	gitConfig bool
}

// protectSnap is the protected set of some roots at one moment.
type protectSnap struct {
	roots   []string
	extra   []string
	homes   []string
	entries map[string]protEntry // root index "\x00" relative path
	// watch holds, per root, the paths the configs named before the run
	// (hooks directories, included files): the scan after the run looks
	// at them too, whatever the command made of the configs since.
	watch [][]string
	// unlock ends the hold on the roots taken for the run (lockRoots),
	// which are held.
	unlock func()
	held   []rootID
}

// snapshotProtected waits until no other sandboxed run holds a root of sb
// (in this process or another), holds them, and lists the protected
// paths inside them. The hold ends with release, after the restore. The
// wait ends with ctx (its error) or after wait (ErrRootBusy).
func snapshotProtected(ctx context.Context, sb *Sandbox, wait time.Duration) (*protectSnap, error) {
	p, err := holdProtected(ctx, sb, wait)
	if err != nil {
		return nil, err
	}
	p.baseline()
	return p, nil
}

// holdProtected is snapshotProtected without the listing: the caller
// calls baseline before the command starts.
func holdProtected(ctx context.Context, sb *Sandbox, wait time.Duration) (*protectSnap, error) {
	unlock, held, err := lockRoots(ctx, sb.Roots, sb.RootDirs, wait)
	if err != nil {
		return nil, err
	}
	p := &protectSnap{roots: sb.Roots, extra: sb.Protect, unlock: unlock, held: held}
	for _, h := range []string{sb.Home, os.Getenv("HOME")} {
		if h != "" {
			p.homes = append(p.homes, h)
		}
	}
	p.watch = make([][]string, len(p.roots))
	return p, nil
}

// baseline lists the protected paths as they are before the run.
func (p *protectSnap) baseline() { p.entries = p.scan(true) }

// release ends the snapshot's hold on its roots; it may be called more
// than once.
func (p *protectSnap) release() {
	if p != nil && p.unlock != nil {
		p.unlock()
		p.unlock = nil
	}
}

// scan lists the protected paths now; first, it also keeps the paths the
// configs name as the ones to watch.
func (p *protectSnap) scan(first bool) map[string]protEntry {
	out := map[string]protEntry{}
	split := protPatterns(p.extra)
	global := globalGitConfigs(p.homes)
	var kept int64
	for i, root := range p.roots {
		w := protWalker{root: root, idx: i, out: out, split: split, global: global, kept: &kept}
		if !first {
			w.known = p.entries
		}
		if w.memo = memoFor(root, split); w.memo != nil {
			w.next = map[string]*dirMemo{}
		}
		w.dir("")
		if w.memo != nil {
			w.memo.dirs = w.next
		}
		for _, rel := range p.watch[i] {
			w.recordIfExists(rel)
		}
		w.closeDirs()
		if first {
			p.watch[i] = w.named
		}
	}
	return out
}

// protPatterns returns ProtectedPaths and extra, each split into its
// components.
func protPatterns(extra []string) [][]string {
	var split [][]string
	for _, pat := range append(append([]string(nil), ProtectedPaths...), extra...) {
		if pat = strings.Trim(pat, "/"); pat != "" {
			split = append(split, strings.Split(pat, "/"))
		}
	}
	return split
}

// protWalker walks one root for the protected set.
type protWalker struct {
	root   string
	memo   *rootMemo           // nil: list every directory
	next   map[string]*dirMemo // the memo this walk leaves
	idx    int
	split  [][]string // the protected patterns, by component
	out    map[string]protEntry
	global []gitconfig.Entry // the user's and the system's git config
	named  []string          // paths the configs name (hooks dirs, includes), relative
	// known is the baseline, in the scan after a run: a file new since
	// then is to be removed, so its contents are not read (a command
	// that leaves thousands of large files in a new protected directory
	// does not make the parent read them into memory). Git configs are
	// read still: a harmless one may be kept.
	known map[string]protEntry
	// kept counts the bytes of contents kept so far, against
	// maxKeptBytes; shared by the walks of all roots of one scan.
	kept *int64
	// dirs are the directories the walk reached from the root and keeps
	// open until it ends (protect_dirs_linux.go), by relative path.
	dirs map[string]int
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

// dirAt walks the directory open as fd, named rel, and closes fd. A
// directory whose memo is valid is not listed again (protect_memo_linux.go).
func (w *protWalker) dirAt(fd int, rel string) {
	var st unix.Stat_t
	var m *dirMemo
	if w.memo != nil {
		listed := time.Now() // before the stat: a change after it shows next time
		if unix.Fstat(fd, &st) == nil {
			if old := w.memo.dirs[rel]; old.valid(&st) {
				w.replay(fd, rel, old)
				unix.Close(fd)
				return
			}
			m = newDirMemo(&st, listed)
		}
	}
	f := os.NewFile(uintptr(fd), rel)
	ents, _ := f.ReadDir(-1)
	if rel != "" && looksLikeGitDir(ents) {
		// A bare repository (or one made to look like a git dir)
		// under any name: git would take it as the repository of the
		// directories around it, so its config and hooks are
		// protected like a .git's. Its other contents are still
		// walked.
		w.gitDir(rel, path.Dir(rel), rel)
		if m != nil {
			m.gitLike = true
		}
	}
	for _, e := range ents {
		name := e.Name()
		crel := name
		if rel != "" {
			crel = rel + "/" + name
		}
		isDir := e.IsDir()
		if name == ".git" && isDir {
			w.gitDir(crel, path.Dir(crel))
			if m != nil {
				m.gitDots = append(m.gitDots, name)
			}
			continue
		}
		if w.protected(name, crel) {
			w.record(crel)
			if m != nil {
				m.prot = append(m.prot, name)
			}
			continue
		}
		if isDir {
			if m != nil {
				m.subs = append(m.subs, name)
			}
			cfd, err := openatOwner(int(f.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY)
			if err == nil {
				w.dirAt(cfd, crel)
			}
		}
	}
	f.Close()
	if m != nil {
		w.next[rel] = m
	}
}

// replay walks the unchanged directory rel (open as fd) from its memo m:
// what the listing gave is as it was, the protected paths are read anew.
// A subdirectory whose memo is valid and that has no subdirectories of
// its own is checked with one fstatat, not opened.
func (w *protWalker) replay(fd int, rel string, m *dirMemo) {
	w.next[rel] = m
	join := func(name string) string {
		if rel == "" {
			return name
		}
		return rel + "/" + name
	}
	if m.gitLike {
		w.gitDir(rel, path.Dir(rel), rel)
	}
	for _, name := range m.gitDots {
		crel := join(name)
		w.gitDir(crel, path.Dir(crel))
	}
	for _, name := range m.prot {
		w.record(join(name))
	}
	for _, name := range m.subs {
		crel := join(name)
		if old := w.memo.dirs[crel]; old != nil && len(old.subs) == 0 {
			var st unix.Stat_t
			if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && old.valid(&st) {
				w.replay(-1, crel, old)
				continue
			}
		}
		cfd, err := openatOwner(fd, name, unix.O_RDONLY|unix.O_DIRECTORY)
		if err == nil {
			w.dirAt(cfd, crel)
		}
	}
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
// worktree is work ("." for the root); a relative core.hooksPath is taken
// against work and each of also.
func (w *protWalker) gitDir(rel, work string, also ...string) {
	for _, name := range []string{"config", "config.worktree", "commondir", "gitdir"} {
		w.recordIfExists(path.Join(rel, name))
	}
	if e, ok := w.out[protKey(w.idx, path.Join(rel, "config"))]; ok {
		e.gitConfig = true // keepConfig may keep it
		w.out[protKey(w.idx, path.Join(rel, "config"))] = e
	}
	w.recordIfExists(path.Join(rel, "hooks"))
	// info/: exclude and attributes can hide a plant from git status
	// and name filter drivers; sparse-checkout changes what is checked out.
	w.recordIfExists(path.Join(rel, "info"))
	// Every core.hooksPath git could take for this repository: the
	// system's, the user's, the repository's, its worktree's and those of
	// the files they include. All of them, not only the one that wins:
	// protecting one more directory costs nothing.
	cfg := append([]gitconfig.Entry(nil), w.global...)
	for _, name := range []string{"config", "config.worktree"} {
		cfg = append(cfg, w.repoConfig(path.Join(rel, name))...)
	}
	for _, e := range cfg {
		if e.Key != "core.hookspath" || e.Value == "" {
			continue
		}
		for _, base := range append([]string{work}, also...) {
			if hrel := w.inRoot(e.Value, base); hrel != "" {
				w.named = append(w.named, hrel)
				w.recordIfExists(hrel)
			}
		}
	}
	for _, sub := range []string{"modules", "worktrees"} {
		w.nestedGitDirs(path.Join(rel, sub))
	}
	w.gitLinks(rel)
}

// gitLinks records the symbolic links inside the git directory rel
// where git writes by opening the name (not a new file renamed over
// it), so that a link there makes git write outside: the directory's own
// entries (COMMIT_EDITMSG, FETCH_HEAD, MERGE_MSG, ...), the reflogs
// beneath logs/ (appended), and objects/ with its fan-out directories
// (objects are written into them). A link made during a run is then
// removed by the check after it, whatever the command meant by it:
// logs/HEAD -> ~/.bashrc would have the user's next commit append to a
// file a shell runs. Links that were there before the run are kept.
func (w *protWalker) gitLinks(rel string) {
	ents, err := w.readDir(rel)
	if err != nil {
		return
	}
	for _, e := range ents {
		switch {
		case e.typ == unix.DT_LNK:
			w.record(path.Join(rel, e.name))
		case e.typ == unix.DT_DIR && (e.name == "logs" || e.name == "objects"):
			w.gitLinksBelow(path.Join(rel, e.name), e.name == "logs", 0)
		}
	}
}

// gitLinksBelow records the links in dir, and beneath it when deep
// (reflogs nest as refs do; in objects/ only the fan-out directories
// themselves matter), at most 16 levels down.
func (w *protWalker) gitLinksBelow(dir string, deep bool, depth int) {
	ents, err := w.readDir(dir)
	if err != nil || depth > 16 {
		return
	}
	for _, e := range ents {
		switch {
		case e.typ == unix.DT_LNK:
			w.record(path.Join(dir, e.name))
		case e.typ == unix.DT_DIR && deep:
			w.gitLinksBelow(path.Join(dir, e.name), true, depth+1)
		}
	}
}

// repoConfig parses the config file rel inside the root, and every file
// it includes (include.path, includeIf.*.path whatever the condition)
// that lies inside the root, which are recorded as protected too. Each
// file is read once (gitconfig.Loader's Once: a config that includes
// itself, which git refuses, is read once and protected like any other)
// and the reading is bounded; a file that does not parse gives the
// entries before the fault: a change to it is restored (keepConfig), and
// the hooks directories named before the run are watched anyway.
func (w *protWalker) repoConfig(rel string) []gitconfig.Entry {
	l := &gitconfig.Loader{
		Once:     true,
		ReadFile: w.readFile,
		Resolve: func(from, p string) []string {
			irel := w.inRoot(p, path.Dir(from))
			if p == "" || irel == "" {
				return nil
			}
			w.named = append(w.named, irel)
			w.recordIfExists(irel)
			return []string{irel}
		},
		Cond: anyCond,
	}
	cfg, _ := l.Load(context.Background(), rel)
	return cfg
}

// anyCond is an includeIf condition taken as holding whatever it says:
// the protected set covers every file a config could make git read.
func anyCond(from, cond string) bool { return true }

// inRoot returns the path p names (absolute, ~/..., or relative to base,
// itself relative to the root) relative to the root, or "" when it lies
// outside the root or is the root itself.
func (w *protWalker) inRoot(p, base string) string {
	if strings.HasPrefix(p, "~/") {
		for _, h := range []string{os.Getenv("HOME")} {
			if h != "" {
				p = filepath.Join(h, p[2:])
			}
		}
	}
	var rel string
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(w.root, filepath.Clean(p))
		if err != nil {
			return ""
		}
		rel = filepath.ToSlash(r)
	} else {
		rel = path.Clean(path.Join(base, p))
	}
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return ""
	}
	return rel
}

// looksLikeGitDir reports whether a directory holding ents is one git
// would take as a git directory (setup.c's is_git_directory): HEAD, a
// file or a link, with the directories objects and refs beside it, or a
// commondir file. It costs no system call: the walk has read ents anyway.
func looksLikeGitDir(ents []os.DirEntry) bool {
	n := 0
	for _, e := range ents {
		switch e.Name() {
		case "commondir":
			return true
		case "HEAD":
			if !e.IsDir() {
				n++
			}
		case "objects", "refs":
			if e.IsDir() {
				n++
			}
		}
	}
	return n == 3
}

// globalGitConfigs parses the git configs outside any repository that the
// user's git reads: the system's (unless GIT_CONFIG_NOSYSTEM), and
// GIT_CONFIG_GLOBAL or else $XDG_CONFIG_HOME/git/config and ~/.gitconfig
// for each home, with every file they include (a "~/" path in each
// home), each read once and the whole bounded (gitconfig.Loader's Once).
// Files are read, never run; one that does not parse gives the entries
// before the fault.
func globalGitConfigs(homes []string) []gitconfig.Entry {
	var files []string
	if v := os.Getenv("GIT_CONFIG_NOSYSTEM"); v == "" || v == "0" || strings.EqualFold(v, "false") {
		if f := os.Getenv("GIT_CONFIG_SYSTEM"); f != "" {
			files = append(files, f)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if f := os.Getenv("GIT_CONFIG_GLOBAL"); f != "" {
		files = append(files, f)
	} else {
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			files = append(files, filepath.Join(x, "git", "config"))
		}
		for _, h := range homes {
			files = append(files, filepath.Join(h, ".config", "git", "config"), filepath.Join(h, ".gitconfig"))
		}
	}
	l := &gitconfig.Loader{
		Once:     true,
		ReadFile: readConfigFile,
		Resolve: func(from, p string) []string {
			switch {
			case p == "":
				return nil
			case strings.HasPrefix(p, "~/"):
				var out []string
				for _, h := range append([]string{os.Getenv("HOME")}, homes...) {
					if h != "" {
						out = append(out, filepath.Join(h, p[2:]))
					}
				}
				return out
			case !filepath.IsAbs(p):
				p = filepath.Join(filepath.Dir(from), p)
			}
			return []string{p}
		},
		Cond: anyCond,
	}
	var out []gitconfig.Entry
	for _, f := range files {
		cfg, _ := l.Load(context.Background(), f) // past the load's bounds, each gives nothing
		out = append(out, cfg...)
	}
	return out
}

// readConfigFile reads a config file outside the roots: a regular file
// of at most maxProtectedBytes (a fifo or a device is refused, not read).
func readConfigFile(name string) ([]byte, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	// Bare system calls: an os.File of a descriptor opened O_NONBLOCK
	// is offered to the runtime's poller first (three more calls a
	// file, and the user's configs are read at every scan).
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxProtectedBytes {
		return nil, unix.EINVAL
	}
	b := make([]byte, st.Size)
	n, err := unix.Read(fd, b)
	for err == unix.EINTR {
		n, err = unix.Read(fd, b)
	}
	if n < 0 {
		n = 0
	}
	return b[:n], nil
}

// nestedGitDirs records the git directories beneath rel (.git/modules
// names may hold slashes; .git/worktrees has one level).
func (w *protWalker) nestedGitDirs(rel string) {
	ents, err := w.readDir(rel)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.typ != unix.DT_DIR {
			continue
		}
		crel := path.Join(rel, e.name)
		if _, err := w.lstat(path.Join(crel, "HEAD")); err == nil {
			w.gitDir(crel, crel) // a hooksPath there is relative to a worktree we do not know: taken from it
			continue
		}
		w.nestedGitDirs(crel)
	}
}

func (w *protWalker) recordIfExists(rel string) {
	if st, err := w.lstat(rel); err == nil {
		w.recordStat(rel, st)
	}
}

// record keeps rel (and, for a directory, everything beneath it).
func (w *protWalker) record(rel string) {
	st, err := w.lstat(rel)
	if err != nil {
		return
	}
	w.recordStat(rel, st)
}

// recordStat is record of rel, whose lstat is st.
func (w *protWalker) recordStat(rel string, st *unix.Stat_t) {
	e := protEntry{mode: fileMode(st)}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		e.link, _ = w.readlink(rel)
	case unix.S_IFREG:
		stamp := [4]int64{int64(st.Ino), st.Size, st.Ctim.Sec, st.Ctim.Nsec}
		old, known := w.known[protKey(w.idx, rel)]
		cfg := path.Base(rel) == "config" || isInfoExclude(rel)
		if w.known != nil && !cfg {
			// After the run only equality matters: a file new since
			// the baseline is to be removed, so its contents are not
			// read (a command that leaves thousands of large files in
			// a new protected directory does not make the parent read
			// them into memory); a known one is compared with what the
			// baseline kept, and shares its bytes when equal. Memory
			// stays what the baseline took.
			e.big, e.stamp = true, stamp
			if known && !old.big && st.Size == int64(len(old.data)) {
				if b, err := w.readFile(rel); err == nil && bytes.Equal(b, old.data) {
					e.big, e.stamp, e.data = false, [4]int64{}, old.data
				}
			}
			w.out[protKey(w.idx, rel)] = e
			return
		}
		if st.Size > maxProtectedBytes || w.kept != nil && *w.kept+st.Size > maxKeptBytes && !cfg {
			e.big = true
		} else if b, err := w.readFile(rel); err == nil {
			e.data = b
			if w.kept != nil {
				*w.kept += int64(len(b))
			}
		} else {
			e.big = true
		}
		if e.big {
			e.stamp = stamp
		}
	case unix.S_IFDIR:
		w.out[protKey(w.idx, rel)] = e
		ents, err := w.readDir(rel)
		if err != nil {
			return
		}
		hooks := path.Base(rel) == "hooks"
		for _, c := range ents {
			if hooks && strings.HasSuffix(c.name, ".sample") {
				// git runs no hook named *.sample: the fourteen `git
				// init` leaves are neither read nor kept (nor written
				// to the journal) at every run.
				continue
			}
			w.record(path.Join(rel, c.name))
		}
		return
	}
	w.out[protKey(w.idx, rel)] = e
}

// restore lists the protected set again and puts it back as the snapshot
// had it. It returns the paths it changed, sorted; see restoreAll for
// the ones it could not.
func (p *protectSnap) restore() []string {
	changed, _ := p.restoreAll()
	return changed
}

// restoreAll is restore, also returning the paths it could not put
// back or remove (sorted): a workspace that may hold a plant. When it
// changed anything it scans again and compares with the baseline: a
// path the second pass still finds changed (something undid the restore
// or kept it from holding) is a failure too.
func (p *protectSnap) restoreAll() (changed, failed []string) {
	changed, failed = p.restoreOnce(false)
	if len(changed) == 0 {
		return changed, failed
	}
	again, failed2 := p.restoreOnce(true)
	for _, c := range again {
		failed2 = append(failed2, c+" (still changed after the restore)")
	}
	failed = append(failed, failed2...)
	sort.Strings(failed)
	return changed, dedupe(failed)
}

// restoreOnce scans the protected set and puts back what differs from
// the baseline; it returns the paths it changed and the ones it could
// not, each sorted. Again (the second pass) a file too large to have
// been kept that is gone is as the first pass left it.
func (p *protectSnap) restoreOnce(again bool) (changed, failed []string) {
	now := p.scan(false)
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
		if err := removeNoFollow(p.roots[idx], rel); err != nil {
			failed = append(failed, filepath.Join(p.roots[idx], rel)+" ("+err.Error()+")")
			continue
		}
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
		if again && !ok && old.mode.IsRegular() && old.big {
			continue
		}
		same := ok && cur.mode == old.mode && cur.link == old.link && bytes.Equal(cur.data, old.data) && cur.big == old.big && cur.stamp == old.stamp
		if same && !slicesContain(gone, k) {
			continue
		}
		idx, rel := splitKey(k)
		if ok && keepConfig(p.roots[idx], rel, cur, old, true) {
			continue
		}
		did, err := writeBack(p.roots[idx], rel, old)
		if err != nil {
			failed = append(failed, filepath.Join(p.roots[idx], rel)+" ("+err.Error()+")")
		}
		if did {
			changed = append(changed, filepath.Join(p.roots[idx], rel))
		}
	}
	sort.Strings(changed)
	sort.Strings(failed)
	return dedupe(changed), failed
}

// harmlessNew reports whether a new protected path may stay: the sample
// hooks and empty directories `git init` makes.
func harmlessNew(k string, e protEntry) bool {
	_, rel := splitKey(k)
	if strings.HasSuffix(rel, ".sample") && e.mode.IsRegular() {
		return strings.Contains(rel, "/hooks/") // git runs no hook named *.sample
	}
	if e.mode.IsDir() && (path.Base(rel) == "hooks" || path.Base(rel) == "info") {
		return true // its contents are judged one by one
	}
	// The info/exclude `git init` writes: comments only.
	if isInfoExclude(rel) && e.mode.IsRegular() && e.data != nil {
		for _, line := range strings.Split(string(e.data), "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				return false
			}
		}
		return true
	}
	return false
}

// isInfoExclude reports whether rel is a git directory's info/exclude.
func isInfoExclude(rel string) bool {
	return path.Base(rel) == "exclude" && path.Base(path.Dir(rel)) == "info"
}

// keepConfig reports whether a new or changed config file of a git
// directory (a .git, a module's, a bare repository under any name) may stay:
// when it parses (gitconfig.Parse: no program is run to read it) and
// holds only keys that run nothing (safeGitConfigEntry).
func keepConfig(root, rel string, cur, old protEntry, existed bool) bool {
	if !cur.gitConfig || !cur.mode.IsRegular() || cur.big {
		return false
	}
	if existed && !old.mode.IsRegular() {
		return false
	}
	cfg, err := gitconfig.Parse(cur.data)
	if err != nil {
		return false
	}
	for _, e := range cfg {
		if !safeGitConfigEntry(e) {
			return false
		}
	}
	return true
}

// safeKeys are the git config keys (section and name lower-cased) a
// changed config may hold, each exactly: what `git init`, `git clone`,
// `git config user.*` and `git remote add` write. Every other key
// (merge.*.driver, filter.*, diff.*.textconv, core.hooksPath,
// core.fsmonitor, core.sshCommand, core.editor, core.pager, gc.*hook*,
// alias.*, include*, credential.*, init.templateDir, pull.twohead, ...)
// makes the whole file be restored.
var safeKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "core.eol": true, "core.safecrlf": true,
	"core.quotepath": true, "core.abbrev": true,
	"extensions.objectformat": true, "extensions.worktreeconfig": true,
	"user.name": true, "user.email": true,
	"init.defaultbranch": true,
	"pull.rebase":        true, "pull.ff": true, "push.default": true, "push.autosetupremote": true,
	"fetch.prune": true, "rebase.autostash": true, "merge.ff": true, "merge.conflictstyle": true,
}

// safeSubKeys are the names allowed under a subsection, by section:
// [remote "x"], [branch "x"], [submodule "x"].
var safeSubKeys = map[string]map[string]bool{
	"remote":    {"url": true, "pushurl": true, "fetch": true, "push": true, "tagopt": true, "prune": true, "mirror": true},
	"branch":    {"remote": true, "merge": true, "rebase": true, "pushremote": true, "description": true},
	"submodule": {"url": true, "active": true, "branch": true, "shallow": true},
}

// safeGitConfigEntry reports whether a config entry runs nothing and
// points git at nothing the command could have filled: its key is one of
// safeKeys or safeSubKeys, and a URL names no transport helper
// (`<transport>::<address>` runs git-remote-<transport> from PATH; ext::
// runs a command).
func safeGitConfigEntry(e gitconfig.Entry) bool {
	section, rest, ok := strings.Cut(e.Key, ".")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return safeKeys[e.Key]
	}
	name := rest[i+1:]
	if rest[:i] == "" || !safeSubKeys[section][name] {
		return false
	}
	if name == "url" || name == "pushurl" {
		return !strings.Contains(e.Value, "::")
	}
	return true
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
