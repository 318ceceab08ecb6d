package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTildeIsAFileName: the shell has already expanded "~", so an
// argument that still starts with it names a file in the current
// directory, for every file subcommand and check-ignore (git is the
// oracle), never the home directory.
func TestTildeIsAFileName(t *testing.T) {
	w := newWorld(t)
	// A home inside the workspace: were "~" expanded, the command would
	// reach it without an escape and the test could not tell.
	w.home = filepath.Join(w.ws, "home")
	w.file(filepath.Join(w.home, "x"), []byte("home x"))
	w.file("~", []byte("tilde"))
	w.file("~x", []byte("tilde x"))

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "~"}, "tilde"},
		{[]string{"read", "~x"}, "tilde x"},
		{[]string{"resolve", "~"}, filepath.Join(w.ws, "~") + "\n"},
	} {
		if r := w.run("", c.args...); r.code != 0 || r.stdout != c.want {
			t.Errorf("%q: %+v; want %q", c.args, r, c.want)
		}
	}
	if r := w.run("", "stat", "~/x"); r.code != exitOther {
		t.Errorf("stat ~/x (~ is a file): %+v; want not a directory", r)
	}
	if r := w.run("new", "write", "~new"); r.code != 0 {
		t.Fatalf("write ~new: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(w.ws, "~new")); err != nil || string(b) != "new" {
		t.Fatalf("write ~new did not write ./~new: %v", err)
	}
	if r := w.run("", "mkdir", "~d"); r.code != 0 {
		t.Fatalf("mkdir ~d: %+v", r)
	}
	if fi, err := os.Stat(filepath.Join(w.ws, "~d")); err != nil || !fi.IsDir() {
		t.Fatalf("mkdir ~d did not make ./~d: %v", err)
	}
	if r := w.run("", "rm", "~new"); r.code != 0 {
		t.Fatalf("rm ~new: %+v", r)
	}
	if _, err := os.Lstat(filepath.Join(w.ws, "~new")); !os.IsNotExist(err) {
		t.Fatalf("rm ~new left it: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.home, "x")); err != nil {
		t.Fatalf("the home's x is gone: %v", err)
	}

	// A root or an added directory named "~d" is that directory.
	w.file(filepath.Join(w.ws, "~d", "in.txt"), []byte("in ~d"))
	if r := w.run("", "read", "--root", "~d", "in.txt"); r.code != 0 || r.stdout != "in ~d" {
		t.Errorf("read --root ~d in.txt: %+v", r)
	}
	if r := w.run("", "read", "--root", w.out, "--add-dir=~d", filepath.Join(w.ws, "~d", "in.txt")); r.code != 0 || r.stdout != "in ~d" {
		t.Errorf("read --add-dir=~d WS/~d/in.txt: %+v", r)
	}

	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	gitRun(t, w.ws, "init", "-q")
	w.file(".gitignore", []byte("~*\n!~x\n"))
	for _, paths := range [][]string{{"~"}, {"~x"}, {"~x", "~"}} {
		gout, gcode := gitRun(t, w.ws, append([]string{"check-ignore", "--no-index"}, paths...)...)
		r := w.run("", append([]string{"check-ignore"}, paths...)...)
		if r.code != gcode || r.stdout != gout {
			t.Errorf("check-ignore %q: %+v; git check-ignore: exit %d %q", paths, r, gcode, gout)
		}
	}
}
