package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the program in-process and returns exit code and outputs.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestFileCommands(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	os.WriteFile(filepath.Join(dir, "secret"), []byte("s"), 0o644)
	os.Symlink("../secret", filepath.Join(ws, "out"))

	if code, _, errs := runCLI(t, "hello\n", "write", "--root", ws, "f"); code != 0 {
		t.Fatalf("write: %d %s", code, errs)
	}
	if code, out, _ := runCLI(t, "", "read", "--root", ws, "f"); code != 0 || out != "hello\n" {
		t.Fatalf("read: %d %q", code, out)
	}
	if code, out, _ := runCLI(t, "", "resolve", "--root", ws, "f"); code != 0 || strings.TrimSpace(out) != filepath.Join(ws, "f") {
		t.Fatalf("resolve: %d %q", code, out)
	}
	if code, out, _ := runCLI(t, "", "stat", "--json", "--root", ws, "f"); code != 0 || !strings.Contains(out, `"size":6`) {
		t.Fatalf("stat: %d %q", code, out)
	}
	if code, _, errs := runCLI(t, "", "mkdir", "-p", "--root", ws, "a/b"); code != 0 {
		t.Fatalf("mkdir -p: %d %s", code, errs)
	}
	if code, _, _ := runCLI(t, "", "rm", "--root", ws, "a"); code == 0 {
		t.Fatalf("rm of a directory succeeded")
	}
	for _, args := range [][]string{
		{"read", "--root", ws, "out"},
		{"read", "--root", ws, "../secret"},
		{"resolve", "--root", ws, filepath.Join(dir, "secret")},
		{"write", "--root", ws, "../new"},
	} {
		code, out, errs := runCLI(t, "x", args...)
		if code != 3 || out != "" || !strings.Contains(errs, "escapes") {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want exit 3 and the escape error", args, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Fatal("write created a file outside")
	}
	if code, _, _ := runCLI(t, "", "read", "--root", filepath.Join(dir, "missing"), "f"); code != 2 {
		t.Fatalf("bad root: exit %d, want 2", code)
	}
	// A flag after the path is a path, not a flag: it cannot switch the jail off.
	if code, out, _ := runCLI(t, "", "read", "--root", ws, "out", "--unrestricted"); code != 2 || out != "" {
		t.Fatalf("flag after the path: exit %d, stdout %q; want a usage error", code, out)
	}
	if code, _, _ := runCLI(t, "", "nosuch"); code != 2 {
		t.Fatalf("unknown command: exit %d", code)
	}
}
