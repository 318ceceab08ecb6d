//go:build linux

package host_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host"
)

// TestRaceSwapDirWithSymlink swaps a directory inside the workspace with a
// symbolic link to outside (renameat2 RENAME_EXCHANGE, atomically) as fast
// as it can, while readers, writers and stats go through the swapped name.
// Reads must never return outside content and writes must never land
// outside.
func TestRaceSwapDirWithSymlink(t *testing.T) {
	if testing.Short() {
		t.Skip("race test: skipped under -short")
	}
	dir := t.TempDir()
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(ws, "sw"), 0o755)
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(ws, "sw", "f"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(out, "f"), []byte("OUTSIDE"), 0o644)
	os.WriteFile(filepath.Join(out, "outside-marker"), []byte("OUTSIDE"), 0o644)
	os.Symlink(out, filepath.Join(ws, "swl"))
	// A second, deeper swap: ws/deep/sw <-> ws/deep/swl -> ../../out
	os.MkdirAll(filepath.Join(ws, "deep", "sw"), 0o755)
	os.WriteFile(filepath.Join(ws, "deep", "sw", "f"), []byte("inside"), 0o644)
	os.Symlink("../../out", filepath.Join(ws, "deep", "swl"))

	h := newHost(t, host.Config{WorkspaceRoot: ws})
	swaps, stopSwapping := startSwapping(t, ws, [2]string{"sw", "swl"}, [2]string{"deep/sw", "deep/swl"})
	defer stopSwapping()

	var wg sync.WaitGroup
	stop := make(chan struct{})
	var reads, refused atomic.Int64
	for g := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				for _, p := range []string{"sw/f", "deep/sw/f", "sw/../sw/f"} {
					r, err := h.ReadFile(bg, "", p)
					if err == nil && r.Contents != "inside" {
						t.Errorf("read %s returned %q from %s", p, r.Contents, r.Path)
					}
					if err == nil && !strings.HasPrefix(r.Path, ws+"/") {
						t.Errorf("read %s resolved to %s", p, r.Path)
					}
					if err != nil {
						refused.Add(1)
					}
					reads.Add(1)
					if st, err := h.Stat(bg, "", p); err == nil && !strings.HasPrefix(st.Path, ws+"/") {
						t.Errorf("stat %s resolved to %s", p, st.Path)
					}
				}
				for _, p := range []string{"sw", "deep/sw"} {
					entries, _ := h.Walk(bg, "", p, host.WalkOptions{NoIgnore: true, Hidden: true})
					for _, e := range entries {
						if strings.Contains(e.Path, "outside-marker") || !strings.HasPrefix(e.Path, ws+"/") {
							t.Errorf("walk %s listed %s", p, e.Path)
						}
					}
				}
				name := []string{"sw/w", "deep/sw/w"}[i%2]
				// It lands inside or fails; what lies outside is checked below.
				_, _ = h.WriteFile(bg, "", name, []byte("written"))
				h.CreateDir(bg, "", "sw/d"+string(rune('a'+g)), false, true)
			}
		})
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && swaps() < 20000 {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	n := stopSwapping()
	t.Logf("%d swaps, %d reads (%d refused)", n, reads.Load(), refused.Load())
	if n < 1000 {
		t.Errorf("only %d swaps: the test did not race", n)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != "f" && e.Name() != "outside-marker" {
			t.Errorf("something landed outside: %s", e.Name())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "f")); !bytes.Equal(b, []byte("OUTSIDE")) {
		t.Errorf("outside file changed: %q", b)
	}
}

// startSwapping exchanges each pair of names under dir (renameat2
// RENAME_EXCHANGE, atomically) over and over on a goroutine of its own,
// until the returned stop is called; stop returns the number of rounds
// and may be called again. swaps reads the count meanwhile.
func startSwapping(t *testing.T, dir string, pairs ...[2]string) (swaps func() int64, stop func() int64) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			default:
			}
			for i, p := range pairs {
				err := unix.Renameat2(fd, p[0], fd, p[1], unix.RENAME_EXCHANGE)
				if err != nil && i == 0 {
					t.Error(err)
					return
				}
			}
			n.Add(1)
		}
	}()
	var once sync.Once
	return n.Load, func() int64 {
		once.Do(func() {
			close(done)
			<-finished
			unix.Close(fd)
		})
		return n.Load()
	}
}

// TestRaceAddRoot adds a root while a swapper exchanges it with a symbolic
// link to outside (RENAME_EXCHANGE), 10,000 times (2,000 under -short).
// Each time the root is listed as the directory its descriptor is: a root
// listed inside must read and write inside, and one listed as the outside
// directory (the name was the link at that moment, and the link was
// followed) is what the user asked for. 0 outside reads and writes through
// a root listed inside. The root is removed again each round.
func TestRaceAddRoot(t *testing.T) {
	dir := t.TempDir()
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(ws, "sw"), 0o755)
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(ws, "sw", "f"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(out, "f"), []byte("OUTSIDE"), 0o644)
	os.Symlink(out, filepath.Join(ws, "swl"))
	h := newHost(t, host.Config{WorkspaceRoot: ws})
	swaps, stopSwapping := startSwapping(t, ws, [2]string{"sw", "swl"})
	defer stopSwapping()
	for swaps() < 100 {
		time.Sleep(time.Millisecond)
	}

	n := 10000
	if testing.Short() {
		n = 2000
	}
	var inside, outsideRoots, refused, badReads, writes int
	for i := range n {
		canon, err := h.AddRoot(filepath.Join(ws, "sw"))
		if err != nil {
			refused++ // e.g. the walk met the name mid-exchange
			continue
		}
		switch canon {
		case out:
			outsideRoots++
		case filepath.Join(ws, "sw"):
			inside++
			r, err := h.ReadFile(bg, "", canon+"/f")
			if err != nil {
				t.Fatalf("read through the new root %s: %v", canon, err)
			}
			if r.Contents != "inside" {
				badReads++
				t.Errorf("root %s (round %d) read %q", canon, i, r.Contents)
			}
			if i%20 == 0 {
				if _, err := h.WriteFile(bg, "", canon+"/w", []byte("x")); err != nil {
					t.Fatalf("write through the new root: %v", err)
				}
				writes++
			}
		default:
			t.Fatalf("AddRoot returned %q", canon)
		}
		if err := h.RemoveRoot(canon); err != nil {
			t.Fatal(err)
		}
	}
	s := stopSwapping()
	t.Logf("%d rounds, %d swaps: %d roots inside, %d outside, %d refused; %d writes", n, s, inside, outsideRoots, refused, writes)
	if inside < n/100 {
		t.Errorf("only %d roots were added inside: the test did not race", inside)
	}
	if got := h.Roots(); len(got) != 1 {
		t.Errorf("roots left: %v", got)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.Name() != "f" {
			t.Errorf("a write through a root listed inside landed outside: %s", e.Name())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "f")); string(b) != "OUTSIDE" {
		t.Errorf("outside file changed: %q", b)
	}
}
