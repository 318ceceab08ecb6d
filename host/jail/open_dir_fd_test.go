//go:build linux || darwin

package jail_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
	"github.com/agenthost/agenthost/internal/escapetable"
)

// OpenDirFd is OpenDir without the *os.File: for every case of the shared
// escape table (each as written and with a trailing slash), under both
// walks, it fails exactly where OpenDir fails, with the same error class,
// and otherwise returns the same canonical path and a descriptor on the
// same directory (device and inode), which it leaves open for the caller
// and nothing else. The descriptor is close-on-exec, so a command another
// goroutine starts meanwhile does not inherit it (checkBareDirFd).
func TestOpenDirFdIsOpenDir(t *testing.T) {
	for _, walkOnly := range []bool{false, true} {
		restore := jail.SetNoOpenat2(walkOnly)
		for _, c := range escapetable.Cases {
			t.Run(fmt.Sprintf("%s/walk-only=%v", c.Name, walkOnly), func(t *testing.T) {
				dir := escapetable.Build(t, c.FS)
				j, err := jail.New(filepath.Join(dir, "ws"), []string{filepath.Join(dir, "ws2")}, jail.Jailed, filepath.Join(dir, "home"))
				if err != nil {
					t.Fatal(err)
				}
				defer j.Close()
				cwd := strings.ReplaceAll(c.Cwd, "$T", dir)
				for _, p := range []string{c.Path, c.Path + "/"} {
					p = strings.ReplaceAll(p, "$T", dir)
					before := openFds(t)
					fd, canon, err := j.OpenDirFd(cwd, p)
					f, wantCanon, wantErr := j.OpenDir(cwd, p)
					if (err == nil) != (wantErr == nil) || errors.Is(err, jail.ErrEscape) != errors.Is(wantErr, jail.ErrEscape) {
						t.Fatalf("OpenDirFd(%q, %q) = %v, OpenDir: %v", cwd, p, err, wantErr)
					}
					if c.Escape && err == nil {
						t.Fatalf("OpenDirFd(%q, %q) opened %q: an escape", cwd, p, canon)
					}
					if err != nil {
						if fd != -1 {
							t.Errorf("OpenDirFd(%q) failed with fd %d, want -1", p, fd)
						}
						if n := openFds(t); n != before {
							t.Errorf("OpenDirFd(%q) failed and left %d descriptors open, %d before", p, n, before)
						}
						continue
					}
					if canon != wantCanon {
						t.Errorf("OpenDirFd(%q) canonical %q, OpenDir %q", p, canon, wantCanon)
					}
					var got, want unix.Stat_t
					if err := unix.Fstat(fd, &got); err != nil {
						t.Fatal(err)
					}
					if err := unix.Fstat(int(f.Fd()), &want); err != nil {
						t.Fatal(err)
					}
					if got.Dev != want.Dev || got.Ino != want.Ino || got.Mode&unix.S_IFMT != unix.S_IFDIR {
						t.Errorf("OpenDirFd(%q) opened another file than OpenDir", p)
					}
					checkBareDirFd(t, fd, p)
					f.Close()
					unix.Close(fd)
					if n := openFds(t); n != before {
						t.Errorf("OpenDirFd(%q): %d descriptors open after closing, %d before", p, n, before)
					}
				}
			})
		}
		restore()
	}
}

// openFds counts this process's open descriptors (0 without /proc).
func openFds(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(ents)
}

// BenchmarkOpenDirFd is OpenDirFd and a close against OpenDir and a
// close, on a directory four levels below the workspace root (the shape
// of check-ignore's parents): the bare descriptor saves os.NewFile's fcntl
// and the *os.File.
func BenchmarkOpenDirFd(b *testing.B) {
	ws := b.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "pkg014/lib/cmd/lib"), 0o755); err != nil {
		b.Fatal(err)
	}
	j, err := jail.New(ws, nil, jail.Jailed, "")
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	b.Run("OpenDirFd", func(b *testing.B) {
		for b.Loop() {
			fd, _, err := j.OpenDirFd("", "pkg014/lib/cmd/lib")
			if err != nil {
				b.Fatal(err)
			}
			unix.Close(fd)
		}
	})
	b.Run("OpenDir", func(b *testing.B) {
		for b.Loop() {
			f, _, err := j.OpenDir("", "pkg014/lib/cmd/lib")
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}
