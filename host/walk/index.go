package walk

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// This file reads a repository's index ($GIT_DIR/index), so that tracked
// files are listed and never reported as ignored, as git does: ignore
// rules apply only to untracked files. The file is read like every other
// file the Cache depends on (through the Jail when one is set, re-read
// when it changes) and decoded with go-git's index decoder, which reads
// versions 2, 3 and 4 and the extended flags.

// ErrIndexUnsupported is what Walk (inside a *PartialError) and IsIgnored
// report, wrapped with the index's path and the reason, for an index this
// package cannot use: a split index ("link" extension, core.splitIndex), a
// sparse index ("sdir", sparse directory entries), another extension git
// marks as required, or an index version other than 2, 3 and 4. The
// answer given with it is the one without the index (as with NoIndex), so
// tracked files that the rules ignore are missing from it.
var ErrIndexUnsupported = errors.New("git index not supported")

// ErrIndexCorrupt is reported like ErrIndexUnsupported for an index that
// cannot be decoded (a bad checksum, a truncated file). git itself refuses
// to work with such an index.
var ErrIndexCorrupt = errors.New("git index corrupt")

// gitIndex is what the walk needs of an index: the tracked paths.
type gitIndex struct {
	// names are the paths of the entries (relative to the work tree, '/'
	// separated), sorted byte-wise and without duplicates (the stages of
	// a conflict are one path): what git ls-files -c lists. Skip-worktree
	// and intent-to-add entries are tracked like any other, as for git
	// check-ignore.
	names []string
	err   error // why the index cannot be used; names is then empty
}

// parseIndex decodes the contents of an index file read from path (for
// messages). Empty contents (no index yet, as in a new repository) are an
// empty index.
func parseIndex(data []byte, path string) *gitIndex {
	if len(data) == 0 {
		return &gitIndex{}
	}
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
		return &gitIndex{err: indexError(path, data, err)}
	}
	ix := &gitIndex{names: make([]string, 0, len(idx.Entries))}
	sorted := true
	for _, e := range idx.Entries {
		if e.Mode == 0o040000 || strings.HasSuffix(e.Name, "/") {
			// A sparse directory entry, which only a sparse index holds.
			return &gitIndex{err: fmt.Errorf("%s: %w: a sparse index (sparse directory entry %q)", path, ErrIndexUnsupported, e.Name)}
		}
		if n := len(ix.names); n > 0 {
			if last := ix.names[n-1]; last == e.Name {
				continue
			} else if last > e.Name {
				sorted = false
			}
		}
		ix.names = append(ix.names, e.Name)
	}
	if !sorted { // git writes them sorted; a hand-made index may not be
		slices.Sort(ix.names)
		ix.names = slices.Compact(ix.names)
	}
	return ix
}

// indexError names why an index could not be decoded.
func indexError(path string, data []byte, err error) error {
	switch {
	case errors.Is(err, index.ErrUnknownExtension):
		what := "a required extension this reader does not know"
		switch {
		case bytes.Contains(data, []byte("sdir")):
			what = "a sparse index (extension sdir)"
		case bytes.Contains(data, []byte("link")):
			what = "a split index (extension link; git update-index --no-split-index undoes it)"
		}
		return fmt.Errorf("%s: %w: %s", path, ErrIndexUnsupported, what)
	case errors.Is(err, index.ErrUnsupportedVersion):
		return fmt.Errorf("%s: %w: %v", path, ErrIndexUnsupported, err)
	}
	return fmt.Errorf("%s: %w: %v", path, ErrIndexCorrupt, err)
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

// covers reports whether git check-ignore, reading the index, leaves rel
// alone as tracked: rel is an entry, or (as a pathspec matches the paths
// below a directory) some entry lies below it.
func (ix *gitIndex) covers(rel string) bool {
	rel = strings.TrimSuffix(rel, "/")
	return rel != "" && (ix.tracked(rel) || ix.holds(rel+"/"))
}
