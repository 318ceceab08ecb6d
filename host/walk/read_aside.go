package walk

import "context"

// readAsideBytes is the size (by the stat before it) from which a file
// the Cache reads for a caller whose context can end is read on a
// goroutine of its own (readAside): one read of an ignore file of git's
// largest size, 100 MiB, with its allocation, took 0.3-0.8 s on a loaded
// machine, and a cancel waited for it.
const readAsideBytes = 1 << 20

// readAside returns what read(at) gives. For a file of readAsideBytes or
// more (by key) and a ctx that can end, read runs on another goroutine,
// on a duplicate of the descriptor at (which the caller may close once
// readAside returns), and readAside returns false as soon as ctx ends:
// the read goes on and what it gives is dropped.
func readAside(ctx context.Context, key fileKey, at int, read func(at int) (fileKey, []byte, bool)) (fileKey, []byte, bool, bool) {
	if ctx == nil || ctx.Done() == nil || key.size < readAsideBytes {
		k, data, jailed := read(at)
		return k, data, jailed, true
	}
	if at >= 0 {
		dup, err := dupFd(at)
		if err != nil {
			k, data, jailed := read(at)
			return k, data, jailed, true
		}
		at = dup
	}
	type got struct {
		key    fileKey
		data   []byte
		jailed bool
	}
	done := make(chan got, 1)
	go func() {
		if at >= 0 {
			defer closeDirFd(at)
		}
		k, data, jailed := read(at)
		done <- got{k, data, jailed}
	}()
	select {
	case g := <-done:
		return g.key, g.data, g.jailed, true
	case <-ctx.Done():
		return fileKey{}, nil, false, false
	}
}

// readIgnore is readFileAt of the .gitignore in h (path: its path) for
// the walk, read aside (as readAside, on a duplicate of h) when the walk's
// context can end and the file is readAsideBytes or more: a walk
// cancelled during the read of a huge file returns at once, and halts
// (nothing more is delivered, so no entry is judged without the rules
// that were not read). A smaller one is read here, after one fstatat:
// reading every .gitignore aside (a dup, a goroutine, a close) made a
// walk of 10,000 files 6-8% slower. (A file grown past the size between
// the stat and the read is read here, within maxIgnoreFileSize.)
func (w *walker) readIgnore(h dirHandle, path string) ([]byte, error) {
	if w.ctx.Done() == nil || sizeAt(h, ".gitignore") < readAsideBytes {
		return readFileAt(w.c, h, ".gitignore", path)
	}
	dh, err := h.dup()
	if err != nil {
		return readFileAt(w.c, h, ".gitignore", path)
	}
	type got struct {
		data []byte
		err  error
	}
	done := make(chan got, 1)
	go func() {
		defer dh.close()
		data, err := readFileAt(w.c, dh, ".gitignore", path)
		done <- got{data, err}
	}()
	select {
	case g := <-done:
		return g.data, g.err
	case <-w.ctx.Done():
		w.halt(w.ctx.Err())
		return nil, w.ctx.Err()
	}
}
