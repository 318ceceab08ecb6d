package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// One directory asked about from two tops (the repository and a
// directory in it), with enough directories filed in the warm path's
// memo that its maps grow (and rehash their keys): each answer is
// IsIgnored's, and the warm answers alone, asked after, still find each
// directory's own state.
// "x/f.go" is ignored (x/.gitignore) and no "dNNN/x/f.go" is.
func TestIfRealRelTwoTops(t *testing.T) {
	e := newGitEnv(t, false)
	write := func(rel, data string) {
		full := filepath.Join(e.repo, rel)
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte(data), 0o644))
	}
	write("x/.gitignore", "*.go\n")
	write("x/f.go", "")
	var dirs []string
	for d := range 150 {
		dir := fmt.Sprintf("d%03d", d)
		write(dir+"/x/f.go", "")
		dirs = append(dirs, dir)
	}
	c := e.cache()
	defer c.Close()
	ctx := context.Background()
	ask := func(round int, top, rel string) {
		t.Helper()
		abs := filepath.Join(top, rel)
		want, err := c.IsIgnored(ctx, top, abs)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := c.IsIgnoredIfRealRel(ctx, top, rel, false)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("round %d: IsIgnoredIfRealRel(%s, %s) = %v, IsIgnored %v", round, top, rel, got, want)
		}
	}
	for d := range 300 {
		write(fmt.Sprintf("e%03d/f.go", d), "")
	}
	for round := range 3 {
		// Filed under the outer top, then the inner ones, then more
		// under the outer top, so that its map grows.
		ask(round, e.repo, "x/f.go")
		for _, d := range dirs {
			ask(round, e.repo, d+"/x/f.go")
		}
		for _, d := range dirs {
			ask(round, filepath.Join(e.repo, d), "x/f.go")
		}
		for d := range 300 {
			ask(round, e.repo, fmt.Sprintf("e%03d/f.go", d))
		}
		// Warm only (judge files nothing): each key still finds its own
		// directory's state.
		for _, d := range dirs {
			if ig, ok, err := c.IsIgnoredIfRealRel(ctx, e.repo, d+"/x/f.go", false); err != nil || ok && ig {
				t.Fatalf("round %d: %s/x/f.go ignored %v (warm %v), %v; want not ignored", round, d, ig, ok, err)
			}
			if ig, ok, err := c.IsIgnoredIfRealRel(ctx, e.repo, "x/f.go", false); err != nil || ok && !ig {
				t.Fatalf("round %d: x/f.go ignored %v (warm %v), %v; want ignored", round, ig, ok, err)
			}
		}
	}
}
