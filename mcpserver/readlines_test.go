package mcpserver_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFileHeadTailLikeCoreutils: read_file's head and tail give what
// head -n and tail -n give (the oracle), on files that end with or
// without a line break, hold empty lines, CRLF, lines longer than the
// 64 KiB blocks it reads, and lines that straddle a block's edge, for
// counts below, at and past the file's lines.
func TestReadFileHeadTailLikeCoreutils(t *testing.T) {
	for _, p := range []string{"head", "tail"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s", p)
		}
	}
	s := start(t, startOpts{})
	rnd := rand.New(rand.NewPCG(23, 1))
	lines := func(n int, maxLen int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat("x", rnd.IntN(maxLen+1)))
			fmt.Fprintf(&b, " %d\n", i)
		}
		return b.String()
	}
	files := map[string]string{
		"empty":       "",
		"one":         "one line\n",
		"unended":     "a\nb\nc",
		"blank":       "\n\n\n",
		"crlf":        "a\r\nb\r\n\r\nc\r\n",
		"latin1":      "caf\xe9\nna\xefve\n",
		"small":       lines(50, 80),
		"blocks":      lines(5000, 200),                                               // about 500 KiB
		"long lines":  lines(20, 150<<10),                                             // lines longer than a block
		"big unended": lines(3000, 300) + "no break",                                  // and no final line break
		"edge":        strings.Repeat(strings.Repeat("y", 1023)+"\n", 64) + "after\n", // a break on a block's last byte
	}
	for name, body := range files {
		path := filepath.Join(s.ws, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		total := strings.Count(body, "\n") + 1
		for _, n := range []int{1, 2, 3, 7, total - 1, total, total + 1, 100000} {
			if n < 1 {
				continue
			}
			for _, prog := range []string{"head", "tail"} {
				out, err := exec.Command(prog, "-n", fmt.Sprint(n), path).Output()
				if err != nil {
					t.Fatalf("%s -n %d %s: %v", prog, n, name, err)
				}
				want := strings.ToValidUTF8(string(out), "\uFFFD")
				got := s.ok("read_file", map[string]any{"path": name, prog: n})
				if got != want {
					t.Errorf("read_file %s %d of %s: %d bytes %.80q...%.80q; %s -n gives %d bytes %.80q...%.80q",
						prog, n, name, len(got), got, got[max(0, len(got)-80):], prog, len(want), want, want[max(0, len(want)-80):])
				}
			}
		}
	}
}
