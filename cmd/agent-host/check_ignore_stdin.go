package main

import (
	"bufio"
	"errors"
	"io"
	"os"
)

// errJudged is what readPathBatches returns when judge refused a batch
// (judge has reported the error itself).
var errJudged = errors.New("check-ignore: a path could not be judged")

// maxStdinPath is the longest path --stdin takes (a longer line is a
// fatal error, bufio.ErrTooLong's message): no path the system can name
// is near it.
const maxStdinPath = 1 << 20

// checkIgnoreBatchBytes bounds a batch's paths in bytes as well (paths of
// up to maxStdinPath bytes would otherwise let checkIgnoreBatch of them
// hold 16 GiB).
const checkIgnoreBatchBytes = 4 << 20

// readPathBatches reads paths from in, one per line (NUL-ended with nul;
// empty ones skipped), and hands them to judge in batches: a batch is
// every path that could be read without waiting, up to checkIgnoreBatch.
// Before any read that may wait for the writer, the paths read so far
// are judged and out is flushed, so that a program that writes one path
// and waits for its answer gets it (git flushes after every path when its
// output is not a regular file), while one that writes many at once, or
// a file, gets batches: one freshness check and one resolution per
// directory for many paths. Memory is bounded: a batch holds at most
// checkIgnoreBatch paths and about checkIgnoreBatchBytes, a line at most
// maxStdinPath bytes.
//
// It returns nil at the end of the input, errJudged when judge returned
// false, or the error reading in (bufio.ErrTooLong for a longer line).
func readPathBatches(in io.Reader, nul bool, out *bufio.Writer, judge func([]string) bool) error {
	var pending []string
	size := 0 // the bytes of pending's paths
	refused := false
	flush := func() error {
		if len(pending) > 0 {
			ok := judge(pending)
			clear(pending) // the strings go with the batch
			pending, size = pending[:0], 0
			if !ok {
				refused = true
				return errJudged
			}
		}
		return out.Flush()
	}
	sc := bufio.NewScanner(&flushingReader{r: in, ready: readyFunc(in), before: flush})
	sc.Buffer(make([]byte, 64<<10), maxStdinPath)
	if nul {
		sc.Split(splitNUL)
	}
	for sc.Scan() {
		if p := sc.Text(); p != "" {
			pending = append(pending, p)
			size += len(p)
		}
		if len(pending) >= checkIgnoreBatch || size >= checkIgnoreBatchBytes {
			ok := judge(pending)
			clear(pending)
			pending, size = pending[:0], 0
			if !ok {
				return errJudged
			}
		}
	}
	err := sc.Err()
	if refused || errors.Is(err, errJudged) {
		return errJudged
	}
	// At the end, or at a bad line (too long, a read error): the paths
	// before it are answered, as git answers them before it stops.
	if ferr := flush(); ferr != nil && (refused || err == nil) {
		if refused {
			return errJudged
		}
		err = ferr
	}
	return err
}

// flushingReader is r, with before called ahead of every Read that may
// wait (ready reports false): the Scanner above reads only when it holds
// no whole line, so before runs exactly when every path read so far is
// pending and the next one has not fully arrived.
type flushingReader struct {
	r      io.Reader
	ready  func() bool
	before func() error
}

func (f *flushingReader) Read(p []byte) (int, error) {
	if !f.ready() {
		if err := f.before(); err != nil {
			return 0, err
		}
	}
	return f.r.Read(p)
}

// readyFunc returns the test for in that a Read will not wait: always
// true for a regular file (it ends or has data), the count of bytes
// queued (FIONREAD) for a pipe, socket or terminal where the system has
// one, and false otherwise (a reader that may wait: answers are flushed
// before every read).
func readyFunc(in io.Reader) func() bool {
	f, ok := in.(*os.File)
	if !ok {
		return func() bool { return false }
	}
	fi, err := f.Stat()
	if err != nil {
		return func() bool { return false }
	}
	if fi.Mode().IsRegular() {
		return func() bool { return true }
	}
	return queuedFunc(f)
}
