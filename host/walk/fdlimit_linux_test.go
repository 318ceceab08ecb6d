//go:build linux

package walk

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLowDescriptorLimit: under a real RLIMIT_NOFILE that leaves the walk
// a handful of descriptors (fewer than its goroutines' chains of open
// directories need), the walk backs off, puts directories off to the end
// and lists exactly what it lists without the limit.
func TestLowDescriptorLimit(t *testing.T) {
	e := newGitEnv(t, false)
	for i := 0; i < 6; i++ {
		for j := 0; j < 4; j++ {
			e.make(fmt.Sprintf("a%d/b%d/c/d/e/f", i, j))
		}
	}
	want, _, err := walkRel(t, e.cache(), e.repo, Options{})
	must(t, err)

	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	var old unix.Rlimit
	must(t, unix.Getrlimit(unix.RLIMIT_NOFILE, &old))
	lim := old
	lim.Cur = uint64(len(fds) + 6)
	must(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &lim))
	got, _, err := walkRel(t, e.cache(), e.repo, Options{})
	must(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &old))
	if err != nil {
		t.Fatalf("walk under a limit of %d descriptors: %v", lim.Cur, err)
	}
	if d := diff(want, got); d != "" {
		t.Fatalf("under a limit of %d descriptors:\n%s", lim.Cur, d)
	}
}
