//go:build linux

package fs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
)

func newFS(t *testing.T, dir string) *FS {
	t.Helper()
	j, err := jail.New(dir, nil, jail.Jailed, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return New(j, 0)
}

// TestLockWaitIsBounded: a writer never hangs on a lock. An UpdateFile
// whose fn writes the same file through agenthost waits for itself and
// gets ErrLocked; a flock held by someone else (another open file
// description: another process, or a stopped writer) gives ErrLocked
// too. Nothing is written, and the file is usable afterwards.
func TestLockWaitIsBounded(t *testing.T) {
	defer func(d time.Duration) { lockWait = d }(lockWait)
	lockWait = 200 * time.Millisecond
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644)
	f := newFS(t, dir)

	start := time.Now()
	var inner error
	_, err := f.UpdateFile("", "f", func(r FileRead) ([]byte, error) {
		_, inner = f.WriteFile("", "f", []byte("inner"))
		return []byte("outer"), nil
	})
	if !errors.Is(inner, ErrLocked) || err != nil {
		t.Fatalf("write inside the update: %v; update: %v", inner, err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("took %v", el)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "outer" {
		t.Fatalf("file holds %q", b)
	}

	holder, err := os.Open(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteFile("", "f", []byte("blocked")); !errors.Is(err, ErrLocked) {
		t.Fatalf("WriteFile under another's flock: %v", err)
	}
	if _, err := f.UpdateFile("", "f", func(FileRead) ([]byte, error) { return []byte("x"), nil }); !errors.Is(err, ErrLocked) {
		t.Fatalf("UpdateFile under another's flock: %v", err)
	}
	holder.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "outer" {
		t.Fatalf("written despite ErrLocked: %q", b)
	}
	if _, err := f.WriteFile("", "f", []byte("free")); err != nil {
		t.Fatal(err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Fatalf("left behind: %v", names)
	}
}

// TestKeyedMutexForgetsFiles: the in-process lock table holds no entry
// for a file nobody is writing.
func TestKeyedMutexForgetsFiles(t *testing.T) {
	dir := t.TempDir()
	f := newFS(t, dir)
	for i := range 50 {
		name := filepath.Join("d", string(rune('a'+i%26)))
		os.MkdirAll(filepath.Join(dir, "d"), 0o755)
		f.WriteFile("", name, []byte("x"))
		f.WriteFile("", name, []byte("y"))
	}
	fileLocks.mu.Lock()
	n := len(fileLocks.m)
	fileLocks.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d entries left in the lock table", n)
	}
}
