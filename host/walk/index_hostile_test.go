package walk

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// v4Template is the 62 fixed bytes of the one entry of a version 4 index
// git writes in e's repository (the file "x", added), for indexes made
// from it.
func v4Template(t *testing.T, e *gitEnv) []byte {
	t.Helper()
	e.write("x", "x\n")
	e.git(e.repo, "add", "x")
	e.git(e.repo, "update-index", "--index-version", "4")
	data, err := os.ReadFile(filepath.Join(e.repo, ".git", "index"))
	must(t, err)
	if binary.BigEndian.Uint32(data[4:]) != 4 || binary.BigEndian.Uint32(data[8:]) != 1 {
		t.Fatal("git did not write a one-entry version 4 index")
	}
	return slices.Clone(data[indexHeaderLen : indexHeaderLen+indexEntryFixed])
}

// v4Index is a version 4 index of entries made from tmpl (as git wrote
// it), each with its strip count and the rest of its name, its flags'
// length set from the expanded name (0xFFF from 4095 on), and the
// checksum put right.
func v4Index(tmpl []byte, strips []int, rests []string) []byte {
	b := binary.BigEndian.AppendUint32([]byte("DIRC"), 4)
	b = binary.BigEndian.AppendUint32(b, uint32(len(strips)))
	prev := 0
	for k := range strips {
		n := prev - strips[k] + len(rests[k])
		e := slices.Clone(tmpl)
		binary.BigEndian.PutUint16(e[60:], uint16(min(n, indexNameMask)))
		b = append(b, e...)
		b = appendVarint(b, uint64(strips[k]))
		b = append(append(b, rests[k]...), 0)
		prev = n
	}
	return withChecksum(b)
}

// appendVarint appends git's offset varint of v (varint.c's encode_varint).
func appendVarint(b []byte, v uint64) []byte {
	var buf [16]byte
	pos := len(buf) - 1
	buf[pos] = byte(v & 127)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		buf[pos] = 128 | byte(v&127)
	}
	return append(b, buf[pos:]...)
}

// withChecksum appends the SHA-1 of body, as git does.
func withChecksum(body []byte) []byte {
	sum := sha1.Sum(body)
	return append(body, sum[:]...)
}

// growing is the strips and rests of n names each one byte longer than
// the one before: "xa", "xxa", "xxxa", … (in order), each dropping the
// "a" of the one before and adding "xa" (strip 1) — or, with extend,
// "x", "xx", "xxx", …, each adding an "x" (strip 0).
func growing(n int, extend bool) ([]int, []string) {
	strips, rests := make([]int, n), make([]string, n)
	for k := range n {
		switch {
		case extend:
			rests[k] = "x"
		case k == 0:
			rests[k] = "xa"
		default:
			strips[k], rests[k] = 1, "xa"
		}
	}
	return strips, rests
}

// writeIndex replaces e's index with data, old enough not to be racy.
func writeIndex(t *testing.T, e *gitEnv, data []byte) string {
	t.Helper()
	p := filepath.Join(e.repo, ".git", "index")
	must(t, os.WriteFile(p, data, 0o644))
	old := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(p, old, old))
	return p
}

// boundedIndex runs f and fails t unless it returns within d having
// allocated less than maxAlloc bytes.
func boundedIndex(t *testing.T, what string, d time.Duration, maxAlloc uint64, f func()) {
	t.Helper()
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	f()
	took := time.Since(start)
	runtime.ReadMemStats(&ms1)
	alloc := ms1.TotalAlloc - ms0.TotalAlloc
	t.Logf("%s: %v, %d KiB allocated", what, took, alloc>>10)
	if raceEnabled {
		d *= 4
	}
	if took > d || alloc > maxAlloc {
		t.Fatalf("%s took %v and allocated %d KiB, want < %v and < %d KiB", what, took, alloc>>10, d, maxAlloc>>10)
	}
}

// The index: a version 4 index of about 1 MiB whose names grow by
// a byte each, every name stripping the last byte of the one before
// (so no name shares another's bytes): 16,000 names holding 130 MB. git
// reads it (quadratic: a 2 MB one took git 9.8 s and 519 MB); it is
// refused here as unsupported, naming the file, in well under a second
// and 16 MiB. On a small one git reads (with a few MB of names) the
// answers are git's.
func TestIndexV4GrowingNamesRefused(t *testing.T) {
	e := newGitEnv(t, false)
	tmpl := v4Template(t, e)
	e.write(".gitignore", "*.log\n")
	e.write("a.log", "")

	// Small: git reads it, and so does the decoder, with git's names.
	strips, rests := growing(200, false)
	small := v4Index(tmpl, strips, rests)
	writeIndex(t, e, small)
	want := nulList(e.git(e.repo, "ls-files", "-z"))
	got, err := decodeIndexNames(small)
	must(t, err)
	if len(want) != 200 || !slices.Equal(got, want) {
		t.Fatalf("decoder %d names, git %d (%.40q…)", len(got), len(want), want)
	}

	strips, rests = growing(16_000, false)
	data := v4Index(tmpl, strips, rests)
	if len(data) < 1<<20 {
		t.Fatalf("index of %d bytes: smaller than the test means", len(data))
	}
	path := writeIndex(t, e, data)
	c := e.cache()
	c.NoWatch = true
	defer c.Close()
	var ignored bool
	boundedIndex(t, "IsIgnored with the index", time.Second, 16<<20, func() {
		ignored, err = c.IsIgnored(context.Background(), e.repo, filepath.Join(e.repo, "a.log"))
	})
	if !errors.Is(err, ErrIndexUnsupported) || !strings.Contains(err.Error(), path) {
		t.Fatalf("IsIgnored: %v, want ErrIndexUnsupported naming %s", err, path)
	}
	// The reason says what the names would take (each its own: "xa",
	// "xxa", …, 2+3+…+16001 bytes).
	if total := 16_001*16_002/2 - 1; !strings.Contains(err.Error(), fmt.Sprintf("expanding to %d bytes", total)) {
		t.Errorf("IsIgnored: %v, want the %d bytes the names take", err, total)
	}
	if testing.Verbose() {
		t.Log(err)
	}
	if !ignored {
		t.Error("a.log not ignored (the answer without the index)")
	}
}

// Names that each extend the one before ("x", "xx", …) share its bytes:
// a 2 MiB index of them (32,000 names, 520 MB once each is its own
// string) is read whole, in well under a second and 16 MiB, with the
// names git lists (checked on a smaller one) and their answers.
func TestIndexV4ExtendingNamesShared(t *testing.T) {
	e := newGitEnv(t, false)
	tmpl := v4Template(t, e)
	strips, rests := growing(300, true)
	small := v4Index(tmpl, strips, rests)
	writeIndex(t, e, small)
	want := nulList(e.git(e.repo, "ls-files", "-z"))
	got, err := decodeIndexNames(small)
	must(t, err)
	if len(want) != 300 || !slices.Equal(got, want) {
		t.Fatalf("decoder %d names, git %d", len(got), len(want))
	}

	strips, rests = growing(32_000, true)
	data := v4Index(tmpl, strips, rests)
	if len(data) < 2<<20-1<<16 {
		t.Fatalf("index of %d bytes: smaller than the test means", len(data))
	}
	writeIndex(t, e, data)
	e.write(".gitignore", "x*\n")
	c := e.cache()
	c.NoWatch = true
	defer c.Close()
	long := strings.Repeat("x", 20_000)
	for _, q := range []struct {
		rel  string
		want Match
	}{{"xxx", Match{Tracked: true}}, {long, Match{Tracked: true}}, {long + "y", Match{Ignored: true}}} {
		var ms []Match
		boundedIndex(t, "Check "+q.rel[:min(len(q.rel), 8)], time.Second, 16<<20, func() {
			ms, err = c.Check(context.Background(), e.repo, []string{filepath.Join(e.repo, q.rel)}, CheckOptions{})
		})
		must(t, err)
		if ms[0].Tracked != q.want.Tracked || ms[0].Ignored != q.want.Ignored {
			t.Errorf("Check(%.12s… %d bytes) = %+v, want %+v", q.rel, len(q.rel), ms[0], q.want)
		}
	}
}

// flagLenAt sets the 12-bit name length in the flags of entry k of a
// version 2 or 4 index git wrote (no extended flags) to n, and puts the
// checksum right: only the content is wrong.
func flagLenAt(t *testing.T, data []byte, k, n int) []byte {
	t.Helper()
	b := slices.Clone(data[:len(data)-indexChecksumLen])
	v := binary.BigEndian.Uint32(b[4:])
	pos := indexHeaderLen
	for i := 0; ; i++ {
		if i == k {
			fl := binary.BigEndian.Uint16(b[pos+60:])
			binary.BigEndian.PutUint16(b[pos+60:], fl&^indexNameMask|uint16(n))
			return withChecksum(b)
		}
		// The next entry: after the name's NUL (version 4, past the
		// strip varint), or padded to 8 (version 2).
		off := pos + indexEntryFixed
		if v == 4 {
			for b[off]&0x80 != 0 {
				off++
			}
			off++
			pos = off + bytes.IndexByte(b[off:], 0) + 1
		} else {
			pos += (indexEntryFixed + bytes.IndexByte(b[off:], 0) + 8) &^ 7
		}
	}
}

// A name whose length differs from the one in its flags is refused with
// ErrIndexCorrupt naming the file (the version 4 decoder accepted it). At
// version 4 git refuses such an index ("malformed name field", exit 128)
// or crashes on it (a segmentation fault, git 2.39). At version 2 git
// takes the flags' length for the name's and reads on, its names then
// depending on which of the two lengths each of its commands uses (entry
// 0 given length 0 lists as "a" and garbage): no answer to copy, and it
// was refused before too. Where the flags say 0xFFF ("4095 or more") of
// a shorter name, git reads the name to its NUL, and so does the decoder
// (at version 2 it refused).
func TestIndexNameLengthAsGit(t *testing.T) {
	for _, v := range []string{"2", "4"} {
		for _, c := range []struct {
			k, n    int
			corrupt bool
		}{{1, 3, true}, {1, 5, true}, {0, 0, true}, {3, 1, true}, {1, indexNameMask, false}, {3, indexNameMask, false}} {
			t.Run(fmt.Sprintf("v%s/entry%d/len%d", v, c.k, c.n), func(t *testing.T) {
				e := newGitEnv(t, false)
				e.make("a.go", "b.go", "cc/d.go", "cc/e.txt", "z")
				e.git(e.repo, "add", ".")
				e.git(e.repo, "update-index", "--index-version", v)
				good, err := os.ReadFile(filepath.Join(e.repo, ".git", "index"))
				must(t, err)
				path := writeIndex(t, e, flagLenAt(t, good, c.k, c.n))
				out, gitErr := e.g.Command(e.repo, "git", "ls-files", "-z").Output()
				if v == "4" && c.corrupt != (gitErr != nil) || !c.corrupt && gitErr != nil {
					t.Fatalf("git ls-files: %v (%q): not what the case says", gitErr, out)
				}
				cache := e.cache()
				defer cache.Close()
				_, err = cache.IsIgnored(context.Background(), e.repo, filepath.Join(e.repo, "a.go"))
				if c.corrupt {
					if !errors.Is(err, ErrIndexCorrupt) || !strings.Contains(err.Error(), path) {
						t.Fatalf("IsIgnored: %v, want ErrIndexCorrupt naming %s", err, path)
					}
					return
				}
				must(t, err)
				got, err := decodeIndexNames(flagLenAt(t, good, c.k, c.n))
				must(t, err)
				if want := nulList(out); !slices.Equal(got, want) {
					t.Fatalf("decoder %q, git %q", got, want)
				}
			})
		}
	}
}

// A decoding the context stops returns its error at once and is not
// kept: the next question with a live context reads the index whole.
// Decodings cancelled at random moments, concurrently, return either the
// whole index or the context's error.
func TestIndexDecodeCancel(t *testing.T) {
	e := newGitEnv(t, false)
	tmpl := v4Template(t, e)
	var strips []int
	var rests []string
	for k := range 200_000 { // d/0000000, d/0000001, …: each keeps "d/"
		strips = append(strips, 7)
		rests = append(rests, fmt.Sprintf("%07d", k))
		if k == 0 {
			strips[0], rests[0] = 0, "d/0000000"
		}
	}
	data := v4Index(tmpl, strips, rests)
	// What a decoding not cancelled must give is what git lists (parseIndex
	// sorts; the names are in order here, so its file order is git's too).
	writeIndex(t, e, data)
	out, err := e.g.Command(e.repo, "git", "ls-files", "-z").Output()
	must(t, err)
	want := nulList(out)
	if len(want) != 200_000 || want[1] != "d/0000001" {
		t.Fatalf("git lists %d names (%.3q…)", len(want), want)
	}
	if ix := parseIndex(context.Background(), data, "idx"); ix.err != nil || !slices.Equal(ix.names, want) {
		t.Fatalf("parseIndex: %v, %d names, not git's", ix.err, len(ix.names))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	boundedIndex(t, "a cancelled decoding", 50*time.Millisecond, 1<<20, func() {
		if ix := parseIndex(ctx, data, "idx"); !errors.Is(ix.err, context.Canceled) {
			t.Fatalf("parseIndex with a cancelled context: %v", ix.err)
		}
	})

	c := e.cache()
	defer c.Close()
	c.mu.Lock()
	r := c.repoFor(context.Background(), e.repo, c.now())
	ix := c.indexFor(ctx, r, c.now())
	again := c.indexFor(context.Background(), r, c.now())
	c.mu.Unlock()
	if !errors.Is(ix.err, context.Canceled) || again.err != nil || len(again.names) != len(want) {
		t.Fatalf("cancelled: %v; then: %v, %d names", ix.err, again.err, len(again.names))
	}

	var wg sync.WaitGroup
	// The last one has no deadline: at least one decoding ends, among the
	// cancelled ones, and its names are compared.
	for i := range 9 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := time.Duration(i) * time.Millisecond
			if i == 8 {
				d = time.Hour
			}
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			start := time.Now()
			ix := parseIndex(ctx, data, "idx")
			switch {
			case ix.err == nil:
				if !slices.Equal(ix.names, want) {
					t.Error("a decoding not cancelled gave other names")
				}
			case !errors.Is(ix.err, context.DeadlineExceeded):
				t.Errorf("decoding: %v", ix.err)
			case time.Since(start) > d+time.Second:
				t.Errorf("cancelled after %v", time.Since(start))
			}
		}()
	}
	wg.Wait()
}
