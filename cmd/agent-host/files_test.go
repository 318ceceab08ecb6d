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
	w := newWorld(t)
	ws := w.ws
	w.file(filepath.Join(w.out, "secret"), []byte("s"))
	os.Symlink(filepath.Join(w.out, "secret"), filepath.Join(ws, "out"))

	if r := w.run("hello\n", "write", "f"); r.code != 0 || r.stdout != "" {
		t.Fatalf("write: %+v", r)
	}
	if r := w.run("", "read", "f"); r.code != 0 || r.stdout != "hello\n" {
		t.Fatalf("read: %+v", r)
	}
	if r := w.run("", "resolve", "f"); r.code != 0 || r.stdout != filepath.Join(ws, "f")+"\n" {
		t.Fatalf("resolve: %+v", r)
	}
	if r := w.run("", "stat", "--json", "f"); r.code != 0 || !strings.Contains(r.stdout, `"size":6`) {
		t.Fatalf("stat: %+v", r)
	}
	if r := w.run("", "mkdir", "-p", "a/b"); r.code != 0 {
		t.Fatalf("mkdir -p: %+v", r)
	}
	if fi, err := os.Stat(filepath.Join(ws, "a/b")); err != nil || !fi.IsDir() {
		t.Fatalf("mkdir -p made no directory: %v", err)
	}
	if r := w.run("", "rm", "a"); r.code != exitOther || !strings.Contains(r.stderr, "a: is a directory") {
		t.Fatalf("rm of a directory: %+v", r)
	}
	if r := w.run("", "rm", "f"); r.code != 0 {
		t.Fatalf("rm: %+v", r)
	}
	if _, err := os.Lstat(filepath.Join(ws, "f")); !os.IsNotExist(err) {
		t.Fatalf("rm left f: %v", err)
	}
	for _, args := range [][]string{
		{"read", "out"},
		{"read", "../out/secret"},
		{"resolve", filepath.Join(w.out, "secret")},
		{"write", "../out/new"},
		{"stat", "out"},
		{"rm", "../out/secret"},
		{"mkdir", "../out/d"},
	} {
		r := w.run("x", args...)
		if r.code != exitEscape || r.stdout != "" || !strings.Contains(r.stderr, "escapes") || !strings.Contains(r.stderr, "--add-dir") {
			t.Errorf("%v: %+v; want exit 3 and the escape error suggesting --add-dir", args, r)
		}
	}
	if _, err := os.Stat(filepath.Join(w.out, "new")); err == nil {
		t.Fatal("write created a file outside")
	}
	if _, err := os.Stat(filepath.Join(w.out, "secret")); err != nil {
		t.Fatal("rm removed a file outside")
	}
	// With --add-dir, as the message says, the same read works.
	if r := w.run("", "read", "--add-dir", w.out, "out"); r.code != 0 || r.stdout != "s" {
		t.Fatalf("read --add-dir: %+v", r)
	}
	if r := w.run("", "read", "--root", filepath.Join(ws, "missing"), "f"); r.code != exitUsage {
		t.Fatalf("bad root: %+v, want exit 2", r)
	}
	if r := w.run("", "nosuch"); r.code != exitUsage || !strings.Contains(r.stderr, `"nosuch"`) {
		t.Fatalf("unknown command: %+v", r)
	}
}

// TestReadCopiesBytes: agent-host read x > y copies the file exactly, as
// cat does: binary data, Latin-1 text, and a file over the library's read
// limit (ReadFile's 16 MiB) are not converted, cut or refused.
func TestReadCopiesBytes(t *testing.T) {
	w := newWorld(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	for i := 0; i < 5000; i++ {
		png = append(png, byte(i*7+i/13))
	}
	big := bytes.Repeat([]byte("\xff\xfe agent \x00"), (17<<20)/11)
	cases := map[string][]byte{
		"shot.png":   png,
		"latin1.txt": []byte("caf\xe9 na\xefve \xa9 1999\n"),
		"empty":      nil,
		"big.bin":    big,
	}
	for name, body := range cases {
		w.file(name, body)
		r := w.run("", "read", name)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("read %s: exit %d: %s", name, r.code, r.stderr)
		}
		if r.stdout != string(body) {
			t.Errorf("read %s: %d bytes out, want %d bytes, exactly", name, len(r.stdout), len(body))
		}
	}
	// Redirected to a file, as in "agent-host read x > y".
	cp := filepath.Join(w.ws, "copy.png")
	f, err := os.Create(cp)
	if err != nil {
		t.Fatal(err)
	}
	cmd := w.cmd("read", "shot.png")
	cmd.Stdout = f
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, _ := os.ReadFile(cp); !bytes.Equal(got, png) {
		t.Fatalf("read shot.png > copy.png: %d bytes, want %d", len(got), len(png))
	}
}
