package mcpserver

import (
	"fmt"
	"testing"
)

// BenchmarkFillRaw is what fillRaw adds to a directory_tree answer of
// 50,000 entries (1,000 directories of 49 files), all names UTF-8.
func BenchmarkFillRaw(b *testing.B) {
	out := TreeOut{Root: "/w"}
	for d := range 1000 {
		dir := &TreeNode{Name: fmt.Sprintf("dir%04d", d), Type: "directory"}
		for f := range 49 {
			dir.Children = append(dir.Children, &TreeNode{Name: fmt.Sprintf("file%02d.go", f), Type: "file"})
		}
		out.Entries = append(out.Entries, dir)
	}
	b.ReportAllocs()
	for b.Loop() {
		fillRaw(&out)
	}
}
