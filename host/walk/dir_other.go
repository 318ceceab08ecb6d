//go:build !linux

package walk

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Outside Linux a walk reads directories by path with os.File.ReadDir and
// checks each subdirectory with Lstat before opening it. That leaves a
// window in which a directory swapped for a symbolic link could be
// followed; Linux closes it with descriptor-relative opens.

// dirHandle is the path of a directory that was checked to be one.
type dirHandle string

// dirBuf is unused state kept for symmetry with Linux.
type dirBuf struct{ entries []rawEntry }

func newDirBuf() *dirBuf { return &dirBuf{} }

func openRoot(path string) (dirHandle, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", &os.PathError{Op: "open", Path: path, Err: errNotDir}
	}
	return dirHandle(path), nil
}

// handleFromFile falls back to the directory's path outside Linux.
func handleFromFile(_ *os.File, root string) (dirHandle, error) {
	return openRoot(root)
}

func openSubdir(parent dirHandle, name, path string, _ bool) (dirHandle, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", &os.PathError{Op: "open", Path: path, Err: errNotDir}
	}
	return dirHandle(path), nil
}

func (d dirHandle) close() {}

func (d dirHandle) closeQuick(bool) {}

// invalidHandle is no directory.
const invalidHandle dirHandle = ""

// dup is d: a path needs no second descriptor.
func (d dirHandle) dup() (dirHandle, error) { return d, nil }

func readEntries(d dirHandle, path string, b *dirBuf, _ bool, _ time.Time) ([]rawEntry, time.Duration, bool, error) {
	f, err := os.Open(string(d))
	if err != nil {
		return nil, 0, false, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	ents := b.entries[:0]
	for _, de := range des {
		t := typeOther
		switch m := de.Type(); {
		case m.IsDir():
			t = typeDir
		case m&fs.ModeSymlink != 0:
			t = typeSymlink
		case m.IsRegular():
			t = typeFile
		case m&fs.ModeType == 0:
			t = typeUnknown
		}
		ents = append(ents, rawEntry{name: de.Name(), typ: t})
	}
	b.entries = ents
	return ents, 0, false, err
}

func typeAt(d dirHandle, name string) entryType {
	fi, err := os.Lstat(filepath.Join(string(d), name))
	if err != nil {
		return typeOther
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return typeDir
	case m&fs.ModeSymlink != 0:
		return typeSymlink
	case m.IsRegular():
		return typeFile
	}
	return typeOther
}

// readFileAt reads the .gitignore name in d by path, refusing a symbolic
// link and anything but a regular file; a file inside the roots of c's
// Jail is read through it.
func readFileAt(c *Cache, d dirHandle, name, path string) ([]byte, error) {
	p := filepath.Join(string(d), name)
	if c.Jail != nil && c.Jail.Contains(p) {
		_, data := readJailed(c.Jail, p, false, false)
		return data, nil
	}
	return readFileNoFollow(p, false)
}
