package netproxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
)

// The proxy frames HTTP/1 itself, with net/textproto for the header
// fields, rather than with net/http: agent-host, which links this
// package, stays without net/http and crypto/tls and their initializers
// (docs/adr/0011), and a proxy that passes bodies on in the framing they
// came in needs little of net/http anyway.

// The statuses the proxy answers with.
const (
	statusBadRequest     = 400
	statusForbidden      = 403
	statusHeaderTooLarge = 431
	statusBadGateway     = 502
)

// continueMessage answers a request's Expect: 100-continue.
const continueMessage = "HTTP/1.1 100 Continue\r\n\r\n"

func statusText(code int) string {
	switch code {
	case statusBadRequest:
		return "Bad Request"
	case statusForbidden:
		return "Forbidden"
	case statusHeaderTooLarge:
		return "Request Header Fields Too Large"
	case statusBadGateway:
		return "Bad Gateway"
	}
	return "Status " + strconv.Itoa(code)
}

// bodyFraming is how a request's body ends: after length bytes, or after
// its last chunk (chunked).
type bodyFraming struct {
	length  int64
	chunked bool
}

// requestBody reads the framing of a request from its header: chunked
// (the only transfer coding taken), a Content-Length (all its values
// equal), or none (no body). Both at once, another coding or a bad
// length is refused: a request the proxy and the upstream could frame
// differently is one that could smuggle a second.
func requestBody(h textproto.MIMEHeader) (bodyFraming, error) {
	te, cl := h.Values("Transfer-Encoding"), h.Values("Content-Length")
	switch {
	case len(te) > 0 && len(cl) > 0:
		return bodyFraming{}, errors.New("a request with both Transfer-Encoding and Content-Length")
	case len(te) > 0:
		if len(te) != 1 || !strings.EqualFold(textproto.TrimString(te[0]), "chunked") {
			return bodyFraming{}, fmt.Errorf("the transfer coding %s (only chunked is passed on)", quote(strings.Join(te, ", ")))
		}
		return bodyFraming{chunked: true}, nil
	case len(cl) > 0:
		n, err := strconv.ParseInt(textproto.TrimString(cl[0]), 10, 64)
		if err != nil || n < 0 || strings.HasPrefix(textproto.TrimString(cl[0]), "+") {
			return bodyFraming{}, fmt.Errorf("the Content-Length %s", quote(cl[0]))
		}
		for _, v := range cl[1:] {
			if textproto.TrimString(v) != textproto.TrimString(cl[0]) {
				return bodyFraming{}, errors.New("Content-Length headers that differ")
			}
		}
		return bodyFraming{length: n}, nil
	}
	return bodyFraming{}, nil
}

// copy passes the body on from src to dst as it came, reading nothing
// past its end. maxLine bounds a chunk's size line and the trailer.
func (b bodyFraming) copy(dst io.Writer, src *bufio.Reader, maxLine int) error {
	if !b.chunked {
		_, err := io.CopyN(dst, src, b.length)
		return err
	}
	for {
		line, err := readLine(src, maxLine)
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(line, []byte(";"))
		n, err := strconv.ParseUint(string(bytes.TrimSpace(size)), 16, 63)
		if err != nil {
			return fmt.Errorf("a chunk size %s", quote(string(line)))
		}
		if _, err := dst.Write(line); err != nil {
			return err
		}
		if n == 0 {
			break
		}
		if _, err := io.CopyN(dst, src, int64(n)); err != nil {
			return err
		}
		end, err := readLine(src, 2)
		if err != nil || len(bytes.TrimRight(end, "\r\n")) != 0 {
			return errors.New("a chunk not ended by CRLF")
		}
		if _, err := dst.Write(end); err != nil {
			return err
		}
	}
	// The trailer, up to its empty line.
	left := maxLine
	for {
		line, err := readLine(src, left)
		if err != nil {
			return err
		}
		left -= len(line)
		if _, err := dst.Write(line); err != nil {
			return err
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return nil
		}
	}
}

// readLine reads one line, its LF included, of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, errors.New("a line of the body's framing too long")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}
