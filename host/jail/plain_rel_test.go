package jail_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host/jail"
	"github.com/agenthost/agenthost/internal/escapetable"
)

// PlainRel must be Plain split at the root, for every path: those of the
// shared escape table and spellings around nested roots, aliases, "~",
// doubled and trailing slashes, under several root layouts.
func TestPlainRelIsPlain(t *testing.T) {
	dir := escapetable.Build(t, []string{"ws/a/b/f", "ws/sub/x/", "ws/sub/deep/", "ws2/g", "wslink => ws", "ws2link => ws2"})
	home := filepath.Join(dir, "home")
	paths := []string{
		"f", "a", "a/b", "a/b/f", "a/b/", "a//b", "a/./b", "a/../b", ".", "..", "./a", "a/", "/", "//",
		"sub", "sub/", "sub/x", "sub/x/", "sub//x", "sub/deep/x", "subx/y", "su", "sub/..", "~", "~/x", "~user/x",
		"$T/ws", "$T/ws/", "$T/ws/a", "$T/ws//a", "$T/ws/a/", "$T/ws/sub", "$T/ws/sub/x", "$T/ws/sub//x",
		"$T/ws2/g", "$T/ws2", "$T/wslink/a", "$T/wslink", "$T/ws2link/g", "$T/wsabc/x", "$T/out/secret",
		"$T/ws/sub/deep/x", "/etc/passwd", "a\x00b", strings.Repeat("a/", 2100) + "f", "",
	}
	for _, c := range escapetable.Cases {
		paths = append(paths, c.Path)
	}
	layouts := map[string][]string{
		"workspace only":         {"ws"},
		"two roots":              {"ws", "ws2"},
		"nested root":            {"ws", "ws/sub"},
		"nested twice":           {"ws", "ws/sub", "ws/sub/deep"},
		"alias":                  {"wslink", "ws2link"},
		"nested alias":           {"ws", "wslink/sub"},
		"workspace is nested":    {"ws/sub", "ws"},
		"slash as a second root": {"ws", "/"},
		"slash as the workspace": {"/", "ws"},
	}
	for name, roots := range layouts {
		t.Run(name, func(t *testing.T) {
			var abs []string
			for _, r := range roots {
				if r != "/" {
					r = filepath.Join(dir, r)
				}
				abs = append(abs, r)
			}
			j, err := jail.New(abs[0], abs[1:], jail.Jailed, home)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			for _, p := range paths {
				p = strings.ReplaceAll(p, "$T", dir)
				wantAbs, wantRoot, wantOK := j.Plain(p)
				if wantOK && (strings.Contains(wantAbs, "//") || wantAbs != filepath.Clean(wantAbs)) {
					t.Errorf("Plain(%q) = %q: not canonical", p, wantAbs)
				}
				root, rel, ok := j.PlainRel(p)
				if ok != wantOK || ok && (root != wantRoot || join(root, rel) != wantAbs) {
					t.Errorf("PlainRel(%q) = %q, %q, %v; Plain gives %q, %q, %v", p, root, rel, ok, wantAbs, wantRoot, wantOK)
				}
				if ok && (rel == "" || strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/")) {
					t.Errorf("PlainRel(%q): rel %q is not clean", p, rel)
				}
			}
		})
	}
	t.Run("unrestricted", func(t *testing.T) {
		j, err := jail.New(filepath.Join(dir, "ws"), nil, jail.Unrestricted, home)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if _, _, ok := j.PlainRel("a/b/f"); ok {
			t.Error("PlainRel answers under the Unrestricted policy")
		}
	})
}

func join(root, rel string) string {
	if root == "/" {
		return "/" + rel
	}
	return root + "/" + rel
}

// PlainRel builds no string for the spellings a hot caller uses.
func TestPlainRelAllocs(t *testing.T) {
	dir := escapetable.Build(t, []string{"ws/a/b/f"})
	j, err := jail.New(filepath.Join(dir, "ws"), []string{filepath.Join(dir, "ws2")}, jail.Jailed, filepath.Join(dir, "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	absPath := filepath.Join(dir, "ws", "a", "b", "f")
	if n := testing.AllocsPerRun(100, func() {
		if _, _, ok := j.PlainRel("a/b/f"); !ok {
			t.Fatal("not plain")
		}
		if _, _, ok := j.PlainRel(absPath); !ok {
			t.Fatal("not plain")
		}
	}); n != 0 {
		t.Errorf("PlainRel allocates %v times", n)
	}
}
