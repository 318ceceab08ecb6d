//go:build unix

package host_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
)

// TestOpenFileRefusesFIFOWithoutBlocking: a FIFO or a directory is refused
// with ErrNotRegular at once, not opened (which would wait for a writer).
func TestOpenFileRefusesFIFOWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skip(err)
	}
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	done := make(chan error, 1)
	go func() {
		_, _, err := h.OpenFile(bg, "", "fifo")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, host.ErrNotRegular) {
			t.Fatalf("FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OpenFile blocked on a FIFO")
	}
	if _, _, err := h.OpenFile(bg, "", "d"); !errors.Is(err, host.ErrNotRegular) {
		t.Fatalf("directory: %v", err)
	}
}

// TestReadFIFODoesNotBlock: reading or writing a FIFO is refused with
// ErrNotRegular at once, never blocked waiting for the other end.
func TestReadFIFODoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	done := make(chan error, 1)
	go func() {
		_, err := h.ReadFile(bg, "", "fifo")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, host.ErrNotRegular) {
			t.Fatalf("got %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile blocked on a FIFO")
	}
	if _, err := h.WriteFile(bg, "", "fifo", []byte("x")); !errors.Is(err, host.ErrNotRegular) {
		t.Fatalf("write to FIFO: %v", err)
	}
}
