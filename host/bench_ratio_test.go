package host_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
)

// BenchmarkReadFileRatio measures the jailed ReadFile (plain, and through
// one symbolic link: the walk, then one openat2 for the rest) against
// os.ReadFile and os.Root.ReadFile on the same six-deep file, interleaved
// in rounds so that a noisy machine slows every side alike, and reports
// the ratios of the per-round medians. Goals (issues 10 and 15): plain
// ≤ 1.0× os.ReadFile and < os.Root; through a link ≤ 1.5× os.ReadFile.
func BenchmarkReadFileRatio(b *testing.B) {
	root, rel := benchTree(b)
	os.Symlink("a", filepath.Join(root, "link"))
	h, err := host.New(host.Config{WorkspaceRoot: root})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	r, err := os.OpenRoot(root)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	abs := filepath.Join(root, rel)
	viaLink := filepath.Join("link", rel[2:])
	sides := []struct {
		name string
		run  func() error
	}{
		{"os.ReadFile", func() error { _, err := os.ReadFile(abs); return err }},
		{"os.Root", func() error { _, err := r.ReadFile(rel); return err }},
		{"jailed", func() error { _, err := h.ReadFile(bg, "", rel); return err }},
		{"jailed-symlink", func() error { _, err := h.ReadFile(bg, "", viaLink); return err }},
	}
	const batch = 64
	per := make([][]float64, len(sides))
	for b.Loop() {
		for i, s := range sides {
			t0 := time.Now()
			for range batch {
				if err := s.run(); err != nil {
					b.Fatal(err)
				}
			}
			per[i] = append(per[i], float64(time.Since(t0).Nanoseconds())/batch)
		}
	}
	med := make([]float64, len(sides))
	for i := range sides {
		sort.Float64s(per[i])
		med[i] = per[i][len(per[i])/2]
		b.ReportMetric(med[i], sides[i].name+"-ns/op")
	}
	b.ReportMetric(med[2]/med[0], "jailed/os.ReadFile")
	b.ReportMetric(med[2]/med[1], "jailed/os.Root")
	b.ReportMetric(med[3]/med[0], "symlink/os.ReadFile")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkAddRoot measures adding a root six directories deep (the walk
// from "/", one openat2 where the kernel has it) and removing it again.
func BenchmarkAddRoot(b *testing.B) {
	root, rel := benchTree(b)
	h, err := host.New(host.Config{WorkspaceRoot: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	dir := filepath.Join(root, filepath.Dir(rel))
	os.Symlink(dir, filepath.Join(root, "link"))
	for _, c := range []struct{ name, path string }{{"plain", dir}, {"via-link", filepath.Join(root, "link")}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				canon, err := h.AddRoot(c.path)
				if err != nil {
					b.Fatal(err)
				}
				if err := h.RemoveRoot(canon); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
