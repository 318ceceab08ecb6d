package walk

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReasonOfDirectory: a directory asked without a trailing '/' that a
// rule for both files and directories ignores and a later directory-only
// rule ignores too is ignored either way, but git check-ignore -v names
// the directory-only rule (the last that matches a directory); so must
// Check, cold and warm (Batch.CheckIfRealRel). git is the oracle.
func TestReasonOfDirectory(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ top, sub string }{
		{"**/**\n**/*.[g]o/\n", ""},
		{"*\n*.go/\n", ""},
		{"*\ndir.go/\n", ""},
		{"**\nd*/\n", ""},
		{"/*/**/*o\n", "**/dir.go/\n"},
		{"*.go\n", "dir.go/\n!x\n"},
	} {
		e := newGitEnv(t, false)
		must(t, os.MkdirAll(filepath.Join(e.repo, "sub", "dir.go"), 0o755))
		must(t, os.MkdirAll(filepath.Join(e.repo, "dir.go"), 0o755))
		must(t, os.WriteFile(filepath.Join(e.repo, ".gitignore"), []byte(c.top), 0o644))
		must(t, os.WriteFile(filepath.Join(e.repo, "sub", ".gitignore"), []byte(c.sub), 0o644))
		paths := []string{"dir.go", "dir.go/", "sub/dir.go", "sub/dir.go/"}
		out := string(e.gitIn(e.repo, []byte(strings.Join(paths, "\x00")+"\x00"), "check-ignore", "-z", "-v", "-n", "--no-index", "--stdin"))
		f := strings.Split(out, "\x00")
		want := map[string]string{}
		for i := 0; i+3 < len(f); i += 4 {
			want[f[i+3]] = f[i] + ":" + f[i+1] + ":" + f[i+2]
		}
		ca := e.cache()
		for round := range 3 {
			b := ca.NewBatch(CheckOptions{NoIndex: true})
			for _, p := range paths {
				abs := filepath.Join(e.repo, p)
				if strings.HasSuffix(p, "/") {
					abs += "/"
				}
				ms, err := ca.Check(ctx, e.repo, []string{abs}, CheckOptions{NoIndex: true})
				must(t, err)
				got := func(m Match) string {
					if m.Rule == nil {
						return "::"
					}
					return m.Rule.Source + ":" + strconv.Itoa(m.Rule.Line) + ":" + m.Rule.Pattern
				}
				if g := got(ms[0]); g != want[p] {
					t.Errorf("rules %q, %q: Check(%s) names %s, git %s", c.top, c.sub, p, g, want[p])
				}
				m, ok, err := b.CheckIfRealRel(ctx, e.repo, strings.TrimSuffix(p, "/"), strings.HasSuffix(p, "/"))
				must(t, err)
				if ok && got(m) != want[p] {
					t.Errorf("round %d rules %q, %q: CheckIfRealRel(%s) names %s, git %s", round, c.top, c.sub, p, got(m), want[p])
				}
			}
		}
		ca.Close()
	}
}
