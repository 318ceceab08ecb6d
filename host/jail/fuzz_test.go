package jail_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host/jail"
)

// fuzzTree is a fixed tree with symbolic links of every kind: inside,
// outside, into the second root, loops, dangling, up and back in.
var fuzzTree = []string{
	"ws/a/b/c/f", "ws/a/g", "ws/f", "ws2/h", "ws2/d/e", "out/secret", "wsabc/x",
	"ws/la => a", "ws/lb => a/b", "ws/lo => ../out", "ws/lao => $T/out/secret",
	"ws/l2 => ../ws2/d", "ws/la2 => $T/ws2", "ws/up => ..", "ws/loop => loop",
	"ws/dang => nothere", "ws/dango => ../out/nothere", "ws/a/b/rel => ../../f",
	"ws2/back => ../ws/a", "ws2/out => ../out", "ws/root => /", "ws/sp => ../wsabc",
}

func buildFuzzTree(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	for _, e := range fuzzTree {
		e = strings.ReplaceAll(e, "$T", dir)
		if name, target, ok := strings.Cut(e, " => "); ok {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dir, e)), 0o755)
		os.WriteFile(filepath.Join(dir, e), []byte(e), 0o644)
	}
	return dir
}

// refResolve is the slow reference: the same rules as the jail, written on
// path strings with os.Lstat and os.Readlink (racy, fine on a fixed tree).
// Above a root, only other roots and their ancestors may be named; below a
// root, symbolic links are followed wherever they lead, and every place
// reached must again be a root, inside one, or an ancestor of one.
func refResolve(roots []string, abs string) (string, error) {
	inside := func(p string) bool {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, r+"/") {
				return true
			}
		}
		return false
	}
	ancestor := func(p string) bool {
		for _, r := range roots {
			if p == "/" || strings.HasPrefix(r, p+"/") {
				return true
			}
		}
		return false
	}
	links := 0
	p := abs
restart:
	comps := strings.Split(p, "/")
	var kept []string
	for _, c := range comps {
		if c != "" && c != "." {
			kept = append(kept, c)
		}
	}
	cur := "/"
	for i, c := range kept {
		last := i == len(kept)-1
		if c == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if !inside(cur) || (cur == "/" && !inside(next)) {
			// Outside every root: only roots and their ancestors.
			if inside(next) {
				cur = next
				continue
			}
			if !last && ancestor(next) {
				cur = next
				continue
			}
			return "", jail.ErrEscape
		}
		fi, err := os.Lstat(next)
		if err == nil && last && fi.Mode().IsRegular() && (strings.HasSuffix(abs, "/") || strings.HasSuffix(abs, "/.")) && i == len(kept)-1 {
			return "", errors.New("not a directory")
		}
		if err != nil {
			if last && errors.Is(err, fs.ErrNotExist) {
				return next, nil
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if links++; links > jail.MaxSymlinks {
				return "", jail.ErrTooManyLinks
			}
			t, _ := os.Readlink(next)
			if !filepath.IsAbs(t) {
				t = cur + "/" + t
			}
			p = t + "/" + strings.Join(kept[i+1:], "/")
			goto restart
		}
		if !last && !fi.IsDir() {
			return "", errors.New("not a directory")
		}
		cur = next
	}
	if !inside(cur) {
		return "", jail.ErrEscape
	}
	return cur, nil
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"f", "a/b/c/f", "la/b/c/f", "lb/../g", "lo/secret", "lao", "l2/e", "la2/h",
		"up/ws/f", "up/out/secret", "loop", "dang", "dango", "a/b/rel", "../ws2/back/g",
		"../ws2/out/secret", "root/etc/passwd", "sp/x", "..", "/", "../wsabc/x",
		"la/../lb/../../ws2/d", "./a/./b/../../f", "a/b/c/f/..", "a//b",
	} {
		f.Add(s)
	}
	dir := buildFuzzTree(f)
	ws, ws2 := filepath.Join(dir, "ws"), filepath.Join(dir, "ws2")
	j, err := jail.New(ws, []string{ws2}, jail.Jailed, filepath.Join(dir, "out"))
	if err != nil {
		f.Fatal(err)
	}
	defer j.Close()
	roots := []string{ws, ws2}
	f.Fuzz(func(t *testing.T, path string) {
		if path == "" || strings.ContainsRune(path, 0) || len(path) > 512 || strings.HasPrefix(path, "~") {
			return
		}
		got, err := j.Resolve("", path)
		abs := path
		if !filepath.IsAbs(abs) {
			abs = ws + "/" + path
		}
		want, werr := refResolve(roots, abs)
		if err == nil {
			inside := false
			for _, r := range roots {
				if got == r || strings.HasPrefix(got, r+"/") {
					inside = true
				}
			}
			if !inside {
				t.Fatalf("Resolve(%q) = %q: outside every root", path, got)
			}
			// The kernel agrees on where an existing path leads.
			if real, rerr := filepath.EvalSymlinks(abs); rerr == nil && real != got {
				t.Fatalf("Resolve(%q) = %q, kernel says %q", path, got, real)
			}
		}
		if (err == nil) != (werr == nil) || got != want {
			t.Fatalf("Resolve(%q) = %q, %v; reference says %q, %v", path, got, err, want, werr)
		}
		if errors.Is(werr, jail.ErrEscape) && !errors.Is(err, jail.ErrEscape) {
			t.Fatalf("Resolve(%q): %v, want an escape", path, err)
		}
		// Opening agrees with resolving.
		fh, canon, oerr := j.OpenFile("", path, os.O_RDONLY, 0)
		if oerr == nil {
			fh.Close()
			if err != nil || canon != got {
				t.Fatalf("OpenFile(%q) = %q, Resolve = %q, %v", path, canon, got, err)
			}
		}
	})
}
