package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
	hostfs "github.com/agenthost/agenthost/host/fs"
	"github.com/agenthost/agenthost/internal/sniff"
)

// maxLinesAnswer is the most bytes read_file's head or tail returns: what
// a whole read_file returns at most (the Host's default read limit). The
// lines are read, not the file, so a file of any size has a head and a
// tail; lines that add up to more are refused, not cut.
const maxLinesAnswer = hostfs.DefaultMaxReadBytes

// lineBlock is how much of a file is read at a time while its lines are
// counted: 64 KiB, a pipe's worth, so tail 10 of a log with lines of
// ordinary length reads one block.
const lineBlock = 64 << 10

// readLines is read_file with head or tail: it reads the file's first
// lines forward from its start, or its last lines backward from its end
// in blocks, never the whole file (the reference server answers head and
// tail of a 2 GiB log in 0.03 s). Whether the file is text is decided on
// its first sniff.NULWindow bytes; a binary file comes back as a blob, as
// from read_file without head or tail, when it is within the read limit,
// and is refused otherwise. Lines that add up to more than maxLinesAnswer
// are refused with host.ErrTooLarge, after at most that many bytes read.
func (s *Server) readLines(ctx context.Context, in readFileIn) (*mcp.CallToolResult, any, error) {
	f, st, err := s.h.OpenFile(ctx, "", in.Path)
	if err != nil {
		return nil, nil, s.explain(ctx, in.Path, err)
	}
	defer f.Close()
	probe := make([]byte, sniff.NULWindow)
	n, err := f.ReadAt(probe, 0)
	if err != nil && err != io.EOF {
		return nil, nil, s.explain(ctx, in.Path, err)
	}
	if probe = probe[:n]; !sniff.IsText(probe) {
		if st.Size <= maxRawRead {
			if b, st, err := s.readRaw(ctx, st.Path); err == nil && !sniff.IsText(b) {
				return binaryResult(st, b), nil, nil
			}
		} else {
			return nil, nil, fmt.Errorf("%s is not text (%s, %d bytes): head and tail count lines of text, and a file over %d bytes is not returned as a blob (%w)",
				quote(in.Path), mimeType(st.Path, probe), st.Size, maxRawRead, host.ErrTooLarge)
		}
	}
	var b []byte
	what := "first"
	if in.Head > 0 {
		b, err = headOf(ctx, f, in.Head, maxLinesAnswer)
	} else {
		what = "last"
		b, err = tailOf(ctx, f, st.Size, in.Tail, maxLinesAnswer)
	}
	switch {
	case errors.Is(err, errLinesTooLong):
		return nil, nil, fmt.Errorf("the %s %d lines of %s are more than %d bytes, the most read_file returns: ask for fewer lines, or read a part with exec (sed -n) (%w)",
			what, max(in.Head, in.Tail), quote(in.Path), maxLinesAnswer, host.ErrTooLarge)
	case err != nil:
		return nil, nil, s.explain(ctx, in.Path, err)
	}
	return text(hostfs.Lossy(b)), nil, nil
}

// errLinesTooLong: the lines asked for add up to more than the limit.
var errLinesTooLong = errors.New("the lines are longer than the limit")

// headOf returns the file f's first n lines (their line breaks
// included), or all of it when it has fewer: what head -n gives. It
// counts line breaks a block at a time, reading from the start to the
// file's end as it is now, then reads the lines; it reads at most limit
// bytes and a block more before it gives errLinesTooLong.
func headOf(ctx context.Context, f *os.File, n, limit int) ([]byte, error) {
	buf := make([]byte, lineBlock)
	var pos int64
	lines := 0
	end := int64(-1)
	for end < 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m, err := f.ReadAt(buf, pos)
		for off := 0; ; {
			j := bytes.IndexByte(buf[off:m], '\n')
			if j < 0 {
				break
			}
			if lines++; lines == n {
				end = pos + int64(off+j+1)
				break
			}
			off += j + 1
		}
		pos += int64(m)
		switch {
		case end >= 0:
		case pos > int64(limit):
			return nil, errLinesTooLong
		case err == io.EOF:
			end = pos
		case err != nil:
			return nil, err
		}
	}
	if end > int64(limit) {
		return nil, errLinesTooLong
	}
	b := make([]byte, end)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, shrunk(err)
	}
	return b, nil
}

// tailOf returns the last n lines of the file f, size bytes long when it
// was opened (bytes appended since are not read): what tail -n gives, a
// final line break not starting a line of its own. It reads backward from
// the end a block at a time until it has passed n line breaks, then reads
// the lines; it reads at most limit bytes and a block more before it
// gives errLinesTooLong. A file whose size says nothing or little (a
// small one, or one in /proc whose size is 0) is read forward to its end,
// within limit, and cut.
func tailOf(ctx context.Context, f *os.File, size int64, n, limit int) ([]byte, error) {
	if size <= lineBlock {
		b, err := headOf(ctx, f, -1, limit) // no line is the (-1)th: to the end
		if err != nil {
			return nil, err
		}
		return b[tailStart(b, n):], nil
	}
	buf := make([]byte, lineBlock)
	pos, found := size, 0
	start := int64(-1)
	for pos > 0 && start < 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if size-pos > int64(limit) {
			return nil, errLinesTooLong
		}
		lo := max(0, pos-lineBlock)
		blk := buf[:pos-lo]
		if _, err := f.ReadAt(blk, lo); err != nil {
			return nil, shrunk(err)
		}
		if pos == size && blk[len(blk)-1] == '\n' {
			blk = blk[:len(blk)-1] // the final line break ends the last line
		}
		for {
			j := bytes.LastIndexByte(blk, '\n')
			if j < 0 {
				break
			}
			if found++; found == n {
				start = lo + int64(j) + 1
				break
			}
			blk = blk[:j]
		}
		pos = lo
	}
	start = max(start, 0) // fewer lines than n: the whole file
	if size-start > int64(limit) {
		return nil, errLinesTooLong
	}
	b := make([]byte, size-start)
	if _, err := f.ReadAt(b, start); err != nil {
		return nil, shrunk(err)
	}
	return b, nil
}

// tailStart is where the last n lines of b start (0 when it has fewer).
func tailStart(b []byte, n int) int {
	i := len(b)
	if i > 0 && b[i-1] == '\n' {
		i--
	}
	for ; n > 0; n-- {
		j := bytes.LastIndexByte(b[:i], '\n')
		if j < 0 {
			return 0
		}
		i = j
	}
	return i + 1
}

// shrunk words a read past the end of a file that was cut short while
// its tail was read.
func shrunk(err error) error {
	if err == io.EOF {
		return errors.New("the file was cut short while it was read; read it again")
	}
	return err
}
