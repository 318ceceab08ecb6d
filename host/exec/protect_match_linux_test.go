package exec

import (
	"path"
	"testing"
)

// TestMatchComponent: the fast paths agree with path.Match.
func TestMatchComponent(t *testing.T) {
	for _, pat := range []string{"settings*.json", ".envrc", "*", "*.sample", "a*", "x?y", "[ab]c", "*.json"} {
		for _, name := range []string{"settings.json", "settings.local.json", "settingsjson", "settings.jso", ".envrc", "", "a", "ab", "xzy", "ac", "bc", "foo.json", "s.json", "settings*.json"} {
			want, _ := path.Match(pat, name)
			if got := matchComponent(pat, name); got != want {
				t.Errorf("matchComponent(%q, %q) = %v, path.Match says %v", pat, name, got, want)
			}
		}
	}
}
