package walk

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// This file reads a repository's index ($GIT_DIR/index), so that tracked
// files are listed and never reported as ignored, as git does: ignore
// rules apply only to untracked files. The file is read like every other
// file the Cache depends on (through the Jail when one is set, re-read
// when it changes).
//
// The decoder is this package's own, for versions 2, 3 and 4 and the
// extended flags: it keeps only the names, and reads a 100,000-entry index
// in a few milliseconds, where go-git's plumbing/format/index decoder
// (reflection per field, a collision-detecting SHA-1) takes about 150 ms,
// more than the whole walk of a tree that size. go-git's decoder is the
// reference it is tested against (index_test.go), on indexes git writes
// at every version; see docs/adr/0010-walk-index-and-matcher.md.

// ErrIndexUnsupported is what Walk (inside a *PartialError) and IsIgnored
// report, wrapped with the index's path and the reason, for an index this
// package cannot use: a split index ("link" extension, core.splitIndex), a
// sparse index ("sdir", sparse directory entries), another extension git
// marks as required, an index file over maxIndexFileSize
// (ErrIndexTooLarge), one that is there but cannot be opened
// (ErrIndexUnreadable), an index version other than 2, 3 and 4, or a
// version 4 index whose prefix-compressed names expand to more than
// maxIndexExpansion times the file's size (git reads it, at a cost
// quadratic in the file: a 2 MB index can hold 500 MB of names). The
// answer given with it is the one without the index (as with NoIndex), so
// tracked files that the rules ignore are missing from it.
var ErrIndexUnsupported = errors.New("git index not supported")

// ErrIndexTooLarge is reported like ErrIndexUnsupported, which it wraps
// (errors.Is matches both), for an index file over maxIndexFileSize
// (1 GiB): it is not read, and the answer is the one without the index.
// An index up to that size is read whole, as git reads it (an index of a
// few million entries takes a few hundred MB, in git as here).
var ErrIndexTooLarge = fmt.Errorf("%w: index file too large", ErrIndexUnsupported)

// maxIndexFileSize is the largest index file read. The index is not an
// ignore file, whose limit (maxIgnoreFileSize, git's 100 MiB) it once
// shared: the index of a monorepo of a million files or more passes that.
const maxIndexFileSize = 1 << 30

// ErrIndexCorrupt is reported like ErrIndexUnsupported for an index that
// git refuses to read, or that cannot be decoded: a truncated file, an
// entry count or a name length past its end, a version 4 name that strips
// more of the name before it than it has (git: "malformed name field in
// the index"), or a name whose length differs from the one its flags give
// (below 4095, where the flags hold it; git then reads the entries after
// it at the wrong place and refuses them). A wrong checksum alone is not
// corruption here, as it is not for git outside fsck.
var ErrIndexCorrupt = errors.New("git index corrupt")

// maxIndexExpansion bounds what a version 4 index's names may take once
// expanded, as a multiple of the file's size. Each entry takes at least
// 64 bytes in the file, so only paths averaging over 500 bytes (with a
// few bytes of each stored) come near it; a hostile index whose every
// name is one byte longer than the one before it is refused at once.
const maxIndexExpansion = 8

// indexCtxEvery is how many entries the decoder reads between two looks
// at the context.
const indexCtxEvery = 1 << 12

// gitIndex is what the walk needs of an index: the tracked paths.
type gitIndex struct {
	// names are the paths of the entries (relative to the work tree, '/'
	// separated), sorted byte-wise and without duplicates (the stages of
	// a conflict are one path): what git ls-files -c lists. Skip-worktree
	// and intent-to-add entries are tracked like any other, as for git
	// check-ignore.
	names []string
	err   error // why the index cannot be used; names is then empty
	// absentAt, for an index whose file was found absent, is the check of
	// the file (cachedFile.checked) it was decided at: an absent file
	// keeps its gen when the reason changes (a loop of links made a
	// dangling one), so the reason is asked again at each new check.
	absentAt int64

	// For covers on a warm cache: after coverSetAfter calls, the set of
	// every name and every directory holding one (no trailing '/'),
	// built once, so that a lookup is one hash instead of two binary
	// searches. A one-shot caller never pays for building it.
	coverCalls atomic.Int64
	coverOnce  sync.Once
	coverSet   atomic.Pointer[map[string]struct{}]
}

// coverSetAfter is how many covers calls an index answers by binary
// search before it builds its hash set (a few milliseconds per 100,000
// entries).
const coverSetAfter = 1024

// Index format constants (Documentation/gitformat-index.txt).
const (
	indexHeaderLen   = 12
	indexEntryFixed  = 62 // ctime, mtime, dev, ino, mode, uid, gid, size, oid, flags
	indexFlagExt     = 0x4000
	indexNameMask    = 0x0fff
	indexModeDir     = 0o040000 // a sparse directory entry
	indexChecksumLen = sha1.Size
)

// parseIndex decodes the contents of an index file read from path (for
// messages). Empty contents (no index yet, as in a new repository) are an
// empty index. When ctx is done before the decoding ends, the index's err
// wraps ctx.Err() (and the caller must not keep it).
func parseIndex(ctx context.Context, data []byte, path string) *gitIndex {
	if len(data) == 0 {
		return &gitIndex{}
	}
	names, sorted, err := decodeNames(ctx, data)
	if err != nil {
		return &gitIndex{err: fmt.Errorf("%s: %w", path, err)}
	}
	ix := &gitIndex{names: names}
	if !sorted { // the stages of a conflict; or a hand-made index
		slices.Sort(ix.names)
		ix.names = slices.Compact(ix.names)
	}
	return ix
}

// decodeIndexNames returns the entry names of an index, in file order.
// Errors wrap ErrIndexUnsupported or ErrIndexCorrupt. Below version 4
// the names are not copied: they share data's bytes (100,000 allocations
// fewer for 100,000 entries), so data must never be modified afterwards.
// The cache's data never is (each read of a file is a new buffer, kept as
// the file's contents and only compared).
func decodeIndexNames(data []byte) ([]string, error) {
	names, _, err := decodeNames(context.Background(), data)
	return names, err
}

// indexEntry is what decodeNames reads of one entry: where its name (at
// version 4, the part of it stored) starts and ends in the body, at
// version 4 how many bytes of the name before it to drop, and its mode
// and 12-bit name length (flags & indexNameMask).
type indexEntry struct {
	name, end int
	strip     uint64
	mode      uint32
	flagLen   int
}

// readEntry reads the entry at pos of body (an index of version v) and
// returns it with the position of the next one.
func readEntry(body []byte, pos int, v uint32) (indexEntry, int, error) {
	var e indexEntry
	if pos+indexEntryFixed > len(body) {
		return e, 0, corruptIndex("truncated entry")
	}
	e.mode = binary.BigEndian.Uint32(body[pos+24:])
	flags := binary.BigEndian.Uint16(body[pos+60:])
	e.flagLen = int(flags & indexNameMask)
	off := pos + indexEntryFixed
	if flags&indexFlagExt != 0 {
		if v < 3 {
			return e, 0, corruptIndex("extended flags in a version 2 index")
		}
		off += 2
	}
	if off > len(body) {
		return e, 0, corruptIndex("truncated entry")
	}
	if v == 4 {
		// The length of the previous name's tail to drop, as a git
		// "offset" varint, then the rest of the name, NUL-terminated.
		strip, n := indexVarint(body[off:])
		if n == 0 {
			return e, 0, corruptIndex("bad name prefix")
		}
		e.strip = strip
		off += n
	}
	// The name is the flags' length long, or, where that saturates at
	// 4095, up to its NUL (read-cache.c's create_from_disk: strlen from
	// the name's start, whatever its length).
	e.name = off
	n := bytes.IndexByte(body[off:], 0)
	if n < 0 {
		return e, 0, corruptIndex("unterminated name")
	}
	e.end = off + n
	next := e.end + 1
	if v < 4 {
		if e.flagLen != indexNameMask && e.flagLen != n {
			return e, 0, corruptIndex(fmt.Sprintf("bad name length: %d in the flags, %d in the entry", e.flagLen, n))
		}
		// Entries are padded with 1 to 8 NULs to a multiple of 8.
		next = pos + (off-pos+n+8)&^7
		if next > len(body) {
			return e, 0, corruptIndex("truncated entry")
		}
	}
	return e, next, nil
}

// corruptIndex is an ErrIndexCorrupt saying what.
func corruptIndex(what string) error { return fmt.Errorf("%w: %s", ErrIndexCorrupt, what) }

// decodeNames is decodeIndexNames, and reports whether the names are in
// strictly increasing order (each compared with the one before as it is
// decoded, while both are in the cache, not in a second pass over them).
// It looks at ctx every indexCtxEvery entries.
//
// A version 4 index is read twice, both times in time linear in the
// file: once to check every name's length against its flags and to add
// up what the names take (refused past maxIndexExpansion times the file),
// then to lay them out in one buffer of that size, a name that only
// extends the one before it sharing its bytes.
func decodeNames(ctx context.Context, data []byte) (_ []string, sorted bool, _ error) {
	if len(data) < indexHeaderLen+indexChecksumLen || string(data[:4]) != "DIRC" {
		return nil, false, corruptIndex("no index signature")
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, false, fmt.Errorf("%w: version %d", ErrIndexUnsupported, version)
	}
	// The trailing checksum is not verified: git verifies it only in
	// fsck (read-cache.c's verify_index_checksum) and works with an index
	// whose checksum is wrong, and so does this decoder. It protects
	// nothing here (a hostile index comes with a right checksum), and on a
	// 60 MB index it cost 40 ms of every walk. Every length and offset is
	// still checked against the file.
	body := data[:len(data)-indexChecksumLen]
	count := binary.BigEndian.Uint32(data[8:])
	if uint64(count) > uint64(len(body))/indexEntryFixed {
		return nil, false, corruptIndex("entry count larger than the file")
	}
	look := func(i uint32) error {
		if i%indexCtxEvery == 0 {
			return ctx.Err()
		}
		return nil
	}
	var arena []byte // version 4: the names, laid out
	if version == 4 {
		pos, prevLen, size := indexHeaderLen, 0, uint64(0) // size: no overflow at any count
		for i := uint32(0); i < count; i++ {
			if err := look(i); err != nil {
				return nil, false, err
			}
			e, next, err := readEntry(body, pos, version)
			if err != nil {
				return nil, false, err
			}
			if e.strip > uint64(prevLen) {
				return nil, false, corruptIndex("bad name prefix (malformed name field)")
			}
			keep := prevLen - int(e.strip)
			n := keep + e.end - e.name
			if e.flagLen != indexNameMask && e.flagLen != n {
				return nil, false, corruptIndex(fmt.Sprintf("bad name length: %d in the flags, %d in the entry", e.flagLen, n))
			}
			if i > 0 && e.strip == 0 {
				size += uint64(e.end - e.name) // shares the name before it
			} else {
				size += uint64(n)
			}
			prevLen, pos = n, next
		}
		// Counted to the end (linear, nothing kept), so that the error
		// says what git would hold.
		if size > maxIndexExpansion*uint64(len(data)) || size > math.MaxInt {
			return nil, false, fmt.Errorf("%w: version 4 names expanding to %d bytes, more than %d times the file's %d (git reads them at a cost quadratic in the file)", ErrIndexUnsupported, size, maxIndexExpansion, len(data))
		}
		arena = make([]byte, 0, int(size))
	}
	names := make([]string, 0, count)
	pos := indexHeaderLen
	var prev string
	prevAt := 0 // version 4: where prev starts in arena
	sorted = true
	for i := uint32(0); i < count; i++ {
		if err := look(i); err != nil {
			return nil, false, err
		}
		e, next, err := readEntry(body, pos, version)
		if err != nil {
			return nil, false, err // not at version 4: checked above
		}
		var name string
		if version == 4 {
			at := len(arena)
			if i > 0 && e.strip == 0 {
				at = prevAt // prev ends where arena does
			} else {
				// Within arena's capacity (the first pass sized it):
				// no reallocation, so the names laid out stay put.
				arena = append(arena, prev[:len(prev)-int(e.strip)]...)
			}
			arena = append(arena, body[e.name:e.end]...)
			if len(arena) > at {
				name = unsafe.String(&arena[at], len(arena)-at)
			}
			prevAt = at
		} else if e.end > e.name {
			// Shares data's bytes (see decodeIndexNames).
			name = unsafe.String(&body[e.name], e.end-e.name)
		}
		pos = next
		if e.mode == indexModeDir || strings.HasSuffix(name, "/") {
			return nil, false, fmt.Errorf("%w: a sparse index (sparse directory entry %q)", ErrIndexUnsupported, name)
		}
		if sorted && i > 0 && prev >= name {
			sorted = false
		}
		names = append(names, name)
		prev = name
	}
	// Extensions: a 4-byte signature, a 4-byte size, the data. git may
	// skip one whose signature starts with an upper-case letter; any other
	// changes what the entries mean.
	for pos < len(body) {
		if pos+8 > len(body) {
			return nil, false, corruptIndex("truncated extension")
		}
		sig := string(body[pos : pos+4])
		size := binary.BigEndian.Uint32(body[pos+4:])
		if uint64(size) > uint64(len(body)-pos-8) {
			return nil, false, corruptIndex("extension larger than the file")
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			switch sig {
			case "link":
				return nil, false, fmt.Errorf("%w: a split index (extension link; git update-index --no-split-index undoes it)", ErrIndexUnsupported)
			case "sdir":
				return nil, false, fmt.Errorf("%w: a sparse index (extension sdir)", ErrIndexUnsupported)
			}
			return nil, false, fmt.Errorf("%w: required extension %q", ErrIndexUnsupported, sig)
		}
		pos += 8 + int(size)
	}
	return names, sorted, nil
}

// indexVarint decodes git's offset varint (varint.c): 7 bits a byte, most
// significant first, each continuation adding one. It returns the value
// and the bytes used (0: malformed).
func indexVarint(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		if i == 9 {
			return 0, 0
		}
		v += uint64(c & 0x7f)
		if c&0x80 == 0 {
			return v, i + 1
		}
		v = (v + 1) << 7
	}
	return 0, 0
}

// tracked reports whether rel (relative to the work tree, '/' separated)
// is an entry of the index.
func (ix *gitIndex) tracked(rel string) bool {
	if ix == nil {
		return false
	}
	_, ok := slices.BinarySearch(ix.names, rel)
	return ok
}

// holds reports whether some entry lies below the directory dir (relative
// to the work tree, ending in '/'; "" is the work tree itself).
func (ix *gitIndex) holds(dir string) bool {
	return ix != nil && below(ix.names, dir)
}

// below reports whether some name in sorted starts with dir.
func below(sorted []string, dir string) bool {
	i, _ := slices.BinarySearch(sorted, dir)
	return i < len(sorted) && strings.HasPrefix(sorted[i], dir)
}

// indexDir is the part of an index below one directory, for looking up
// that directory's entries by name: the walk asks about each ignored
// entry of a directory, and a search among the names below it (a few
// dozen, compared from where their common prefix ends) is a fraction of
// a search of the whole index.
type indexDir struct {
	names []string // the index's names below the directory, in order
	skip  int      // the length of the directory's prefix, common to all of names
}

// dir is the part of ix below the directory prefix (relative to the work
// tree, ending in '/'; "" is the work tree itself).
func (ix *gitIndex) dir(prefix string) indexDir {
	if ix == nil {
		return indexDir{}
	}
	names := ix.names
	if prefix == "" {
		return indexDir{names: names}
	}
	// The names starting with prefix are contiguous from its place: any
	// name at or after it that does not start with it sorts after all
	// those that do.
	lo := searchNames(names, prefix)
	rest := names[lo:]
	n, hi := 0, len(rest)
	for n < hi {
		m := int(uint(n+hi) >> 1)
		if strings.HasPrefix(rest[m], prefix) {
			n = m + 1
		} else {
			hi = m
		}
	}
	return indexDir{names: rest[:n], skip: len(prefix)}
}

// sub is the part of the index below the directory's subdirectory name:
// d.sub(name) is ix.dir(prefix+name+"/") for d = ix.dir(prefix), found
// among d's names (a walk that has its parent's part looks there, not in
// the whole index).
func (d indexDir) sub(name string) indexDir {
	lo := d.search(name, true)
	rest := d.names[lo:]
	// The names below name+"/" are contiguous from lo (as in dir).
	n, hi := 0, len(rest)
	for n < hi {
		m := int(uint(n+hi) >> 1)
		if k := rest[m][d.skip:]; len(k) > len(name) && k[len(name)] == '/' && k[:len(name)] == name {
			n = m + 1
		} else {
			hi = m
		}
	}
	return indexDir{names: rest[:n], skip: d.skip + len(name) + 1}
}

// tracked reports whether the directory's entry name is an entry of the
// index.
func (d indexDir) tracked(name string) bool {
	i := d.search(name, false)
	return i < len(d.names) && d.names[i][d.skip:] == name
}

// holds reports whether some entry of the index lies below the
// directory's subdirectory name.
func (d indexDir) holds(name string) bool {
	i := d.search(name, true)
	if i == len(d.names) {
		return false
	}
	n := d.names[i][d.skip:]
	return len(n) > len(name) && n[len(name)] == '/' && n[:len(name)] == name
}

// search is the place of name (of name+"/" with slash) among the names,
// compared past the common prefix, without building name+"/".
func (d indexDir) search(name string, slash bool) int {
	lo, hi := 0, len(d.names)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if lessKey(d.names[m][d.skip:], name, slash) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// lessKey reports whether n sorts before name (before name+"/" with
// slash), byte-wise.
func lessKey(n, name string, slash bool) bool {
	// Names below one directory mostly differ in their first byte: one
	// compare then decides, without a call to the runtime's.
	if len(n) > 0 && len(name) > 0 && n[0] != name[0] {
		return n[0] < name[0]
	}
	if !slash {
		return n < name
	}
	if len(n) >= len(name) && n[:len(name)] == name {
		return len(n) == len(name) || n[len(name)] < '/'
	}
	return n < name
}

// covers reports whether git check-ignore, reading the index, leaves rel
// alone as tracked: rel is an entry, or (as a pathspec matches the paths
// below a directory) some entry lies below it.
//
// It allocates nothing: one binary search for rel, and, when rel is not an
// entry, one more for rel+"/" among the names after it.
func (ix *gitIndex) covers(rel string) bool {
	rel = strings.TrimSuffix(rel, "/")
	if ix == nil || rel == "" {
		return false
	}
	if set := ix.coverSet.Load(); set != nil {
		_, ok := (*set)[rel]
		return ok
	}
	if ix.coverCalls.Add(1) > coverSetAfter {
		ix.coverOnce.Do(ix.buildCoverSet)
	}
	names := ix.names
	i := searchNames(names, rel)
	if i < len(names) && names[i] == rel {
		return true
	}
	// The first name not below rel+"/" in order, found without building
	// rel+"/" (and by hand, so that rel does not escape: a caller may
	// pass a string on its stack): a name n sorts before rel+"/" exactly
	// when n < rel, or n starts with rel and its next byte is below '/'
	// (or it is rel itself, excluded here).
	rest := names[i:]
	lo, hi := 0, len(rest)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		n := rest[m]
		var c int
		if len(n) > len(rel) && n[:len(rel)] == rel {
			c = cmpByte(n[len(rel)], '/')
		} else if n < rel {
			c = -1
		} else if n > rel {
			c = 1
		}
		if c < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	j := lo
	return j < len(rest) && len(rest[j]) > len(rel) && rest[j][len(rel)] == '/' && rest[j][:len(rel)] == rel
}

// searchNames is slices.BinarySearch's index for rel in sorted, written
// out so that rel does not escape.
func searchNames(sorted []string, rel string) int {
	lo, hi := 0, len(sorted)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sorted[m] < rel {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// cmpByte is cmp.Compare for bytes, 0 for equal.
func cmpByte(a, b byte) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// buildCoverSet builds the set covers looks up once it is warm: each name,
// and each of its directories, as substrings of the names (no copies).
func (ix *gitIndex) buildCoverSet() {
	set := make(map[string]struct{}, len(ix.names)+len(ix.names)/4)
	for _, n := range ix.names { // the directories first: only they are in set
		for i := strings.LastIndexByte(n, '/'); i > 0; i = strings.LastIndexByte(n[:i], '/') {
			if _, ok := set[n[:i]]; ok {
				break // a directory already in has its ancestors in too
			}
			set[n[:i]] = struct{}{}
		}
	}
	for _, n := range ix.names {
		set[n] = struct{}{}
	}
	ix.coverSet.Store(&set)
}

// matchesPathspec reports whether the pathspec ps (relative to the work
// tree) holds a glob character and matches a tracked path as git matches
// a pathspec's glob against the index (match_pathspec_item: the literal
// part before the first glob character compared as is, the rest with
// wildmatch without WM_PATHNAME, so '*' matches '/' too). A pathspec
// without glob characters is covers' business.
func (ix *gitIndex) matchesPathspec(ps string) bool {
	if ix == nil {
		return false
	}
	lit := strings.IndexFunc(ps, func(r rune) bool { return r < 0x80 && isGlobSpecial(byte(r)) })
	if lit < 0 {
		return false
	}
	names := ix.names
	for i := searchNames(names, ps[:lit]); i < len(names) && strings.HasPrefix(names[i], ps[:lit]); i++ {
		if wildmatch(ps, names[i], 0) {
			return true
		}
	}
	return false
}
