//go:build linux

package walk

import (
	"context"
	"fmt"
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
					abs, rel, _ := relQuestion(top, p)
					parent := filepath.Dir(filepath.Join(top, rel))
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

// BenchmarkColdBatchFd is what one check-ignore process does in the walk
// cache: a fresh Cache (no watches) with a Jail, one Batch, every path's
// parent opened through the jail once and handed in. "fd" hands the
// descriptor in (CheckInDirFd) and lets the Cache open each other
// directory as one (DirFdOpener); "path" is the way before, CheckInDirFd with -1 and
// a Jail with Open alone, where .git and .gitignore are looked up by
// absolute path. The tree is $WALK_BENCH_DIR with $WALK_BENCH_PATHS when
// set (bench/walk builds them), else a generated one.
func BenchmarkColdBatchFd(b *testing.B) {
	root, rels := os.Getenv("WALK_BENCH_DIR"), []string(nil)
	if list := os.Getenv("WALK_BENCH_PATHS"); root != "" && list != "" {
		data, err := os.ReadFile(list)
		must(b, err)
		rels = strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	} else {
		root = b.TempDir()
		must(b, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
		must(b, os.WriteFile(filepath.Join(root, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
		must(b, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n/dist/\ncache/\n"), 0o644))
		for d := range 200 {
			dir := fmt.Sprintf("p%02d/d%d/e%d", d%20, d%7, d)
			must(b, os.MkdirAll(filepath.Join(root, dir), 0o755))
			if d%4 == 0 {
				must(b, os.WriteFile(filepath.Join(root, dir, ".gitignore"), []byte("[a-c]*.txt\nbuild/\n"), 0o644))
			}
			for f := range 5 {
				rels = append(rels, fmt.Sprintf("%s/%c%d.%s", dir, 'a'+f, f, []string{"go", "txt", "log"}[f%3]))
			}
		}
	}
	root, err := filepath.EvalSymlinks(root)
	must(b, err)
	env := newGitEnv(b, false) // a HOME of its own: no user config read
	j, err := jail.New(root, nil, jail.Jailed, env.home)
	must(b, err)
	defer j.Close()
	ctx := context.Background()
	for _, mode := range []string{"fd", "path"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				c := &Cache{NoWatch: true, Getenv: env.getenv}
				c.Jail = testJail{j}
				if mode == "fd" {
					c.Jail = testJailFd{testJail{j}}
				}
				bt := c.NewBatch(CheckOptions{NoIndex: true, VerdictOnly: true})
				seen := map[string]bool{}
				for _, rel := range rels {
					rel = strings.TrimSuffix(rel, "/")
					parent := filepath.Join(root, filepath.Dir(rel))
					fd := -1
					if !seen[parent] {
						seen[parent] = true
						var err error
						if fd, _, err = j.OpenDirFd("", parent); err != nil {
							continue
						}
					}
					var err error
					if mode == "fd" {
						_, err = bt.CheckInDirFd(ctx, root, filepath.Join(root, rel), parent, fd)
					} else {
						_, err = bt.CheckInDirFd(ctx, root, filepath.Join(root, rel), parent, -1)
					}
					must(b, err)
					if fd >= 0 {
						unix.Close(fd)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rels)), "ns/path")
		})
	}
}
