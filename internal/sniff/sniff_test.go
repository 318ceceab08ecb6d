package sniff

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitBinary asks git whether it diffs b as binary: git diff --numstat
// shows "-" for the line counts of a binary file.
func gitBinary(t *testing.T, dir string, b []byte) bool {
	t.Helper()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "diff", "--no-index", "--numstat", os.DevNull, f)
	cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("git diff: %v", err)
	}
	return strings.HasPrefix(string(out), "-\t-\t")
}

// TestIsTextAgreesWithGit: where the rule is git's (a NUL in the first
// 8000 bytes; UTF-8 text otherwise), IsText says what git diff says.
func TestIsTextAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	line := []byte("an ordinary line of text, héllo wörld ✓\n")
	cases := map[string][]byte{
		"empty":          nil,
		"text":           bytes.Repeat(line, 500),
		"zeros":          make([]byte, 20000),
		"nul first":      append([]byte{0}, line...),
		"nul at 7999":    append(bytes.Repeat([]byte("a"), 7999), append([]byte{0}, line...)...),
		"nul at 8000":    append(bytes.Repeat([]byte("a"), 8000), append([]byte{0}, line...)...),
		"controls":       []byte("\x01\x02\x1b[31mred\x1b[0m\x7f\n"),
		"utf16 with BOM": {0xff, 0xfe, 'h', 0, 'i', 0, '\n', 0},
	}
	for name, b := range cases {
		if got, want := IsText(b), !gitBinary(t, dir, b); got != want {
			t.Errorf("%s: IsText = %v, git diff says text = %v", name, got, want)
		}
	}
}

// TestIsTextBeyondUTF8: bytes that are not UTF-8 are text when they hold
// no control byte in their first 512 (Latin-1 prose, a prefix cut inside
// a character), binary otherwise.
func TestIsTextBeyondUTF8(t *testing.T) {
	for _, c := range []struct {
		b    string
		want bool
	}{
		{"caf\xe9 cr\xe8me\n", true},
		{"h\xc3\xa9llo \xe2\x9c", true}, // cut inside ✓
		{"\xff\xfe\x01\x02", false},
		{"\x89PNG\r\n\x1a\n", false},
		{strings.Repeat("x", 512) + "\xff\x01", true}, // the control byte lies past 512
	} {
		if got := IsText([]byte(c.b)); got != c.want {
			t.Errorf("IsText(%q) = %v, want %v", c.b, got, c.want)
		}
	}
}
