package host_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agenthost/agenthost/host"
)

// benchTree makes a small file six directories deep and returns the root
// and the file's path relative to it.
func benchTree(b *testing.B) (string, string) {
	root := b.TempDir()
	rel := filepath.Join("a", "b", "c", "d", "e", "f", "small.txt")
	os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755)
	os.WriteFile(filepath.Join(root, rel), []byte("package main\n\nfunc main() {}\n"), 0o644)
	return root, rel
}

// BenchmarkReadFile compares, on a small file six directories deep, the
// jailed ReadFile with os.ReadFile and with os.Root.ReadFile (root kept
// open). Goal: jailed ≤ 1.5× os.ReadFile and faster than os.Root.
func BenchmarkReadFile(b *testing.B) {
	root, rel := benchTree(b)
	b.Run("jailed", func(b *testing.B) {
		h, err := host.New(host.Config{WorkspaceRoot: root})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.ReadFile(bg, "", rel); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jailed-symlink", func(b *testing.B) {
		// A link on the way takes the descriptor walk instead of openat2.
		os.Symlink("a", filepath.Join(root, "link"))
		h, err := host.New(host.Config{WorkspaceRoot: root})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.ReadFile(bg, "", filepath.Join("link", rel[2:])); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		abs := filepath.Join(root, rel)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := os.ReadFile(abs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.Root", func(b *testing.B) {
		r, err := os.OpenRoot(root)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.ReadFile(rel); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWriteFile measures the atomic write (temp file, fsync, rename).
func BenchmarkWriteFile(b *testing.B) {
	root, rel := benchTree(b)
	h, err := host.New(host.Config{WorkspaceRoot: root})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	data := []byte("package main\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.WriteFile(bg, "", rel, data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve measures ResolveInJail on a plain path and through a link.
func BenchmarkResolve(b *testing.B) {
	root, rel := benchTree(b)
	os.Symlink("a", filepath.Join(root, "link"))
	h, err := host.New(host.Config{WorkspaceRoot: root})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	for _, p := range []string{rel, filepath.Join("link", rel[2:])} {
		b.Run(filepath.Base(filepath.Dir(filepath.Dir(p)))+"/"+p[:4], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.ResolveInJail(bg, "", p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
