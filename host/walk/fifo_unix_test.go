//go:build unix

package walk

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// mkfifoHeld replaces path (in e's DSL) with a FIFO and holds a writer on
// it that has written data, for the life of the test: a reader that reads
// through Go's poller, or a blocking read, would wait forever.
func mkfifoHeld(t *testing.T, e *gitEnv, path, data string) {
	t.Helper()
	p := e.abs(path)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	_ = os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	// O_RDWR opens a FIFO without waiting for a reader (Linux, macOS).
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	must(t, err)
	t.Cleanup(func() { w.Close() })
	_, err = w.WriteString(data)
	must(t, err)
}

// promptly runs f and fails the test if it has not returned within a
// generous limit.
func promptly(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// TestFIFOIgnoreFiles: a .gitignore, info/exclude or global excludes file
// that is a FIFO with a writer holding it open (and data in it) must not
// block Walk or IsIgnored, nor hold up another call behind the Cache's
// lock. git reads st_size bytes after an fstat and so sees an empty file;
// the answers must be git's, with and without a Jail.
func TestFIFOIgnoreFiles(t *testing.T) {
	e := newGitEnv(t, true)
	e.make("a.txt", "b.go", "sub/a", "sub/b.go", "other/c.txt")
	e.write("other/.gitignore", "c.txt\n")
	mkfifoHeld(t, e, "sub/.gitignore", "a\n")
	mkfifoHeld(t, e, ".git/info/exclude", "*.go\n")
	mkfifoHeld(t, e, "$XDG/git/ignore", "*.txt\n")
	probes := []string{"sub/x", "y.go"}

	want := gitAnswers(t, e, probes)
	for _, jailed := range []bool{false, true} {
		c := e.cache()
		if jailed {
			c = e.jailedCache(e.repo)
		}
		var got map[string]bool
		var wg sync.WaitGroup
		promptly(t, "IsIgnored and Walk", func() {
			// Unrelated calls on the same Cache at the same time.
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, _ = c.IsIgnored(context.Background(), e.repo, filepath.Join(e.repo, "other", "c.txt"))
			}()
			go func() {
				defer wg.Done()
				_, _, _ = walkRel(t, c, filepath.Join(e.repo, "sub"), Options{})
			}()
			got = answers(t, e, c, probes)
			wg.Wait()
		})
		if d := diffAnswers(want, got); d != "" {
			t.Errorf("jailed=%v: answers differ from git's:\n%s", jailed, d)
		}
		c.Close()
	}
}

// TestFIFOConfig: a .git/config or an included config that is a FIFO is
// not read (git would block reading it): the calls return at once, and
// what the FIFO holds is not applied.
func TestFIFOConfig(t *testing.T) {
	e := newGitEnv(t, false)
	e.make("a.txt", "hunter2", "sub/b.go")
	e.write("rules", "hunter2\n")
	e.write("~/.gitconfig", "[include]\n\tpath = ~/inc.cfg\n")
	mkfifoHeld(t, e, "~/inc.cfg", "[core]\n\texcludesFile = "+e.abs("rules")+"\n")
	mkfifoHeld(t, e, ".git/config", "[core]\n\texcludesFile = "+e.abs("rules")+"\n")
	for _, jailed := range []bool{false, true} {
		c := e.cache()
		if jailed {
			c = e.jailedCache(e.repo)
		}
		var got map[string]bool
		promptly(t, "IsIgnored and Walk", func() { got = answers(t, e, c, nil) })
		if got["hunter2"] || !got["walk:hunter2"] {
			t.Errorf("jailed=%v: a FIFO config was applied: %v", jailed, got)
		}
		c.Close()
	}
}
