package exec

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agenthost/agenthost/host/exec/internal/helper"

	"golang.org/x/sys/unix"
)

// viewSystemDirs are the entries of "/" a command's view holds (those
// that exist): the system's programs, libraries and configuration, read-only.
// Everything else at "/" (/home, /root, /srv, /mnt, /media, /work, a
// project's own directory) is absent unless a root, the home directory
// or a Read path lies there. /tmp, /dev and /proc are the view's own.
var viewSystemDirs = []string{
	"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt", "nix", "snap", "sys", "var",
}

// viewMaskedSystem are files of the system directories no command needs
// and root could read: they are covered by an empty read-only file.
var viewMaskedSystem = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd",
}

// viewHomeGitKeys are the keys of the user's global git configuration
// copied into the view's generated ~/.gitconfig: identity, aliases,
// excludes and a few harmless preferences. Credential helpers, URL
// rewrites (which may hold tokens), includes, signing, hooks, pagers and
// editors stay out.
var viewHomeGitKeys = map[string]bool{
	"user.name": true, "user.email": true, "init.defaultbranch": true,
	"core.excludesfile": true, "core.autocrlf": true, "core.eol": true,
	"pull.rebase": true, "pull.ff": true, "push.default": true, "push.autosetupremote": true,
	"merge.conflictstyle": true, "diff.algorithm": true, "diff.colormoved": true, "rerere.enabled": true,
	"color.ui": true, "fetch.prune": true, "rebase.autosquash": true, "rebase.autostash": true,
}

// viewPlan is the parent's description of a run's view.
type viewPlan struct {
	ops   []helper.ViewOp
	binds []string // the host paths visible in the view (bound, not tmpfs)
	// writes are directories outside the roots the command may write
	// (a linked worktree's share of its common git directory), for the
	// Landlock rules too.
	writes []string
}

// covered reports whether p is visible in the view through a bind.
func (v *viewPlan) covered(p string) bool {
	for _, b := range v.binds {
		if within(p, b) {
			return true
		}
	}
	return false
}

// nearHome reports whether showing d would show part of a home
// directory (d is one, lies inside one, or holds one): a program or a
// start directory there is not made visible for being named (the name
// may be a model's); the toolchains are (DefaultReadHome).
func nearHome(d string, homes ...string) bool {
	for _, h := range homes {
		if h != "" && h != "/" && (within(d, h) || within(h, d)) {
			return true
		}
	}
	return false
}

func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}

func (v *viewPlan) add(kind byte, path, src string) {
	v.ops = append(v.ops, helper.ViewOp{Kind: kind, Path: path, Src: src, FD: -1})
	if kind == helper.ViewRead || kind == helper.ViewWrite || kind == helper.ViewRoot {
		v.binds = append(v.binds, path)
	}
}

// planView lists the view of a run of sb (see Sandbox), whose deny list
// is deny (Sandbox.denyPaths): rootFDs are the
// indices, in the message, of the roots' descriptors (nil: the roots
// are bound by path), tmp the session's temporary directory, prog the
// program, home the home directory the view shows and cwd the start
// directory. It returns nil
// when a root is "/" (the view would hide nothing).
func planView(sb *Sandbox, deny []string, rootFDs []int, tmp, prog, home, cwd string, overlays []cacheOverlay) *viewPlan {
	for _, r := range sb.Roots {
		if filepath.Clean(r) == "/" {
			return nil
		}
	}
	v := &viewPlan{}
	for _, name := range viewSystemDirs {
		p := "/" + name
		st, err := os.Lstat(p)
		switch {
		case err != nil:
		case st.Mode()&os.ModeSymlink != 0:
			if t, err := os.Readlink(p); err == nil {
				v.add(helper.ViewLink, p, t)
			}
		case st.IsDir():
			v.add(helper.ViewRead, p, "")
		}
	}
	if st, err := os.Stat("/var/tmp"); err == nil && st.IsDir() && v.covered("/var/tmp") {
		v.add(helper.ViewTmpfs, "/var/tmp", "")
	}
	v.add(helper.ViewTmpfs, "/tmp", "")
	if sb.Network {
		// The resolver's configuration may be a link into /run
		// (systemd-resolved), which the view does not hold.
		if r, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !v.covered(r) {
			v.add(helper.ViewRead, r, "")
		}
	}

	// The home directory: an empty read-only tmpfs with the toolchains
	// and a generated git configuration, unless a root holds it.
	homeHidden := home != "" && home != "/"
	for _, r := range sb.Roots {
		if within(home, r) {
			homeHidden = false
		}
	}
	if st, err := os.Stat(home); err != nil || !st.IsDir() {
		homeHidden = false
	}
	realHome, _ := os.UserHomeDir()
	if r, err := filepath.EvalSymlinks(realHome); err == nil {
		realHome = r
	}
	if homeHidden {
		v.add(helper.ViewHome, home, "")
		if g := viewGitConfig(home); g != "" {
			v.add(helper.ViewFile, filepath.Join(home, ".gitconfig"), g)
		}
	}
	for _, h := range dedupe([]string{home, realHome}) {
		if h == "" || h == "/" {
			continue
		}
		entries := DefaultReadHome
		if h == home {
			entries = append(append([]string(nil), entries...), sb.ReadHome...)
		}
		for _, e := range entries {
			p := filepath.Join(h, e)
			if _, err := os.Stat(p); err == nil && !v.covered(p) {
				if r, err := filepath.EvalSymlinks(p); err == nil {
					v.add(helper.ViewRead, p, r)
				}
			}
		}
	}
	for _, p := range sb.Read {
		if filepath.IsAbs(p) && !v.covered(p) {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				v.add(helper.ViewRead, p, r)
			}
		}
	}

	// What the command writes: its temporary directory, WritePaths, the
	// roots (by their descriptors when the caller gave them).
	v.add(helper.ViewWrite, tmp, "")
	for _, p := range sb.WritePaths {
		if filepath.IsAbs(p) {
			v.add(helper.ViewWrite, filepath.Clean(p), "")
		}
	}
	for i, r := range sb.Roots {
		if rootFDs != nil {
			v.ops = append(v.ops, helper.ViewOp{Kind: helper.ViewRoot, Path: r, FD: rootFDs[i]})
			v.binds = append(v.binds, r)
		} else {
			v.add(helper.ViewWrite, r, "")
		}
	}
	// A root inside a repository whose work tree lies outside it (a
	// root that is a subdirectory of a checkout) sees that work tree
	// read-only, so that git inside finds its repository; a root that is
	// a linked worktree (git worktree add) whose main repository lies
	// outside the roots sees the common git directory read-only but for
	// what a commit writes.
	for _, r := range sb.Roots {
		// Not when that work tree holds the home directory (a dotfiles
		// repository in ~): the home would be shown whole.
		if top := enclosingWorkTree(r); top != "" && !v.covered(top) && !within(home, top) && !within(realHome, top) {
			v.add(helper.ViewRead, top, "")
		}
		if common, admin, ok := linkedWorktree(r); ok && !v.covered(common) {
			v.add(helper.ViewRead, common, "")
			for _, d := range []string{filepath.Join(common, "objects"), filepath.Join(common, "refs"), filepath.Join(common, "logs"), admin} {
				if st, err := os.Lstat(d); err == nil && st.IsDir() {
					v.add(helper.ViewWrite, d, "")
					v.writes = append(v.writes, d)
				}
			}
			for _, name := range []string{"gitdir", "commondir", "config.worktree", "hooks", "info"} {
				v.ops = append(v.ops, helper.ViewOp{Kind: helper.ViewProtect, Path: filepath.Join(admin, name), FD: -1})
			}
		}
	}
	// The start directory, read-only, when it lies outside the roots (a
	// Host whose paths are Unrestricted).
	if filepath.IsAbs(cwd) && !v.covered(cwd) && !nearHome(cwd, home, realHome) {
		v.add(helper.ViewRead, cwd, "")
	}
	// The program itself, when it lies elsewhere (a tool built in a
	// temporary directory). Not a script named in a shell command line:
	// that line may be a model's, and would name a secret to show it (a
	// hook's script comes as a Read path from the code that runs hooks).
	if filepath.IsAbs(prog) && !v.covered(prog) {
		if d := filepath.Dir(prog); d != "/" && !nearHome(d, home, realHome) {
			v.add(helper.ViewRead, d, "")
		}
	}

	// The user's caches, read through a layer of the workspace's own.
	for _, o := range overlays {
		if !v.covered(o.lower) {
			v.add(helper.ViewRead, o.lower, "")
		}
		v.ops = append(v.ops, helper.ViewOp{Kind: helper.ViewOverlay, Path: o.lower, Src: o.layer, FD: -1})
		v.writes = append(v.writes, o.lower)
	}

	// Secrets a bind would show: the system's own, and the deny list
	// wherever it lies inside what is bound.
	for _, p := range viewMaskedSystem {
		v.ops = append(v.ops, helper.ViewOp{Kind: helper.ViewMask, Path: p, FD: -1})
	}
	// The after-run check's journals (protect_journal_linux.go): neither
	// readable nor writable by the command.
	for _, p := range journalPaths(sb.Roots) {
		v.ops = append(v.ops, helper.ViewOp{Kind: helper.ViewMask, Path: p, FD: -1})
	}
	for _, p := range deny {
		if v.covered(p) && !v.inRoot(sb, p) {
			v.ops = append(v.ops, helper.ViewOp{Kind: helper.ViewMask, Path: p, FD: -1})
		}
	}
	return v
}

// inRoot reports whether p lies beneath a root of sb (readable there, as
// everything beneath a root is).
func (v *viewPlan) inRoot(sb *Sandbox, p string) bool {
	for _, r := range sb.Roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

// protect adds the protected paths of snap that exist now as read-only
// binds onto themselves: the top ones only (a protected directory
// covers what is in it), and not the git configs, which `git config` and
// `git remote add` rewrite by renaming a new file over them (the
// after-run check keeps or restores them).
func (v *viewPlan) protect(snap *protectSnap) {
	var paths []string
	for k, e := range snap.entries {
		if e.gitConfig {
			continue
		}
		idx, rel := splitKey(k)
		if idx < 0 || idx >= len(snap.roots) || rel == "" {
			continue
		}
		paths = append(paths, filepath.Join(snap.roots[idx], rel))
	}
	sort.Strings(paths)
	var top []string
	for _, p := range paths {
		if n := len(top); n > 0 && within(p, top[n-1]) {
			continue
		}
		top = append(top, p)
	}
	for _, p := range top {
		v.ops = append(v.ops, helper.ViewOp{Kind: helper.ViewProtect, Path: p, FD: -1})
	}
}

// viewGitConfig returns the generated ~/.gitconfig of the view: the
// keys of viewHomeGitKeys and the aliases from the user's global
// configuration (~/.gitconfig, then $XDG_CONFIG_HOME/git/config), "" when
// there are none.
func viewGitConfig(home string) string {
	var b strings.Builder
	for _, e := range globalGitConfigs([]string{home}) {
		k := strings.ToLower(e.Key)
		if !viewHomeGitKeys[k] && !strings.HasPrefix(k, "alias.") {
			continue
		}
		if e.NoValue || strings.IndexFunc(e.Value, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
			continue
		}
		sec, name := k[:strings.LastIndexByte(k, '.')], k[strings.LastIndexByte(k, '.')+1:]
		sub := ""
		if i := strings.IndexByte(sec, '.'); i >= 0 {
			sec, sub = sec[:i], sec[i+1:]
		}
		if sub != "" {
			continue // aliases and the keys above have no subsection
		}
		b.WriteString("[" + sec + "]\n\t" + name + " = \"" + strings.NewReplacer(`\\`, `\\\\`, `"`, `\\"`).Replace(e.Value) + "\"\n")
	}
	return b.String()
}

// enclosingWorkTree returns the top of the work tree root lies in when
// that top is above root (a ".git" in a directory above it), else "".
func enclosingWorkTree(root string) string {
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == "/" || d == "." {
			return ""
		}
	}
}

// linkedWorktree reports whether root is the top of a linked worktree:
// its .git is a file naming an administrative directory that holds a
// commondir file. It returns the common git directory and the
// administrative directory, both without links.
func linkedWorktree(root string) (common, admin string, ok bool) {
	b, err := readConfigFile(filepath.Join(root, ".git"))
	if err != nil {
		return "", "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	g, found := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !found {
		return "", "", false
	}
	admin = strings.TrimSpace(g)
	if !filepath.IsAbs(admin) {
		admin = filepath.Join(root, admin)
	}
	if admin, err = filepath.EvalSymlinks(admin); err != nil {
		return "", "", false
	}
	c, err := readConfigFile(filepath.Join(admin, "commondir"))
	if err != nil {
		return "", "", false
	}
	common = strings.TrimSpace(string(c))
	if !filepath.IsAbs(common) {
		common = filepath.Join(admin, common)
	}
	if common, err = filepath.EvalSymlinks(common); err != nil || !within(admin, filepath.Join(common, "worktrees")) {
		return "", "", false
	}
	// Both ways, as git's own worktree check: the .git file lies in the
	// root, where a command may write, so it alone could name another
	// project's repository; the administrative directory's gitdir, which
	// no command can write, must name this .git file back.
	back, err := readConfigFile(filepath.Join(admin, "gitdir"))
	if err != nil {
		return "", "", false
	}
	b2 := strings.TrimSpace(string(back))
	if !filepath.IsAbs(b2) {
		b2 = filepath.Join(admin, b2)
	}
	if b2, err = filepath.EvalSymlinks(b2); err != nil || b2 != filepath.Join(root, ".git") {
		return "", "", false
	}
	return common, admin, true
}

// cacheOverlay is a user's cache a sandboxed command reads through a
// writable layer of its own (docs/adr/0014): env is the variable that
// points the tool at it, lower the user's cache, layer where the
// command's writes go.
type cacheOverlay struct{ env, lower, layer string }

// userCacheOverlays returns the layers over the user's caches that
// exist: Go's build and module caches, npm's and pip's, with their
// layers beneath layerRoot (the workspace's cache, or the session's
// temporary directory), whose directory is open as layerFD. The user's own caches, which their unsandboxed
// builds trust, are never written: a command that poisons an object file
// poisons only its layer.
func userCacheOverlays(layerRoot string, layerFD int, home string) []cacheOverlay {
	if layerFD < 0 {
		return nil
	}
	// os.UserCacheDir, but of the home directory the run shows (a Host
	// given a Home of its own, a test's, reads that home's caches, not
	// the process's).
	cacheHome := os.Getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(cacheHome) {
		cacheHome = ""
		if home != "" {
			cacheHome = filepath.Join(home, ".cache")
		}
	}
	gocache := os.Getenv("GOCACHE")
	if gocache == "" && cacheHome != "" {
		gocache = filepath.Join(cacheHome, "go-build")
	}
	modcache := os.Getenv("GOMODCACHE")
	if modcache == "" {
		gopath, _, _ := strings.Cut(os.Getenv("GOPATH"), string(os.PathListSeparator))
		if gopath == "" && home != "" {
			gopath = filepath.Join(home, "go")
		}
		if gopath != "" {
			modcache = filepath.Join(gopath, "pkg", "mod")
		}
	}
	cands := []struct{ env, lower, name string }{
		{"GOCACHE", gocache, "go-build"},
		{"GOMODCACHE", modcache, "go-mod"},
	}
	if home != "" {
		cands = append(cands, struct{ env, lower, name string }{"npm_config_cache", filepath.Join(home, ".npm"), "npm"})
	}
	if cacheHome != "" {
		cands = append(cands, struct{ env, lower, name string }{"PIP_CACHE_DIR", filepath.Join(cacheHome, "pip"), "pip"})
	}
	var out []cacheOverlay
	for _, c := range cands {
		if !filepath.IsAbs(c.lower) {
			continue
		}
		lower, err := filepath.EvalSymlinks(c.lower)
		if err != nil {
			continue
		}
		if st, err := os.Stat(lower); err != nil || !st.IsDir() {
			continue
		}
		layer := filepath.Join(layerRoot, "layers", c.name)
		// The overlay's options are a comma-separated list in which a
		// colon separates lower layers.
		if strings.ContainsAny(lower+layer, ",:\\") {
			continue
		}
		// The layer's directories are made here, beneath the cache's
		// descriptor and following no link: a command that left a link
		// at layers/go-build (it may write the cache) gets no layer there,
		// rather than an overlay that writes where the link points.
		if !makeLayer(layerFD, c.name) {
			continue
		}
		out = append(out, cacheOverlay{env: c.env, lower: lower, layer: layer})
	}
	return out
}

// allowListGrants are the read grants of a run without a view (the
// kernel refused the namespaces; issue 22): the same list a view would
// show, as Landlock rules, so that a secret no deny list names stays
// unreadable there too. The home directory's git configuration is read
// as it is (no view generates a harmless one), and /dev and /proc are
// readable as on the host.
func allowListGrants(sb *Sandbox, deny []string, tmp, prog, home, cwd string) []readGrant {
	plan := planView(sb, deny, nil, tmp, prog, home, cwd, nil)
	if plan == nil {
		g, _ := readGrants(deny, false)
		return g
	}
	var out []readGrant
	add := func(p string) {
		if st, err := os.Stat(p); err == nil {
			out = append(out, readGrant{Path: p, Dir: st.IsDir()})
		}
	}
	for _, op := range plan.ops {
		switch op.Kind {
		case helper.ViewRead, helper.ViewWrite, helper.ViewRoot:
			src := op.Src
			if src == "" {
				src = op.Path
			}
			add(src)
		case helper.ViewLink:
			// bin -> usr/bin: the target is granted where it lies.
		}
	}
	for _, p := range []string{"/dev", "/proc", filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git")} {
		add(p)
	}
	return out
}

// makeLayer makes layers/name/upper and layers/name/work beneath dfd,
// following no link; it reports whether both are there.
func makeLayer(dfd int, name string) bool {
	for _, d := range []string{"upper", "work"} {
		fd := openDirsNoFollow(dfd, []string{"layers", name, d}, true, 0o700)
		if fd < 0 {
			return false
		}
		unix.Close(fd)
	}
	return true
}
