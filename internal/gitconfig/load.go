package gitconfig

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// This file follows includes: a Loader reads a config file and the files
// its include.path and includeIf.<condition>.path name, with git's depth
// limit and bounds of its own on size, count and time. What a file is,
// where an include leads and whether a condition holds are the caller's
// (Loader.ReadFile, Resolve, Cond): the Loader opens nothing itself.

// MaxIncludeDepth is git's MAX_INCLUDE_DEPTH (config.c): the file at the
// end of more than this many nested includes makes git die with
// "exceeded maximum include depth". A file that includes itself reaches
// it at once, which is how git ends a cycle.
const MaxIncludeDepth = 10

// The bounds of one Loader, for the fields left zero. git has none of
// its own beyond the depth: these are set far above what git or a person
// writes, and low enough that a hostile file cannot make a load cost
// more than a few tens of MiB or a second.
const (
	// DefaultMaxFileBytes is the largest file read: git init writes
	// 92 bytes, and a config with a section for each of 40,000 branches
	// is about 4 MiB.
	DefaultMaxFileBytes = 4 << 20
	// DefaultMaxBytes is the most a load reads over all its files (each
	// file once, whatever the includes of it).
	DefaultMaxBytes = 16 << 20
	// DefaultMaxEntries is the most entries a load gives, a file included
	// twice counted twice: the repeats a chain of includes can make grow
	// as the product of the includes at each level (five includes of
	// itself in a file are 5^10 readings before git's depth limit), and
	// this bounds them. 131,072 entries of a real config are some 5 MB
	// of text; the Entry values alone are 7 MiB.
	DefaultMaxEntries = 1 << 17
	// DefaultMaxFiles is the most distinct files a load reads.
	DefaultMaxFiles = 1 << 10
)

// ErrIncludeDepth is the error of a load that reaches a file through more
// than MaxIncludeDepth nested includes, as git refuses it ("exceeded
// maximum include depth"): most often an include cycle. Its message names
// the file and the one including it.
var ErrIncludeDepth = errors.New("gitconfig: exceeded maximum include depth")

// ErrTooLarge is the error of a load past one of its bounds (a file over
// MaxFileBytes, more than MaxBytes, MaxEntries or MaxFiles in all). git
// would read on; a caller cannot know the config it does not read, so it
// has no answer git would give.
var ErrTooLarge = errors.New("gitconfig: config too large")

// Loader reads git config files with their includes, as git reads them
// with `git config --includes`: each entry in order, and at an include
// (include.path, or includeIf.<cond>.path whose condition holds) the
// included file's entries, then the rest. Its zero value follows no
// include. A Loader is for one goroutine; its bounds hold over all the
// calls to Load on it (a repository's system, global and local configs
// are one load), and each file is read and parsed at most once, whatever
// the number of includes of it.
type Loader struct {
	// ReadFile returns the contents of the file name (a path given to
	// Load or returned by Resolve). An error that is fs.ErrNotExist makes
	// the file count as absent, as git skips a missing include (an
	// absent file adds nothing to the depth); any other stops the load
	// with that error, as git dies on a file it cannot read (Once: the
	// file is skipped). A file longer than MaxFileBytes is refused with
	// ErrTooLarge: a ReadFile that can should read no more than
	// MaxFileBytes+1 bytes.
	ReadFile func(name string) ([]byte, error)
	// Resolve returns the files an include's path names, the include
	// being in the file from: git takes a relative path against from's
	// directory and expands a leading "~/". None (or a nil Resolve): the
	// include is not followed. It is called for an include whose
	// condition holds and whose value is given.
	Resolve func(from, path string) []string
	// Cond reports whether includeIf's condition cond (the subsection:
	// "gitdir:~/work/", "onbranch:main", or "" for a key without one)
	// holds for an include in the file from. Nil: no condition holds.
	Cond func(from, cond string) bool
	// Once, when set, makes the load read every file the includes reach,
	// each once, instead of git's reading: a file included again gives
	// nothing more, so a cycle ends where it closes and no depth limit
	// applies, and a file git would refuse (one that does not parse, an
	// include without a value, a file that cannot be read or is over
	// MaxFileBytes) gives what it can (the entries before the fault) and
	// the load goes on. It is for a caller that must see every key the
	// files could give git, not which one wins (the sandbox protecting
	// every hooks directory a config could name). Only the bounds, and
	// the context, end such a load early.
	Once bool
	// The bounds; zero means the default above.
	MaxFileBytes, MaxBytes, MaxEntries, MaxFiles int

	files   map[string]*loadedFile
	bytes   int
	entries int
	seen    map[string]bool // Once: the files read already
}

// loadedFile is a file as read and parsed, once per Loader.
type loadedFile struct {
	entries []Entry // each with File set
	absent  bool
	err     error // a read or parse fault; entries are the ones before it
}

// Load reads the config file name and the files it includes, and returns
// their entries in git's order, each with File set to the name of the
// file holding it (an include.path or includeIf entry comes before the
// entries of the file it includes, as `git config --list --includes`
// lists it). An absent file gives no entries and no error. On an error
// it returns the entries before the point where git would have stopped
// (with Once: the entries read), and the error:
//   - ErrIncludeDepth: a file reached through more than MaxIncludeDepth
//     nested includes (never with Once);
//   - ErrSyntax: a file that does not parse (see Parse), or an include
//     without a value, both of which git refuses (with Once, the first
//     such fault, returned after the whole load);
//   - ErrTooLarge: a bound was reached (with Once, a file over
//     MaxFileBytes is skipped, and this is the fault returned after the
//     whole load);
//   - ctx's error, when it ends first;
//   - an error of ReadFile (with Once, returned after the whole load).
//
// Each error names the file being read (and ErrIncludeDepth the file
// including it too); errors.Is tells them apart.
func (l *Loader) Load(ctx context.Context, name string) ([]Entry, error) {
	var out []Entry
	if l.Once {
		var soft error
		err := l.once(ctx, name, &out, &soft)
		if err == nil {
			err = soft
		}
		return out, err
	}
	return out, l.expand(ctx, name, "", 0, &out)
}

// expand appends the entries of the file name, reached through depth
// nested includes from the file from, as git reads them.
func (l *Loader) expand(ctx context.Context, name, from string, depth int, out *[]Entry) error {
	f, err := l.file(ctx, name)
	if err != nil {
		return err
	}
	if f.absent {
		return nil
	}
	if depth > MaxIncludeDepth {
		// git checks the depth once it knows the file is there, before
		// it reads it.
		return fmt.Errorf("%w (%d) while including %s from %s; this might be due to circular includes", ErrIncludeDepth, MaxIncludeDepth, name, from)
	}
	for _, e := range f.entries {
		if err := l.emit(ctx, name, e, out); err != nil {
			return err
		}
		follow, err := l.includes(name, e)
		if err != nil {
			return err
		}
		for _, n := range follow {
			if err := l.expand(ctx, n, name, depth+1, out); err != nil {
				return err
			}
		}
	}
	return f.err
}

// once appends the entries of the file name and of every file it
// includes not read already, each once; a fault of a file is kept in
// *soft (the first) and the load goes on.
func (l *Loader) once(ctx context.Context, name string, out *[]Entry, soft *error) error {
	if l.seen[name] {
		return nil
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[name] = true
	f, err := l.file(ctx, name)
	if err != nil {
		return err
	}
	if f.err != nil && *soft == nil {
		*soft = f.err
	}
	for _, e := range f.entries {
		if err := l.emit(ctx, name, e, out); err != nil {
			return err
		}
		follow, err := l.includes(name, e)
		if err != nil {
			if *soft == nil {
				*soft = err
			}
			continue
		}
		for _, n := range follow {
			if err := l.once(ctx, n, out, soft); err != nil {
				return err
			}
		}
	}
	return nil
}

// emit appends e, within the entry bound, looking at ctx every 1024
// entries.
func (l *Loader) emit(ctx context.Context, name string, e Entry, out *[]Entry) error {
	if l.entries >= bound(l.MaxEntries, DefaultMaxEntries) {
		return fmt.Errorf("%w: more than %d entries (reading %s)", ErrTooLarge, bound(l.MaxEntries, DefaultMaxEntries), name)
	}
	l.entries++
	if l.entries%1024 == 0 {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("gitconfig: reading %s: %w", name, err)
		}
	}
	*out = append(*out, e)
	return nil
}

// includes returns the files the entry e of the file from makes git
// read: none for an entry that is no include, or an include whose
// condition does not hold; an ErrSyntax for an include without a value,
// which git refuses (as it does only once the condition holds).
func (l *Loader) includes(from string, e Entry) ([]string, error) {
	switch {
	case e.Key == "include.path":
	case e.Section() == "includeif" && e.Name() == "path":
		// includeif.path has no condition: git follows none.
		if l.Cond == nil || e.Key == "includeif.path" || !l.Cond(from, e.Subsection()) {
			return nil, nil
		}
	default:
		return nil, nil
	}
	if e.NoValue {
		return nil, fmt.Errorf("%w: %s: missing value for %s", ErrSyntax, from, e.Key)
	}
	if l.Resolve == nil {
		return nil, nil
	}
	return l.Resolve(from, e.Value), nil
}

// file returns the file name as read and parsed, reading it the first
// time; a fault of the file itself (it cannot be read, is over
// MaxFileBytes, does not parse) is its err. The error returned is one
// that ends any load: ctx's, or a bound of the whole load.
func (l *Loader) file(ctx context.Context, name string) (*loadedFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("gitconfig: reading %s: %w", name, err)
	}
	if f := l.files[name]; f != nil {
		return f, nil
	}
	if len(l.files) >= bound(l.MaxFiles, DefaultMaxFiles) {
		return nil, fmt.Errorf("%w: more than %d files (reading %s)", ErrTooLarge, bound(l.MaxFiles, DefaultMaxFiles), name)
	}
	if l.files == nil {
		l.files = map[string]*loadedFile{}
	}
	f := &loadedFile{}
	l.files[name] = f
	var b []byte
	var err error
	if l.ReadFile != nil {
		b, err = l.ReadFile(name)
	} else {
		err = fs.ErrNotExist
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.absent = true
		return f, nil
	case err != nil:
		f.err = fmt.Errorf("gitconfig: %s: %w", name, err)
		return f, nil
	case len(b) > bound(l.MaxFileBytes, DefaultMaxFileBytes):
		f.err = fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, name, bound(l.MaxFileBytes, DefaultMaxFileBytes))
		return f, nil
	}
	if l.bytes += len(b); l.bytes > bound(l.MaxBytes, DefaultMaxBytes) {
		return nil, fmt.Errorf("%w: more than %d bytes in all (reading %s)", ErrTooLarge, bound(l.MaxBytes, DefaultMaxBytes), name)
	}
	entries, err := Parse(b)
	for i := range entries {
		entries[i].File = name
	}
	f.entries = entries
	if err != nil {
		f.err = fmt.Errorf("%w: %s", err, name)
	}
	return f, nil
}

func bound(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
