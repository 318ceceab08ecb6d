package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenthost/agenthost/host/jail"
)

// BenchmarkWriteFile is one small WriteFile on tmpfs (no disk: the
// writer's own cost), in a directory of 1, 256 (swept every write) and 10,000 entries (the
// sweep for leftovers reads the directory once per write), with
// O_TMPFILE and on the named fallback.
func BenchmarkWriteFile(b *testing.B) {
	base := "/dev/shm"
	if _, err := os.Stat(base); err != nil {
		base = b.TempDir()
	}
	for _, entries := range []int{1, 256, 10000} {
		for _, fallback := range []bool{false, true} {
			name := fmt.Sprintf("entries=%d/tmpfile", entries)
			if fallback {
				name = fmt.Sprintf("entries=%d/fallback", entries)
			}
			b.Run(name, func(b *testing.B) {
				dir, err := os.MkdirTemp(base, "agenthost-bench-")
				if err != nil {
					b.Fatal(err)
				}
				defer os.RemoveAll(dir)
				for i := 1; i < entries; i++ {
					os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644)
				}
				j, err := jail.New(dir, nil, jail.Jailed, "")
				if err != nil {
					b.Fatal(err)
				}
				defer j.Close()
				noTmpfile.Store(fallback)
				defer noTmpfile.Store(false)
				f := New(j, 0)
				data := []byte("contents\n")
				for b.Loop() {
					if _, err := f.WriteFile("", "target", data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
