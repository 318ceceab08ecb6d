//go:build !linux

package walk

import (
	"io"
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

// dirBuf is the directory being read and its last entries.
type dirBuf struct {
	f       *os.File
	entries []rawEntry
}

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

// otherChunk is how many entries readChunk reads at a time.
const otherChunk = 1024

// readChunk lists the next part of d (otherChunk entries at most); eof
// reports that the directory was read to its end or could not be read
// further (err says why).
func readChunk(d dirHandle, path string, b *dirBuf, _ bool, _ time.Time) ([]rawEntry, bool, time.Duration, bool, error) {
	if b.f == nil {
		f, err := os.Open(string(d))
		if err != nil {
			return nil, true, 0, false, err
		}
		b.f = f
	}
	des, err := b.f.ReadDir(otherChunk)
	eof := err != nil || len(des) < otherChunk
	if err == io.EOF {
		err = nil
	}
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
	return ents, eof, 0, false, err
}

// rewind makes the next readChunk start again at the first entry.
func rewind(_ dirHandle, b *dirBuf) error {
	b.release()
	return nil
}

// release closes the directory b was reading.
func (b *dirBuf) release() {
	if b.f != nil {
		b.f.Close()
		b.f = nil
	}
}

// existsAt reports whether d holds an entry name (a link not followed).
func existsAt(d dirHandle, name string) bool { return sizeAt(d, name) >= 0 }

// sizeAt returns the size of the entry name in d (a link not followed),
// -1 when it cannot be stat-ed.
func sizeAt(d dirHandle, name string) int64 {
	fi, err := os.Lstat(filepath.Join(string(d), name))
	if err != nil {
		return -1
	}
	return fi.Size()
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
		_, data := readJailed(c.Jail, p, false, false, maxIgnoreFileSize)
		return data, nil
	}
	return readFileNoFollow(p, false, maxIgnoreFileSize)
}
