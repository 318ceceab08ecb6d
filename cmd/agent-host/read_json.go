package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"unicode/utf8"

	"github.com/agenthost/agenthost/host"
	hostfs "github.com/agenthost/agenthost/host/fs"
	"github.com/agenthost/agenthost/internal/rawname"
	"github.com/agenthost/agenthost/internal/sniff"
)

// maxJSONRead is the largest file read --json returns: ReadFile's limit
// (the CLI's Host has the default), the most read_file returns over MCP.
// A --json answer is one object that its reader decodes whole, so a
// bigger one would only move the cost of holding it to the reader (a
// 2 GiB file took 10.5 GiB and 206 s to encode, and would take as much
// to decode); read without --json copies a file of any size, as cat.
const maxJSONRead = hostfs.DefaultMaxReadBytes

// jsonChunk is how many bytes of contents are encoded at a time.
const jsonChunk = 64 << 10

// readJSONTo writes read --json's answer for f (st its stat): the
// contents as a JSON string when they are text by the project's rule
// (sniff.IsText) and valid UTF-8, else in base64. A file over
// maxJSONRead wraps host.ErrTooLarge and nothing is written. The
// contents are held once; their encoding is streamed, so the answer
// costs the file's size and 64 KiB, not a copy per encoding step.
func readJSONTo(w io.Writer, f *os.File, st host.FileStat, path string) error {
	tooLarge := func(why string) error {
		return &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %s than %d bytes, the most --json answers; without --json, read copies a file of any size", host.ErrTooLarge, why, maxJSONRead)}
	}
	if st.Size > maxJSONRead {
		return tooLarge(fmt.Sprintf("%d bytes is more", st.Size))
	}
	// Read into room for the size it has (one byte more, to see the
	// end), so that the bytes are held once; the file may grow while it
	// is read: never take more than the limit.
	b := make([]byte, 0, st.Size+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if len(b) > maxJSONRead {
			return tooLarge("it grew while read to more")
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	r := readJSON{Path: st.Path, PathB64: rawname.B64(st.Path), Size: int64(len(b)), Encoding: "utf-8"}
	isText := utf8.Valid(b) && sniff.IsText(b)
	if !isText {
		r.Encoding = "base64"
	}
	// The object as cli.WriteJSON writes it, its last member streamed.
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	open := bytes.TrimSuffix(head.Bytes(), []byte("\"\"}\n")) // `..."contents":`
	bw := bufio.NewWriterSize(w, jsonChunk)
	bw.Write(open)
	bw.WriteByte('"')
	if isText {
		if err := writeJSONStringBody(bw, b); err != nil {
			return err
		}
	} else {
		be := base64.NewEncoder(base64.StdEncoding, bw)
		be.Write(b)
		be.Close()
	}
	bw.WriteString("\"}\n")
	return bw.Flush()
}

// writeJSONStringBody writes b, valid UTF-8, as the inside of a JSON
// string exactly as cli.WriteJSON's encoder writes it (no HTML escaping),
// a chunk at a time, each cut on a character's first byte.
func writeJSONStringBody(w io.Writer, b []byte) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for len(b) > 0 {
		n := min(len(b), jsonChunk)
		for n < len(b) && !utf8.RuneStart(b[n]) {
			n--
		}
		buf.Reset()
		if err := enc.Encode(string(b[:n])); err != nil {
			return err
		}
		q := buf.Bytes()
		if _, err := w.Write(q[1 : len(q)-2]); err != nil { // without the quotes and the line break
			return err
		}
		b = b[n:]
	}
	return nil
}
