//go:build unix

package walk

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestReadRegularWhole reads files of sizes around the page, the read
// that stops at st_size (no read returning 0 after it) and 64 KiB:
// every byte comes back, no more.
func TestReadRegularWhole(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 4095, 4096, 4097, 64<<10 - 1, 64 << 10, 64<<10 + 1, 1<<20 + 3} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(r.Uint32())
		}
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readFileNoFollow(p, false, maxIgnoreFileSize)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read %d bytes, not the file's", n, len(got))
		}
	}
}
