//go:build linux

package walk

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
)

// Batch.CheckInDirFd, given a descriptor on each path's parent opened
// through the jail, answers exactly as Check does (which looks by path),
// for a first look at every directory (a fresh Cache) and a later one, with
// watches and without, under three option sets.
func TestCheckInDirFdAgrees(t *testing.T) {
	e, paths := checkRelTree(t)
	j, err := jail.New(e.repo, nil, jail.Jailed, e.home)
	must(t, err)
	defer j.Close()
	ctx := context.Background()
	top := e.repo
	for _, noWatch := range []bool{false, true} {
		for _, opts := range []CheckOptions{{}, {VerdictOnly: true}, {NoIndex: true}} {
			ref := e.jailedCache(e.repo)
			ref.NoWatch = noWatch
			c := e.jailedCache(e.repo)
			c.NoWatch = noWatch
			for round := range 2 {
				b := c.NewBatch(opts)
				for _, p := range paths {
					dir := strings.HasSuffix(p, "/")
					rel := strings.TrimSuffix(p, "/")
					abs := filepath.Join(top, rel)
					parent := filepath.Dir(abs)
					if dir {
						abs += "/"
					}
					fd, canon, err := j.OpenDirFd("", parent)
					if err != nil {
						continue // a missing parent: not this method's case
					}
					if canon != parent {
						t.Fatalf("OpenDirFd(%q) = %q", parent, canon)
					}
					got, err := b.CheckInDirFd(ctx, top, abs, parent, fd)
					must(t, err)
					must(t, unix.Close(fd))
					want, err := ref.Check(ctx, top, []string{abs}, opts)
					must(t, err)
					if !sameMatch(got, want[0]) {
						t.Errorf("noWatch %v, round %d, %+v: CheckInDirFd(%q) = %+v, Check %+v", noWatch, round, opts, p, got, want[0])
					}
				}
			}
			c.Close()
			ref.Close()
		}
	}
}

// What CheckInDirFd learns about the directory comes from the descriptor,
// not from the path: after the directory was opened, its path is made a
// symbolic link to a directory outside the roots whose .gitignore ignores
// *.go; the answers follow the .gitignore of the directory the jail
// opened (*.log), and nothing outside decides. (By path, the Cache would
// find the outside .gitignore, refuse it through the jail, and ignore
// nothing.)
func TestCheckInDirFdReadsTheDescriptor(t *testing.T) {
	e := newGitEnv(t, false)
	e.write("sub/.gitignore", "*.log\n")
	e.write("/out/dir/.gitignore", "*.go\n")
	j, err := jail.New(e.repo, nil, jail.Jailed, e.home)
	must(t, err)
	defer j.Close()
	sub := filepath.Join(e.repo, "sub")
	fd, _, err := j.OpenDirFd("", sub)
	must(t, err)
	defer unix.Close(fd)
	must(t, os.Rename(sub, sub+".old"))
	must(t, os.Symlink(e.abs("/out/dir"), sub))

	c := e.jailedCache(e.repo)
	c.NoWatch = true
	b := c.NewBatch(CheckOptions{NoIndex: true})
	ctx := context.Background()
	for name, want := range map[string]bool{"x.log": true, "x.go": false} {
		m, err := b.CheckInDirFd(ctx, e.repo, filepath.Join(sub, name), sub, fd)
		must(t, err)
		if m.Ignored != want {
			t.Errorf("sub/%s: ignored %v, want %v (the .gitignore of the directory opened)", name, m.Ignored, want)
		}
	}
}
