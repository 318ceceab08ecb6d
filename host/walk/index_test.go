package walk

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/index"
	"time"
)

// indexRepo is a repository whose index matters: tracked files the rules
// ignore (added with -f, committed before the rule), a file removed from
// the index (git rm --cached), a tracked file deleted from disk, an
// intent-to-add entry, a skip-worktree entry and ignored directories that
// hold tracked files at several depths.
func indexRepo(t *testing.T) *gitEnv {
	t.Helper()
	e := newGitEnv(t, false)
	e.make("a.go", "x.log", "tracked.log", "build/keep.o", "build/other.o", "build/deep/kept.o", "build/deep/loose.o",
		".vscode/settings.json", ".vscode/launch.json", "removed.txt", "gone.log", "src/main.go", "src/gen/out.go",
		"src/gen/tracked.go", "intent.log", "skip.log", "vendor/lib/x.go", "vendor/lib/y.go")
	e.git(e.repo, "add", ".vscode/settings.json", "a.go", "removed.txt", "src/main.go")
	e.git(e.repo, "commit", "-q", "-m", "before the rules")
	e.write(".gitignore", "*.log\nbuild/\n.vscode/\nremoved.txt\ngen/\nvendor/\n")
	e.git(e.repo, "add", ".gitignore")
	e.git(e.repo, "add", "-f", "tracked.log", "build/keep.o", "build/deep/kept.o", "gone.log", "src/gen/tracked.go", "skip.log", "vendor/lib/x.go")
	e.git(e.repo, "add", "-f", "-N", "intent.log")
	e.git(e.repo, "rm", "-q", "--cached", "removed.txt")
	e.git(e.repo, "commit", "-q", "-m", "tracked despite the rules")
	e.git(e.repo, "update-index", "--skip-worktree", "skip.log")
	must(t, os.Remove(e.abs("gone.log")))
	return e
}

// onDisk keeps the paths that exist (a tracked file deleted from disk is
// not listed: git ls-files -c lists it, but there is nothing to open).
func onDisk(root string, rels []string) []string {
	var out []string
	for _, r := range rels {
		if _, err := os.Lstat(filepath.Join(root, r)); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// nulList splits git's -z output.
func nulList(out []byte) []string {
	var l []string
	for _, s := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if s != "" {
			l = append(l, s)
		}
	}
	slices.Sort(l)
	return l
}

// checkIndexAgainstGit compares Walk and Check, with and without the
// index, with git ls-files -co --exclude-standard and git check-ignore
// (-v, with and without --no-index) on every path on disk and probes.
func checkIndexAgainstGit(t *testing.T, e *gitEnv, c *Cache, root string, probes ...string) {
	t.Helper()
	want := onDisk(root, nulList(e.git(root, "ls-files", "-z", "-co", "--exclude-standard")))
	files, _, err := walkRel(t, c, root, Options{Hidden: true})
	must(t, err)
	if d := diff(want, files); d != "" {
		t.Errorf("Walk (index) differs from git ls-files -co --exclude-standard:\n%s", d)
	}

	paths := append(diskFiles(t, root), probes...)
	for _, noIndex := range []bool{false, true} {
		args := []string{"check-ignore", "-z", "-v", "-n", "--stdin"}
		if noIndex {
			args = append(args, "--no-index")
		}
		out := e.gitIn(root, []byte(strings.Join(paths, "\x00")+"\x00"), args...)
		fields := strings.Split(string(out), "\x00")
		gitSays := map[string][3]string{} // path -> source, line, pattern
		for i := 0; i+3 < len(fields); i += 4 {
			gitSays[fields[i+3]] = [3]string{fields[i], fields[i+1], fields[i+2]}
		}
		abs := make([]string, len(paths))
		for i, p := range paths {
			abs[i] = filepath.Join(root, p)
			if strings.HasSuffix(p, "/") {
				abs[i] += "/"
			}
		}
		ms, err := c.Check(context.Background(), e.repo, abs, CheckOptions{NoIndex: noIndex})
		must(t, err)
		for i, p := range paths {
			g := gitSays[p]
			// git check-ignore reports a negated match too; ignored is a
			// match whose pattern does not start with "!".
			gitIgnored := g[2] != "" && !strings.HasPrefix(g[2], "!")
			m := ms[i]
			if m.Ignored != gitIgnored {
				t.Errorf("Check(%s, NoIndex=%v).Ignored = %v, git check-ignore says %v (%q)", p, noIndex, m.Ignored, gitIgnored, g)
				continue
			}
			var got [3]string
			if m.Rule != nil {
				got = [3]string{m.Rule.Source, fmt.Sprint(m.Rule.Line), m.Rule.Pattern}
			}
			if got != g {
				t.Errorf("Check(%s, NoIndex=%v).Rule = %q, git check-ignore -v says %q", p, noIndex, got, g)
			}
			if ig, err := c.IsIgnored(context.Background(), e.repo, abs[i]); !noIndex && (err != nil || ig != m.Ignored) {
				t.Errorf("IsIgnored(%s) = %v, %v; Check says %v", p, ig, err, m.Ignored)
			}
		}
	}
}

// diskFiles lists the files under root (relative, '/'), .git left out,
// and each directory with a trailing '/'.
func diskFiles(t *testing.T, root string) []string {
	files, dirs := diskTree(t, root)
	for _, d := range dirs {
		files = append(files, d+"/")
	}
	return files
}

// TestIndexAgainstGit: tracked files the rules ignore are listed and not
// ignored; the index-free answers are --no-index's; -v's rules are git's.
func TestIndexAgainstGit(t *testing.T) {
	e := indexRepo(t)
	checkIndexAgainstGit(t, e, e.cache(), e.repo, "gone.log", "build/new.o", "vendor/lib/", "vendor/lib/z.go", "nothere/x.log", "src/gen/")
	// NoIndex lists what the rules alone leave.
	want := nulList(e.git(e.repo, "ls-files", "-z", "-co", "--exclude-standard"))
	ignored := nulList(e.gitIn(e.repo, []byte(strings.Join(want, "\x00")+"\x00"), "check-ignore", "-z", "--stdin", "--no-index"))
	want = onDisk(e.repo, slices.DeleteFunc(want, func(s string) bool { _, ok := slices.BinarySearch(ignored, s); return ok }))
	files, _, err := walkRel(t, e.cache(), e.repo, Options{Hidden: true, NoIndex: true})
	must(t, err)
	if d := diff(want, files); d != "" {
		t.Errorf("Walk(NoIndex) differs from git's untracked-or-not-ignored files:\n%s", d)
	}
}

// TestIndexVersions: the index written by git at versions 2, 3 and 4
// gives the same answers (the extended flags of skip-worktree and
// intent-to-add force version 3 where 2 was asked).
func TestIndexVersions(t *testing.T) {
	e := indexRepo(t)
	for _, v := range []string{"2", "3", "4"} {
		t.Run("v"+v, func(t *testing.T) {
			e.git(e.repo, "update-index", "--index-version", v)
			checkIndexAgainstGit(t, e, e.cache(), e.repo)
		})
	}
}

// TestIndexChanges: the index changed between two calls (git add -f, git
// rm --cached) is seen by the next call of the same Cache.
func TestIndexChanges(t *testing.T) {
	e := indexRepo(t)
	for _, recheck := range []int{0, -1} {
		c := e.cache()
		if recheck < 0 {
			c.Recheck = -1
		}
		p := filepath.Join(e.repo, "build", "other.o")
		ask := func() bool {
			t.Helper()
			ig, err := c.IsIgnored(context.Background(), e.repo, p)
			must(t, err)
			return ig
		}
		if !ask() {
			t.Fatal("build/other.o not ignored before git add -f")
		}
		e.git(e.repo, "add", "-f", "build/other.o")
		waitRecheck(c)
		if ask() {
			t.Fatal("build/other.o ignored after git add -f")
		}
		checkIndexAgainstGit(t, e, c, e.repo)
		e.git(e.repo, "rm", "-q", "--cached", "build/other.o")
		waitRecheck(c)
		if !ask() {
			t.Fatal("build/other.o not ignored after git rm --cached")
		}
		c.Close()
	}
}

// waitRecheck lets a Cache without inotify see a change.
func waitRecheck(c *Cache) {
	if !c.watching() {
		for i := 0; i < 3; i++ {
			os.Stat("/") // pass the time of a recheck interval cheaply
		}
		sleepRecheck()
	}
}

// TestIndexWorktree: a linked worktree (its .git is a file) has its own
// index, under the main repository's .git/worktrees.
func TestIndexWorktree(t *testing.T) {
	e := indexRepo(t)
	wt := filepath.Join(e.tmp, "wt")
	e.git(e.repo, "worktree", "add", "-q", wt)
	must(t, os.WriteFile(filepath.Join(wt, "build", "fresh.o"), nil, 0o644))
	e.git(wt, "add", "-f", "build/fresh.o")
	fi, err := os.Lstat(filepath.Join(wt, ".git"))
	must(t, err)
	if fi.IsDir() {
		t.Fatal("the worktree's .git is a directory: the test tests nothing")
	}
	checkIndexAgainstGit(t, e, e.cache(), wt, "build/other.o")
}

// TestIndexRefused: a split index and a sparse index are refused with
// ErrIndexUnsupported, a corrupt one with ErrIndexCorrupt; the walk still
// lists the index-free answer.
func TestIndexRefused(t *testing.T) {
	cases := []struct {
		name  string
		setup func(e *gitEnv)
		want  error
	}{
		{"split index", func(e *gitEnv) { e.git(e.repo, "update-index", "--split-index") }, ErrIndexUnsupported},
		{"corrupt", func(e *gitEnv) {
			p := filepath.Join(e.repo, ".git", "index")
			b, err := os.ReadFile(p)
			must(t, err)
			binary.BigEndian.PutUint32(b[8:], 1<<30) // more entries than the file holds
			must(t, os.WriteFile(p, b, 0o644))
		}, ErrIndexCorrupt},
		{"sparse index", func(e *gitEnv) {
			e.git(e.repo, "sparse-checkout", "init", "--cone", "--sparse-index")
			e.git(e.repo, "sparse-checkout", "set", "src")
		}, ErrIndexUnsupported},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := indexRepo(t)
			tc.setup(e)
			c := e.cache()
			files, _, err := walkRel(t, c, e.repo, Options{Hidden: true})
			var pe *PartialError
			if !errors.As(err, &pe) || !errors.Is(err, tc.want) {
				t.Fatalf("Walk: %v, want a PartialError wrapping %v", err, tc.want)
			}
			if !slices.Contains(files, "a.go") || slices.Contains(files, "build/keep.o") {
				t.Errorf("Walk without a usable index: %q", files)
			}
			if _, err := c.IsIgnored(context.Background(), e.repo, filepath.Join(e.repo, "a.go")); !errors.Is(err, tc.want) {
				t.Errorf("IsIgnored: %v, want %v", err, tc.want)
			}
			ms, err := c.Check(context.Background(), e.repo, []string{filepath.Join(e.repo, "a.go")}, CheckOptions{NoIndex: true})
			if err != nil || ms[0].Ignored {
				t.Errorf("Check(NoIndex): %v %v", ms, err)
			}
		})
	}
}

// sleepRecheck waits out the default Recheck interval.
func sleepRecheck() { time.Sleep(2 * RecheckInterval) }

// goGitNames decodes an index with go-git's decoder, the reference.
func goGitNames(data []byte) ([]string, error) {
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
		return nil, err
	}
	var names []string
	for _, e := range idx.Entries {
		names = append(names, e.Name)
	}
	return names, nil
}

// TestIndexDecoderAgreesWithGoGit: on indexes git writes at versions 2, 3
// and 4, the package's decoder gives go-git's names, in order.
func TestIndexDecoderAgreesWithGoGit(t *testing.T) {
	e := indexRepo(t)
	for _, v := range []string{"2", "3", "4"} {
		e.git(e.repo, "update-index", "--index-version", v)
		data, err := os.ReadFile(filepath.Join(e.repo, ".git", "index"))
		must(t, err)
		want, err := goGitNames(data)
		must(t, err)
		got, err := decodeIndexNames(data)
		must(t, err)
		if !slices.Equal(got, want) {
			t.Errorf("v%s: decoder %q, go-git %q", v, got, want)
		}
	}
}

// FuzzIndexDecoder mutates indexes git wrote (the checksum put right
// after the mutation, so that the entries are what is tried): the decoder
// never panics, and whenever go-git's decoder accepts the input, ours
// gives the same names or refuses it as unsupported.
func FuzzIndexDecoder(f *testing.F) {
	for _, seed := range indexSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= indexHeaderLen+indexChecksumLen {
			body := data[:len(data)-indexChecksumLen]
			sum := sha1.Sum(body)
			data = append(slices.Clip(body), sum[:]...)
		}
		got, err := decodeIndexNames(data)
		want, gerr := goGitNames(data)
		if gerr == nil && err == nil && !slices.Equal(got, want) {
			t.Fatalf("decoder %q, go-git %q", got, want)
		}
		if err != nil && !errors.Is(err, ErrIndexCorrupt) && !errors.Is(err, ErrIndexUnsupported) {
			t.Fatalf("error %v wraps neither sentinel", err)
		}
	})
}

// indexSeeds are indexes written by git at each version, with long names,
// extended flags and conflicts' neighbours.
func indexSeeds(tb testing.TB) [][]byte {
	e := newGitEnv(tb, false)
	e.make("a", "b/c", "b/d/e", "skip", "new")
	e.git(e.repo, "add", ".")
	// A name of 4095 bytes or more (its length field saturates), which
	// only the index holds.
	blob := strings.TrimSpace(string(e.gitIn(e.repo, []byte("x\n"), "hash-object", "-w", "--stdin")))
	long := strings.Repeat(strings.Repeat("n", 200)+"/", 21) + "f"
	e.git(e.repo, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	e.git(e.repo, "update-index", "--skip-worktree", "skip")
	var seeds [][]byte
	for _, v := range []string{"2", "3", "4"} {
		e.git(e.repo, "update-index", "--index-version", v)
		data, err := os.ReadFile(filepath.Join(e.repo, ".git", "index"))
		must(tb, err)
		seeds = append(seeds, data)
	}
	return seeds
}

// TestIndexBadChecksumAsGit: an index whose trailing checksum is wrong is
// used, as git uses it outside fsck: the walk lists what git ls-files -co
// --exclude-standard lists with that index, tracked-ignored files
// included, and reports no error.
func TestIndexBadChecksumAsGit(t *testing.T) {
	e := indexRepo(t)
	p := filepath.Join(e.repo, ".git", "index")
	b, err := os.ReadFile(p)
	must(t, err)
	b[len(b)-1] ^= 0xff
	must(t, os.WriteFile(p, b, 0o644))
	want := onDisk(e.repo, strings.Fields(string(e.git(e.repo, "ls-files", "-co", "--exclude-standard"))))
	if !slices.Contains(want, "build/keep.o") {
		t.Fatalf("git did not use the index with a bad checksum: %q", want)
	}
	files, _, err := walkRel(t, e.cache(), e.repo, Options{Hidden: true})
	must(t, err)
	slices.Sort(want)
	slices.Sort(files)
	if !slices.Equal(files, want) {
		t.Errorf("walk with a bad index checksum:\n got %q\nwant %q (git)", files, want)
	}
}
