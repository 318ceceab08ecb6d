package fs

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadDirRefusesFIFOWithoutBlocking: ReadDir opens its directory
// without O_NONBLOCK, and a FIFO where the directory should be is still
// refused at once (ENOTDIR), not opened (which would wait for a writer),
// with links followed or not; a directory beside it is listed.
func TestReadDirRefusesFIFOWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skip(err)
	}
	if err := syscall.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "d", "p"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFS(t, dir)
	for _, noFollow := range []bool{false, true} {
		done := make(chan error, 1)
		go func() {
			_, err := f.ReadDir("", "fifo", Options{NoFollow: noFollow})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, syscall.ENOTDIR) {
				t.Errorf("ReadDir of a FIFO (NoFollow %v): %v, want ENOTDIR", noFollow, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadDir blocked on a FIFO (NoFollow %v)", noFollow)
		}
		ents, err := f.ReadDir("", "d", Options{NoFollow: noFollow})
		if err != nil || len(ents) != 1 || ents[0].Path != filepath.Join(f.j.WorkspaceRoot(), "d", "p") {
			t.Errorf("ReadDir of d (NoFollow %v): %v, %v; want d/p", noFollow, ents, err)
		}
	}
}
