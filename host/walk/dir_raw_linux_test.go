//go:build linux

package walk

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenSubdirRawAndNot: openSubdir, as a raw system call (quick) and
// as an ordinary one, opens a subdirectory close-on-exec, refuses a
// symbolic link to a directory outside (ENOTDIR, as O_NOFOLLOW|O_DIRECTORY
// reports it) and a file (ENOTDIR),
// refuses a name with a NUL byte (EINVAL) and one too long for the file
// system (ENAMETOOLONG, also past rawOpenat's stack buffer), and leaves
// no descriptor open when it fails.
func TestOpenSubdirRawAndNot(t *testing.T) {
	base := t.TempDir()
	top, out := filepath.Join(base, "top"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(top, "sub"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(top, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	parent, err := openRoot(top)
	if err != nil {
		t.Fatal(err)
	}
	defer parent.close()
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	for _, quick := range []bool{true, false} {
		before := count()
		d, err := openSubdir(parent, "sub", filepath.Join(top, "sub"), quick)
		if err != nil {
			t.Fatalf("quick=%v: %v", quick, err)
		}
		if fl, err := unix.FcntlInt(uintptr(d), unix.F_GETFD, 0); err != nil || fl&unix.FD_CLOEXEC == 0 {
			t.Errorf("quick=%v: descriptor flags %#x, %v: not close-on-exec", quick, fl, err)
		}
		d.closeQuick(quick)
		for name, want := range map[string]error{
			"link":                   unix.ENOTDIR, // O_NOFOLLOW with O_DIRECTORY: the link is no directory
			"file":                   unix.ENOTDIR,
			"missing":                unix.ENOENT,
			"s\x00ub":                unix.EINVAL,
			strings.Repeat("n", 300): unix.ENAMETOOLONG,
			strings.Repeat("n", 255): unix.ENOENT,
		} {
			d, err := openSubdir(parent, name, filepath.Join(top, name), quick)
			if !errors.Is(err, want) || d != invalidHandle {
				t.Errorf("quick=%v: openSubdir(%.20q) = %d, %v; want %v", quick, name, d, err, want)
				if err == nil {
					d.close()
				}
			}
		}
		if after := count(); after != before {
			t.Errorf("quick=%v: %d descriptors open after, %d before", quick, after, before)
		}
	}
}
