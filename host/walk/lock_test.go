package walk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// blockingJail is a Jail over the whole file system whose Open of one
// path waits until released: a file system that hangs on one directory
// (files that are not followed are read through their directory).
type blockingJail struct {
	slow    string
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (b *blockingJail) Contains(string) bool { return true }

func (b *blockingJail) EnterRoots(p string, _ bool) (string, bool) { return p, true }

func (b *blockingJail) Open(p string) (*os.File, error) {
	if p == b.slow {
		b.once.Do(func() { close(b.entered) })
		<-b.release
	}
	return os.Open(p)
}

// TestSlowReadHoldsNoLock: while one IsIgnored waits on a hung read of an
// ignore file, IsIgnored in another repository and a Walk both answer (the
// Cache's lock is not held across reads).
func TestSlowReadHoldsNoLock(t *testing.T) {
	e := newGitEnv(t, false)
	e.write("slow/.gitignore", "*.log\n")
	e.write("slow/a.log", "x")
	other := filepath.Join(e.tmp, "other")
	must(t, os.MkdirAll(other, 0o755))
	e.git(other, "-c", "init.defaultBranch=main", "init", "-q")
	must(t, os.WriteFile(filepath.Join(other, ".gitignore"), []byte("*.tmp\n"), 0o644))

	bj := &blockingJail{slow: filepath.Join(e.repo, "slow"), entered: make(chan struct{}), release: make(chan struct{})}
	c := e.cache()
	c.Jail = bj
	defer c.Close()
	ctx := context.Background()

	done := make(chan bool)
	go func() {
		got, _ := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, "slow", "a.log"))
		done <- got
	}()
	select {
	case <-bj.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow read never started")
	}
	others := make(chan error, 1)
	go func() {
		got, err := c.IsIgnored(ctx, other, filepath.Join(other, "x.tmp"))
		if err == nil && !got {
			err = errors.New("x.tmp not ignored")
		}
		if err == nil {
			err = c.Walk(ctx, other, Options{Hidden: true}, func(Entry) error { return nil })
		}
		others <- err
	}()
	select {
	case err := <-others:
		must(t, err)
	case <-time.After(5 * time.Second):
		t.Error("other calls wait behind a hung read")
		close(bj.release)
		<-others
		<-done
		return
	}
	close(bj.release)
	if !<-done {
		t.Fatal("slow/a.log not ignored once the read finished")
	}
}

// TestIsIgnoredCancelled: a cancelled context is IsIgnored's answer.
func TestIsIgnoredCancelled(t *testing.T) {
	e := newGitEnv(t, false)
	e.write(".gitignore", strings.Repeat("*a*a*a*a*a*a*a*a*a*a*a*a*b\n", 100))
	c := e.cache()
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, strings.Repeat("a", 199)+"c")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// And uncancelled, the line against a 200-byte name answers
	// at once (it took longer than 20 s before).
	start := time.Now()
	got, err := c.IsIgnored(context.Background(), e.repo, filepath.Join(e.repo, strings.Repeat("a", 199)+"c"))
	must(t, err)
	if got || time.Since(start) > 2*time.Second {
		t.Fatalf("got %v after %v", got, time.Since(start))
	}
}
