package jail_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host/jail"
	"github.com/agenthost/agenthost/internal/escapetable"
)

// RootOf gives the same root for every spelling of a path as for its
// clean form, and the deepest root for paths below nested roots.
func TestRootOfSpellings(t *testing.T) {
	dir := escapetable.Build(t, []string{"ws/a/b/f", "ws/sub/x/", "ws2/g"})
	ws, sub, ws2 := filepath.Join(dir, "ws"), filepath.Join(dir, "ws", "sub"), filepath.Join(dir, "ws2")
	j, err := jail.New(ws, []string{sub, ws2}, jail.Jailed, filepath.Join(dir, "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	want := map[string]string{
		ws: ws, ws + "/a/b": ws, ws + "//a/./b/": ws, ws + "/sub": sub, ws + "/sub/x": sub, ws + "/a/../sub/x": sub,
		ws + "/sub/..": ws, ws2 + "/g": ws2, ws + "2": ws2, ws + "x": "", "/": "", "/etc/passwd": "", "relative": "",
		ws + "/..": "", ws + "/sub/../../ws2": ws2,
	}
	for p, w := range want {
		if got := j.RootOf(p); got != w {
			t.Errorf("RootOf(%q) = %q, want %q", p, got, w)
		}
	}
	for _, c := range escapetable.Cases {
		for _, p := range []string{c.Path, ws + "/" + c.Path, sub + "/" + c.Path, strings.ReplaceAll(ws+"/"+c.Path, "/", "//")} {
			if !filepath.IsAbs(p) {
				continue
			}
			if got, clean := j.RootOf(p), j.RootOf(filepath.Clean(p)); got != clean {
				t.Errorf("RootOf(%q) = %q, but %q for its clean form", p, got, clean)
			}
		}
	}
}
