package host_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host"
)

func TestUpdateFile(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "f"), []byte("A"), 0o640)
	os.WriteFile(filepath.Join(dir, "b", "f"), []byte("B"), 0o644)
	os.Symlink("a/f", filepath.Join(dir, "link"))
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	read := func(p string) string {
		b, _ := os.ReadFile(filepath.Join(dir, p))
		return string(b)
	}

	// Through a link: the target is updated, the link stays, the mode is kept.
	st, err := h.UpdateFile(bg, "", "link", func(r host.FileRead) ([]byte, error) {
		return []byte(strings.ToLower(r.Contents) + "1"), nil
	})
	if err != nil || st.Path != filepath.Join(dir, "a", "f") || read("a/f") != "a1" || !isLink(filepath.Join(dir, "link")) {
		t.Fatalf("update through link: %+v %v %q", st, err, read("a/f"))
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a", "f")); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode())
	}

	// fn's error: nothing written, the error as is.
	boom := errors.New("boom")
	if _, err := h.UpdateFile(bg, "", "a/f", func(host.FileRead) ([]byte, error) { return []byte("x"), boom }); err != boom {
		t.Fatalf("fn error: %v", err)
	}
	if read("a/f") != "a1" {
		t.Fatal("written despite fn's error")
	}

	// A write between the read and the rename: ErrChanged, and the other
	// write survives.
	_, err = h.UpdateFile(bg, "", "a/f", func(r host.FileRead) ([]byte, error) {
		os.WriteFile(filepath.Join(dir, "a", "f"), []byte("concurrent"), 0o640)
		return []byte("mine"), nil
	})
	if !errors.Is(err, host.ErrChanged) || read("a/f") != "concurrent" {
		t.Fatalf("lost update: %v, file holds %q", err, read("a/f"))
	}
	assertNoTemp(t, dir)

	// The directories swapped between the read and the write: the file
	// that was read (now b/f) is the one replaced; the other is untouched.
	_, err = h.UpdateFile(bg, "", "a/f", func(r host.FileRead) ([]byte, error) {
		os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "tmp"))
		os.Rename(filepath.Join(dir, "b"), filepath.Join(dir, "a"))
		os.Rename(filepath.Join(dir, "tmp"), filepath.Join(dir, "b"))
		return []byte(r.Contents + "+edit"), nil
	})
	if err != nil || read("b/f") != "concurrent+edit" || read("a/f") != "B" {
		t.Fatalf("after a swap: %v; b/f=%q a/f=%q", err, read("b/f"), read("a/f"))
	}

	// Escapes and non-files.
	if _, err := h.UpdateFile(bg, "", "../x", func(host.FileRead) ([]byte, error) { return nil, nil }); !errors.Is(err, host.ErrEscape) {
		t.Fatalf("escape: %v", err)
	}
	if _, err := h.UpdateFile(bg, "", "a", func(host.FileRead) ([]byte, error) { return nil, nil }); !errors.Is(err, host.ErrNotRegular) {
		t.Fatalf("directory: %v", err)
	}
}
