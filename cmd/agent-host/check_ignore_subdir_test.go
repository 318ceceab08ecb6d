package main

import (
	"path/filepath"
	"testing"

	"github.com/agenthost/agenthost/internal/gittest"
)

// TestCheckIgnoreFromSubdirectory (issue 25): run from a subdirectory of
// the work tree, check-ignore answers paths that climb out of it but stay
// in the work tree, as git does, and refuses one outside the work tree,
// as git does (exit 128); git, run in the same directory, is the oracle.
func TestCheckIgnoreFromSubdirectory(t *testing.T) {
	gittest.Skip(t)
	w := newWorld(t)
	e := gittest.At(w.home, "")
	e.Init(t, w.ws)
	w.file(".gitignore", []byte("*.log\n/build/\n"))
	w.file("debug.log", nil)
	w.file("build/out.txt", nil)
	w.file("sub/deep/x.log", nil)
	w.file("sub/keep.txt", nil)
	sub := filepath.Join(w.ws, "sub", "deep")
	for _, paths := range [][]string{
		{"../../debug.log", "x.log", "../keep.txt", "../../build/out.txt", "../../sub/deep/x.log"},
		{"../../debug.log"},
		{"../keep.txt"},
		{"../../../out/escape.log"},
	} {
		want, wantCode := e.Run(t, sub, "", append([]string{"check-ignore"}, paths...)...)
		r := w.runIn(sub, "", append([]string{"check-ignore"}, paths...)...)
		if r.stdout != want || r.code != wantCode {
			t.Errorf("check-ignore %q from %s: stdout %q exit %d, git %q exit %d (stderr %q)", paths, sub, r.stdout, r.code, want, wantCode, r.stderr)
		}
	}
}
