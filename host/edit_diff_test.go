package host

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnifiedDiffAgainstDiff checks unifiedDiff against diff(1) -u on
// random small files: applying the hunks must give the new file, and the
// hunk headers and bodies must be diff's (both find a shortest edit script;
// where several exist they may differ, so only the count of changed lines
// is compared then).
func TestUnifiedDiffAgainstDiff(t *testing.T) {
	diffBin, err := exec.LookPath("diff")
	if err != nil {
		t.Skip("no diff(1)")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() string {
		var b strings.Builder
		n := r.IntN(12)
		for range n {
			b.WriteString(string(rune('a' + r.IntN(4))))
			b.WriteByte('\n')
		}
		if r.IntN(5) == 0 {
			b.WriteString("tail")
		}
		return b.String()
	}
	for i := range 60 {
		a, b := gen(), gen()
		got := unifiedDiff("f", a, b)
		if a == b {
			if got != "" {
				t.Fatalf("equal inputs gave %q", got)
			}
			continue
		}
		if applied := applyUnified(t, a, got); applied != b {
			t.Fatalf("case %d: applying\n%s\nto %q gives %q, want %q", i, got, a, applied, b)
		}
		pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		os.WriteFile(pa, []byte(a), 0o644)
		os.WriteFile(pb, []byte(b), 0o644)
		out, _ := exec.Command(diffBin, "-u", pa, pb).Output()
		want := string(out)
		// Drop the header lines (names and times differ).
		want = want[strings.Index(want, "\n@@")+1:]
		body := got[strings.Index(got, "\n@@")+1:]
		if countChanges(body) != countChanges(want) {
			t.Fatalf("case %d: %q -> %q:\nours:\n%s\ndiff -u:\n%s", i, a, b, body, want)
		}
	}
}

func countChanges(d string) (n int) {
	for _, l := range strings.Split(d, "\n") {
		if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
			n++
		}
	}
	return n
}

// applyUnified applies a unified diff made by unifiedDiff to a.
func applyUnified(t *testing.T, a, d string) string {
	t.Helper()
	src := splitLines(a)
	lines := strings.SplitAfter(d, "\n")
	var out []string
	pos := 0
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		switch l[0] {
		case '@':
			var as, an, bs, bn int
			parseRange := func(s string) (int, int) {
				start, n := s, "1"
				if j := strings.IndexByte(s, ','); j >= 0 {
					start, n = s[:j], s[j+1:]
				}
				var x, y int
				for _, c := range start {
					x = x*10 + int(c-'0')
				}
				for _, c := range n {
					y = y*10 + int(c-'0')
				}
				return x, y
			}
			f := strings.Fields(l)
			as, an = parseRange(f[1][1:])
			bs, bn = parseRange(f[2][1:])
			_, _ = bs, bn
			start := as - 1
			if an == 0 {
				start = as
			}
			out = append(out, src[pos:start]...)
			pos = start
		case ' ':
			out = append(out, src[pos])
			pos++
		case '-':
			pos++
		case '+':
			out = append(out, l[1:])
		case '\\':
			if strings.HasPrefix(lines[i-1], "-") {
				continue
			}
			out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "")
}
