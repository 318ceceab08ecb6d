package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/gittest"
)

// TestCheckIgnoreLongPaths: check-ignore --stdin answers paths longer
// than the jail's 4,096 bytes as git answers them, byte for byte (with
// and without -z): deep ones, one name of 5,000 bytes, one under a
// directory whose .gitignore negates the rule, ones with "." and ".."
// past the limit. Before, the first such path ended the run with exit
// 128 ("invalid path: ... longer than 4096"). A path of 1 MiB (500,000
// levels; git takes more than 7 minutes and 20 GB on it) is answered
// as git answers the same shape at 3,000 levels, within 10 s and 64 MiB.
// The jail itself is unchanged: read of such a path is still refused.
func TestCheckIgnoreLongPaths(t *testing.T) {
	e := gittest.New(t)
	dir := filepath.Join(t.TempDir(), "repo")
	e.Init(t, dir)
	for name, body := range map[string]string{".gitignore": "*.txt\n", "sub/.gitignore": "!keep.txt\n"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deep := strings.Repeat("d/", 2100)
	paths := []string{
		"short.txt",
		deep + "x.txt",
		deep + "x.go",
		strings.Repeat("a", 5000) + ".txt",
		"sub/" + deep + "keep.txt",
		"sub/" + deep + "other.txt",
		deep + "e/../y.txt",
		deep + "./z.txt",
		deep + "../../w.txt",
		deep + "dir.txt/",
		"after.txt",
	}
	for _, nul := range []bool{false, true} {
		sep, args := "\n", []string{"check-ignore", "--stdin"}
		if nul {
			sep, args = "\x00", append(args, "-z")
		}
		in := strings.Join(paths, sep) + sep
		g := exec.Command("git", args...)
		g.Dir, g.Env, g.Stdin = dir, e.Environ(), strings.NewReader(in)
		var gout bytes.Buffer
		g.Stdout = &gout // git warns on stderr for each .gitignore past PATH_MAX
		gerr := g.Run()
		gcode := 0
		if ee, ok := gerr.(*exec.ExitError); ok {
			gcode = ee.ExitCode()
		}
		cmd := configCmd(e, dir, args...)
		cmd.Stdin = strings.NewReader(in)
		r, took, rss := boundedRun(t, cmd, 5*time.Second)
		if r.stdout != gout.String() || r.code != gcode {
			t.Errorf("-z %v: agent-host check-ignore exits %d with %q (%q);\ngit exits %d with %q", nul, r.code, short(r.stdout), short(r.stderr), gcode, short(gout.String()))
		}
		if took > 5*time.Second || rss > 64<<10 {
			t.Errorf("-z %v: %v and %d KiB (bound 5 s, 64 MiB)", nul, took, rss)
		}
	}

	// 1 MiB: git's answer for the same shape, shorter.
	shape := func(levels int) string { return strings.Repeat("d/", levels) + "deep.txt\n" }
	g := exec.Command("git", "check-ignore", "--stdin")
	g.Dir, g.Env, g.Stdin = dir, e.Environ(), strings.NewReader(shape(3000))
	gout, _ := g.Output()
	want := strings.Replace(string(gout), shape(3000), shape(500000), 1)
	if want == string(gout) {
		t.Fatalf("git does not list %q as ignored: %q", short(shape(3000)), short(string(gout)))
	}
	cmd := configCmd(e, dir, "check-ignore", "--stdin")
	cmd.Stdin = strings.NewReader(shape(500000))
	r, took, rss := boundedRun(t, cmd, 10*time.Second)
	if r.stdout != want || r.code != 0 {
		t.Errorf("1 MiB path: exit %d, %q (%q)", r.code, short(r.stdout), short(r.stderr))
	}
	if took > 10*time.Second || rss > 64<<10 {
		t.Errorf("1 MiB path: %v and %d KiB (bound 10 s, 64 MiB)", took, rss)
	}

	// The jail still refuses such a path for anything else.
	r, _, _ = boundedRun(t, configCmd(e, dir, "read", deep+"x.txt"), 5*time.Second)
	if r.code == 0 || !strings.Contains(r.stderr, "longer than 4096") {
		t.Errorf("read of a 4,205-byte path: exit %d, %q; want the jail's refusal", r.code, short(r.stderr))
	}
}

// short is s, cut to 200 bytes for a message.
func short(s string) string {
	if len(s) > 200 {
		return s[:100] + "..." + s[len(s)-100:]
	}
	return s
}
