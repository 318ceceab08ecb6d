package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromInfo(t *testing.T) {
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"ours, stamped", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.0.0-20261202020000-e0a1783abcde+dirty"}}, "v0.0.0-20261202020000-e0a1783abcde+dirty"},
		{"ours, tagged", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.2.3"}}, "v1.2.3"},
		{"ours, unstamped", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}}, "devel"},
		{"ours, empty", debug.BuildInfo{Main: debug.Module{Path: Module}}, "devel"},
		{"embedded", debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "v9.9.9"},
			Deps: []*debug.Module{{Path: "golang.org/x/sys", Version: "v0.1.0"}, {Path: Module, Version: "v0.4.0"}}}, "v0.4.0"},
		{"embedded, replaced by a directory", debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "v9.9.9"},
			Deps: []*debug.Module{{Path: Module, Version: "v0.4.0", Replace: &debug.Module{Path: "../agenthost"}}}}, "devel"},
		{"not ours at all", debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "v9.9.9"}}, "devel"},
	} {
		if got := fromInfo(&c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
