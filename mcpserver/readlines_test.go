package mcpserver_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/mcpserver"
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

// TestReadFileNULIsBinary: a file that is valid UTF-8 but holds a NUL
// byte in its first 8000 bytes is binary, as git diff decides (the old
// server sent its zero bytes as text, six bytes of JSON each): read_file,
// with and without head, and resources/read give its bytes as a blob.
// A NUL past the first 8000 bytes leaves a file text, as in git.
func TestReadFileNULIsBinary(t *testing.T) {
	s := start(t, startOpts{})
	body := []byte("text\x00with a NUL\nand a second line\n")
	late := append(bytes.Repeat([]byte("a"), 8000), "\x00\n"...)
	for name, b := range map[string][]byte{"nul.txt": body, "late.txt": late} {
		if err := os.WriteFile(filepath.Join(s.ws, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range []map[string]any{{"path": "nul.txt"}, {"path": "nul.txt", "head": 1}, {"path": "nul.txt", "tail": 1}} {
		res, err := s.callRaw("read_file", args)
		if err != nil || res.IsError || len(res.Content) != 2 {
			t.Fatalf("read_file %v: %v %s", args, err, allContent(res))
		}
		if r, ok := res.Content[1].(*mcp.EmbeddedResource); !ok || !bytes.Equal(r.Resource.Blob, body) || !strings.Contains(resultText(res), "not text") {
			t.Errorf("read_file %v: %s", args, allContent(res))
		}
	}
	rr, err := s.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.FileURI(filepath.Join(s.ws, "nul.txt"))})
	if err != nil || len(rr.Contents) != 1 || !bytes.Equal(rr.Contents[0].Blob, body) || rr.Contents[0].Text != "" {
		t.Errorf("resources/read nul.txt: %v %+v", err, rr)
	}
	if got := s.ok("read_file", map[string]any{"path": "late.txt"}); got != string(late) {
		t.Errorf("read_file late.txt: %.40q..., want the text", got)
	}
}
