package walk

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An index over git's 100 MiB limit for pattern files, as git writes it
// for a big monorepo (420,000 entries of 200-byte paths: 107 MB), is read
// as git reads it: a tracked file the rules ignore is not ignored, an
// untracked one is. The index was once read through the ignore files'
// limit and taken for absent, without an error: the tracked file came out
// ignored.
func TestIndexOver100MiBRead(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 107 MB index")
	}
	e := newGitEnv(t, false)
	e.write(".gitignore", "*.txt\n")
	e.write("d000/untracked.txt", "")
	blob := strings.TrimSpace(string(e.gitIn(e.repo, []byte("x\n"), "hash-object", "-w", "--stdin")))
	var in bytes.Buffer
	pad := strings.Repeat("p", 170)
	const n = 420_000
	for i := range n {
		fmt.Fprintf(&in, "100644 %s\td%03d/%s%07d.txt\n", blob, i/1000, pad, i)
	}
	e.gitIn(e.repo, in.Bytes(), "update-index", "--index-info")
	in = bytes.Buffer{}
	path := filepath.Join(e.repo, ".git", "index")
	st, err := os.Stat(path)
	must(t, err)
	if st.Size() <= maxIgnoreFileSize {
		t.Fatalf("git wrote a %d-byte index, want one over %d", st.Size(), maxIgnoreFileSize)
	}
	tracked := fmt.Sprintf("d%03d/%s%07d.txt", 7, pad, 7123)
	if len(bytes.Split(bytes.TrimSpace(e.git(e.repo, "ls-files", "--", "d007/")), []byte("\n"))) != 1000 {
		t.Fatal("git ls-files does not list the index's entries")
	}
	for _, c := range []struct {
		rel  string
		want bool
	}{{tracked, false}, {"d000/untracked.txt", true}} {
		// git is the oracle: check-ignore prints the path when ignored.
		if got := len(e.git(e.repo, "check-ignore", "--", c.rel)) > 0; got != c.want {
			t.Fatalf("git check-ignore %s: %v, the test expects %v", c.rel, got, c.want)
		}
	}

	cache := e.cache()
	defer cache.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The index read whole, once, with its names: about its size.
	boundedIndex(t, "IsIgnored over a 107 MB index", 10*time.Second, 2*uint64(st.Size()), func() {
		got, err := cache.IsIgnored(ctx, e.repo, filepath.Join(e.repo, tracked))
		if err != nil || got {
			t.Fatalf("IsIgnored(tracked file) = %v, %v; want false as git (tracked)", got, err)
		}
	})
	got, err := cache.IsIgnored(ctx, e.repo, filepath.Join(e.repo, "d000/untracked.txt"))
	if err != nil || !got {
		t.Fatalf("IsIgnored(untracked file) = %v, %v; want true as git", got, err)
	}
}

// An index over maxIndexFileSize is not read, and not taken for absent
// either: IsIgnored and Walk report ErrIndexTooLarge (which is also
// ErrIndexUnsupported) naming the file, at once and without reading it.
func TestIndexTooLargeRefused(t *testing.T) {
	e := newGitEnv(t, false)
	e.write(".gitignore", "*.log\n")
	e.write("a.log", "")
	e.git(e.repo, "add", "-f", "a.log")
	path := filepath.Join(e.repo, ".git", "index")
	// A sparse file: the header of git's index, then holes up to past the
	// limit (no disk taken).
	good, err := os.ReadFile(path)
	must(t, err)
	if binary.BigEndian.Uint32(good[8:]) != 1 {
		t.Fatal("git did not write a one-entry index")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	must(t, err)
	_, err = f.Write(good[:indexHeaderLen])
	must(t, err)
	must(t, f.Truncate(maxIndexFileSize+1))
	must(t, f.Close())
	old := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(path, old, old))

	cache := e.cache()
	defer cache.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	boundedIndex(t, "IsIgnored with a 1 GiB index", time.Second, 1<<20, func() {
		_, err := cache.IsIgnored(ctx, e.repo, filepath.Join(e.repo, "a.log"))
		if !errors.Is(err, ErrIndexTooLarge) || !errors.Is(err, ErrIndexUnsupported) || !strings.Contains(err.Error(), path) {
			t.Fatalf("IsIgnored: %v, want ErrIndexTooLarge naming %s", err, path)
		}
	})
	err = cache.Walk(ctx, e.repo, Options{}, func(Entry) error { return nil })
	var pe *PartialError
	if !errors.As(err, &pe) || !errors.Is(err, ErrIndexTooLarge) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Walk: %v, want a PartialError with ErrIndexTooLarge naming %s", err, path)
	}
}
