//go:build linux

package walk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// askAll asks IsIgnored (from the repository root) about every file and
// directory under e.repo, directories also with a trailing slash, and
// returns the answers by path.
func askAll(t *testing.T, e *gitEnv, c *Cache) map[string]bool {
	t.Helper()
	files, dirs := diskTree(t, e.repo)
	probes := append(files, dirs...)
	for _, d := range dirs {
		probes = append(probes, d+"/")
	}
	got := map[string]bool{}
	for _, p := range probes {
		abs := filepath.Join(e.repo, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			abs += "/"
		}
		ig, err := c.IsIgnored(context.Background(), e.repo, abs)
		must(t, err)
		got[p] = ig
	}
	return got
}

// compareGit checks answers against git check-ignore.
func compareGit(t *testing.T, e *gitEnv, step string, got map[string]bool) {
	t.Helper()
	o := newOracle(e)
	var all []string
	for p := range got {
		all = append(all, p)
	}
	o.prefetch(all)
	for _, p := range all {
		if want := o.ignored(p, true); got[p] != want {
			t.Errorf("%s: IsIgnored(%s) = %v, git check-ignore says %v", step, quote(p), got[p], want)
		}
	}
}

// TestWatchSeesChanges: with inotify, an ignore or config file edited,
// created, deleted or replaced by a rename, and a directory replaced by
// another, are seen by the very next IsIgnored call. Recheck is an hour,
// so nothing but inotify can make a change visible; git is the oracle
// after every step; and a pass with nothing changed does not stat at all.
func TestWatchSeesChanges(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, true)
	e.make("a.log", "b.txt", "c.md", "sub/d.tmp", "sub/e.log", "sub/deep/f.txt", "new/g.txt", "new/h.md")
	c := e.cache()
	c.Recheck = time.Hour
	t.Cleanup(func() { c.Close() })

	rename := func(from, to string) { must(t, os.Rename(e.abs(from), e.abs(to))) }
	steps := []struct {
		name   string
		change func()
	}{
		{"nothing yet", func() {}},
		{"root .gitignore created", func() { e.write(".gitignore", "*.log\n") }},
		{"root .gitignore rewritten, same size, same tick", func() { e.write(".gitignore", "*.txt\n") }},
		{"nested .gitignore created", func() { e.write("sub/.gitignore", "*.tmp\n") }},
		{"deeper .gitignore created", func() { e.write("sub/deep/.gitignore", "*.txt\n!f.txt\n") }},
		{"nested .gitignore appended to", func() {
			f, err := os.OpenFile(e.abs("sub/.gitignore"), os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			_, err = f.WriteString("e.*\n")
			must(t, err)
			must(t, f.Close())
		}},
		{"root .gitignore replaced by rename", func() {
			e.write("gi.new", "*.md\n")
			rename("gi.new", ".gitignore")
		}},
		{"nested .gitignore deleted", func() { must(t, os.Remove(e.abs("sub/.gitignore"))) }},
		{"info/exclude written", func() { e.write(".git/info/exclude", "*.tmp\n") }},
		{"global excludes file created with its directory", func() { e.write("$XDG/git/ignore", "b.*\n") }},
		{"global config names another excludes file", func() {
			e.write("~/myignore", "h.md\ng.txt\n")
			e.write("~/.gitconfig", "[core]\n\texcludesFile = ~/myignore\n")
		}},
		{"excludes file edited", func() { e.write("~/myignore", "h.md\n") }},
		{"directory with rules replaced by another", func() {
			e.write("sub/.gitignore", "*\n")
			rename("sub", "old")
			rename("new", "sub")
		}},
		{"rules written into the replacement", func() { e.write("sub/.gitignore", "g.txt\n") }},
		// sub/deep was watched in the directory now at old/deep: the new
		// sub/deep must get a watch of its own.
		{"directory re-created where a watched one was", func() { e.make("sub/deep/y.txt", "sub/deep/z.log") }},
		{"rules written into it", func() { e.write("sub/deep/.gitignore", "y.txt\n") }},
		{"root .gitignore renamed away", func() { rename(".gitignore", "gi.bak") }},
		{"global config removed", func() { must(t, os.Remove(e.abs("~/.gitconfig"))) }},
	}
	for _, s := range steps {
		s.change()
		got := askAll(t, e, c) // at once: no sleep
		compareGit(t, e, s.name, got)
		// A file's IN_CLOSE_WRITE can come late, and cost one more
		// re-check: a parallel test's fork may hold the file open until
		// its exec. So one pass to settle, then one that must not stat.
		askAll(t, e, c)
		before := c.statCalls
		again := askAll(t, e, c)
		if n := c.statCalls - before; n != 0 {
			t.Errorf("%s: a pass with nothing changed re-checked %d files by stat", s.name, n)
		}
		for p, v := range again {
			if got[p] != v {
				t.Errorf("%s: %s changed from %v to %v with nothing changed", s.name, quote(p), got[p], v)
			}
		}
	}
	if !c.watch.active() {
		t.Error("inotify was not in use")
	}
}

// TestWatchFallback: where a watch cannot be added (the hook stands in for
// ENOSPC or EACCES), or inotify cannot be had at all, or after Close, the
// files concerned are re-checked by stat once per Recheck interval, and
// edits are still seen; files whose directories are watched are not
// stat'ed.
func TestWatchFallback(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"one directory", "no inotify", "closed"} {
		t.Run(mode, func(t *testing.T) {
			e := newGitEnv(t, true)
			e.make("a.log", "sub/b.tmp", "sub/c.txt", "top.txt")
			c := e.cache()
			t.Cleanup(func() { c.Close() })
			sub := e.abs("sub")
			switch mode {
			case "one directory":
				c.watchHook = func(dir string) error {
					if dir == sub {
						return errors.New("no space left on device (test)")
					}
					return nil
				}
			case "no inotify":
				c.watchHook = func(dir string) error {
					if dir == "" {
						return errors.New("too many open files (test)")
					}
					return nil
				}
			case "closed":
				must(t, c.Close())
			}
			wait := func() { time.Sleep(2 * RecheckInterval) }
			compareGit(t, e, "start", askAll(t, e, c))

			e.write("sub/.gitignore", "*.tmp\n")
			wait()
			compareGit(t, e, "nested .gitignore created", askAll(t, e, c))
			e.write("sub/.gitignore", "*.txt\n")
			wait()
			compareGit(t, e, "nested .gitignore rewritten", askAll(t, e, c))
			e.write(".gitignore", "*.log\n")
			wait()
			compareGit(t, e, "root .gitignore created", askAll(t, e, c))

			// After the interval: stats for what falls back, none for a
			// path whose whole chain is watched.
			wait()
			ask := func(p string) {
				_, err := c.IsIgnored(context.Background(), e.repo, e.abs(p))
				must(t, err)
			}
			before := c.statCalls
			ask("sub/c.txt")
			if c.statCalls == before {
				t.Errorf("%s: no stat for a file under an unwatched directory after the interval", mode)
			}
			wait()
			before = c.statCalls
			ask("top.txt")
			if n := c.statCalls - before; mode == "one directory" && n != 0 {
				t.Errorf("%s: %d stats for a path whose directories are watched", mode, n)
			} else if mode != "one directory" && n == 0 {
				t.Errorf("%s: no stat after the interval without inotify", mode)
			}
			if want := mode == "one directory"; c.watch.active() != want {
				t.Errorf("%s: inotify active = %v, want %v", mode, c.watch.active(), want)
			}
		})
	}
}

// TestWatchConcurrent: IsIgnored from several goroutines while the rules
// change under them (for the race detector); once the edits stop, every
// answer is git's.
func TestWatchConcurrent(t *testing.T) {
	t.Parallel()
	e := newGitEnv(t, false)
	e.make("a.log", "b.txt", "d1/c.log", "d1/d2/e.txt", "d1/d2/f.md")
	c := e.cache()
	c.Recheck = time.Hour
	t.Cleanup(func() { c.Close() })
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, p := range []string{"a.log", "b.txt", "d1/c.log", "d1/d2/e.txt", "d1/d2/f.md", "d1/d2/"} {
					if _, err := c.IsIgnored(context.Background(), e.repo, filepath.Join(e.repo, p)); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	rules := []string{"*.log\n", "*.txt\n", "d2/\n", "!*.md\n*\n!*/\n"}
	for i := range 40 {
		e.write([]string{".gitignore", "d1/.gitignore", "d1/d2/.gitignore"}[i%3], rules[i%len(rules)])
	}
	close(stop)
	wg.Wait()
	compareGit(t, e, "after concurrent edits", askAll(t, e, c))
}

// TestWatchCleanup: a Cache dropped without Close has its inotify
// descriptor, and the epoll set the poll asks first, closed once it is
// collected. (Not parallel: it looks at descriptor numbers another test
// could reuse.)
func TestWatchCleanup(t *testing.T) {
	e := newGitEnv(t, false)
	e.make("a.txt")
	fds := func() [2]int {
		c := e.cache()
		_, err := c.IsIgnored(context.Background(), e.repo, e.abs("a.txt"))
		must(t, err)
		if !c.watch.active() {
			t.Skip("inotify unavailable here")
		}
		if c.watch.ep < 0 {
			t.Fatal("no epoll set beside the inotify descriptor")
		}
		return [2]int{c.watch.fd, c.watch.ep}
	}()
	kinds := [2]string{"inotify", "eventpoll"}
	open := func(i int) bool {
		l, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fds[i]))
		return err == nil && strings.Contains(l, kinds[i])
	}
	for i := range fds {
		if !open(i) {
			t.Fatalf("descriptor %d is not an %s descriptor", fds[i], kinds[i])
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if !open(0) && !open(1) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("descriptors of a collected Cache still open: inotify %v, epoll %v", open(0), open(1))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatchPollGate: the poll's epoll gate says "nothing queued" only when
// nothing is: an event queued by a write that returned before the poll is
// reported by that poll, every time, over many rounds (the set is
// level-triggered, and the descriptor must come back onto its ready list
// after each drain); a poll with nothing new reports nothing. The same
// holds without the gate (ep -1: every poll reads).
func TestWatchPollGate(t *testing.T) {
	for _, gate := range []bool{true, false} {
		t.Run(map[bool]string{true: "epoll", false: "read"}[gate], func(t *testing.T) {
			dir := t.TempDir()
			c := &Cache{}
			c.mu.Lock()
			defer c.mu.Unlock()
			w := &c.watch
			w.open(c)
			if !w.active() {
				t.Skip("inotify unavailable here")
			}
			defer w.close()
			if gate && w.ep < 0 {
				t.Fatal("no epoll set")
			}
			if !gate {
				_ = unix.Close(w.ep)
				w.ep = -1
			}
			if !w.watchFile(c, filepath.Join(dir, ".gitignore"), false) {
				t.Fatal("watchFile failed")
			}
			if w.poll(c) {
				t.Fatal("a poll with nothing written reported a change")
			}
			for i := range 200 {
				data := strings.Repeat("x", i%7)
				if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
				if !w.poll(c) {
					t.Fatalf("round %d: a write that returned before the poll was not seen", i)
				}
				if i%3 == 0 {
					// An event on a name nothing depends on is read (the
					// gate opens) but changes nothing.
					if err := os.WriteFile(filepath.Join(dir, "other"), nil, 0o644); err != nil {
						t.Fatal(err)
					}
					if w.poll(c) && w.poll(c) {
						t.Fatalf("round %d: an unrelated name reported a change", i)
					}
				}
				// (A late IN_CLOSE_WRITE, from a fork that held the file
				// until its exec, may make one poll report a change.)
				if w.poll(c) && w.poll(c) {
					t.Fatalf("round %d: polls with nothing new kept reporting a change", i)
				}
			}
		})
	}
}
