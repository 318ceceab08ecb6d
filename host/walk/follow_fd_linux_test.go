//go:build linux

package walk

import (
	"os"
	"testing"
)

// TestFollowKeepsNoDescriptor: with Follow, a link to a directory that the
// walk opens and then leaves out (ignored, excluded by Override or Filter,
// or past MaxEntries) is closed: walking again and again leaves the
// process's descriptor count where it was.
func TestFollowKeepsNoDescriptor(t *testing.T) {
	e := newGitEnv(t, false)
	e.write(".gitignore", "ign\n")
	e.make("real/a.go", "ign -> real", "ex -> real", "filt -> real", "keep -> real")
	c := e.jailedCache(e.repo)
	opts := Options{
		Follow: true,
		Override: func(rel string, isDir bool) Verdict {
			if rel == "ex" {
				return Exclude
			}
			return Undecided
		},
		Filter: func(rel string, isDir bool) bool { return rel != "filt" },
	}
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		must(t, err)
		return len(ents)
	}
	_, _, err := walkRel(t, c, e.repo, opts) // warm the cache's own descriptors
	must(t, err)
	before := count()
	for range 20 {
		files, _, err := walkRel(t, c, e.repo, opts)
		must(t, err)
		if len(files) == 0 {
			t.Fatal("nothing listed")
		}
		limited := opts
		limited.MaxEntries = 1
		_, _, err = walkRel(t, c, e.repo, limited)
		must(t, err)
	}
	if after := count(); after > before+2 {
		t.Errorf("descriptors: %d before 40 walks, %d after: followed links left open", before, after)
	}
}
