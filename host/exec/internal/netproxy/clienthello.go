package netproxy

import (
	"bufio"
	"errors"
	"fmt"
)

// maxClientHello bounds the handshake message read before anything goes
// upstream. A ClientHello with post-quantum key shares is about 2 KiB;
// 64 KiB leaves room for large session tickets and stays a fixed cost.
const maxClientHello = 64 << 10

var errNotClientHello = errors.New("not a TLS ClientHello")

// readClientHello reads the TLS records that carry the first handshake
// message from br and returns their bytes (to be sent upstream
// unchanged) and the server name of its SNI extension ("" when there is
// none). An error wraps errNotClientHello when the bytes are not a TLS
// handshake record, not a ClientHello, malformed, or larger than
// maxClientHello; other errors are the connection's (a deadline).
func readClientHello(br *bufio.Reader) (raw []byte, sni string, err error) {
	var msg []byte // the handshake message, assembled from records
	for {
		hdr, err := br.Peek(5)
		if err != nil {
			if len(hdr) > 0 && hdr[0] != 0x16 {
				return nil, "", fmt.Errorf("%w: the first byte is %#x", errNotClientHello, hdr[0])
			}
			return nil, "", err
		}
		if hdr[0] != 0x16 || hdr[1] != 3 {
			return nil, "", fmt.Errorf("%w: starts %q", errNotClientHello, hdr)
		}
		n := int(hdr[3])<<8 | int(hdr[4])
		if n == 0 || n > 1<<14 || len(raw)+5+n > maxClientHello+5*8 {
			return nil, "", fmt.Errorf("%w: a record of %d bytes", errNotClientHello, n)
		}
		rec := make([]byte, 5+n)
		if _, err := readFull(br, rec); err != nil {
			return nil, "", err
		}
		raw = append(raw, rec...)
		msg = append(msg, rec[5:]...)
		if len(msg) >= 4 {
			if msg[0] != 1 {
				return nil, "", fmt.Errorf("%w: handshake type %d", errNotClientHello, msg[0])
			}
			want := int(msg[1])<<16 | int(msg[2])<<8 | int(msg[3])
			if want > maxClientHello {
				return nil, "", fmt.Errorf("%w: a ClientHello of %d bytes", errNotClientHello, want)
			}
			if len(msg) >= 4+want {
				sni, err := parseSNI(msg[4 : 4+want])
				return raw, sni, err
			}
		}
	}
}

func readFull(br *bufio.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := br.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// parseSNI finds the host_name of the server_name extension in a
// ClientHello body. More than one host_name, or a malformed hello, is
// an error wrapping errNotClientHello.
func parseSNI(b []byte) (string, error) {
	bad := func(what string) (string, error) {
		return "", fmt.Errorf("%w: malformed %s", errNotClientHello, what)
	}
	c := cursor(b)
	if !c.skip(2 + 32) { // legacy_version, random
		return bad("hello")
	}
	if _, ok := c.vec(1); !ok { // legacy_session_id
		return bad("session id")
	}
	if _, ok := c.vec(2); !ok { // cipher_suites
		return bad("cipher suites")
	}
	if _, ok := c.vec(1); !ok { // legacy_compression_methods
		return bad("compression methods")
	}
	if len(c) == 0 {
		return "", nil // no extensions
	}
	exts, ok := c.vec(2)
	if !ok || len(c) != 0 {
		return bad("extensions")
	}
	sni, seen := "", false
	for len(exts) > 0 {
		typ, ok := exts.u16()
		if !ok {
			return bad("extension")
		}
		body, ok := exts.vec(2)
		if !ok {
			return bad("extension")
		}
		if typ != 0 {
			continue
		}
		if seen {
			return bad("server_name (twice)")
		}
		seen = true
		list, ok := body.vec(2)
		if !ok || len(body) != 0 {
			return bad("server_name")
		}
		for len(list) > 0 {
			if len(list) < 1 {
				return bad("server_name")
			}
			nameType := list[0]
			list = list[1:]
			name, ok := list.vec(2)
			if !ok {
				return bad("server_name")
			}
			if nameType != 0 {
				continue
			}
			if sni != "" {
				return bad("server_name (two host names)")
			}
			if len(name) == 0 {
				return bad("server_name (empty)")
			}
			sni = string(name)
		}
	}
	return sni, nil
}

// cursor reads big-endian fields off a byte slice.
type cursor []byte

func (c *cursor) skip(n int) bool {
	if len(*c) < n {
		return false
	}
	*c = (*c)[n:]
	return true
}

func (c *cursor) u16() (uint16, bool) {
	if len(*c) < 2 {
		return 0, false
	}
	v := uint16((*c)[0])<<8 | uint16((*c)[1])
	*c = (*c)[2:]
	return v, true
}

// vec reads a vector with a length prefix of lenBytes (1 or 2) bytes.
func (c *cursor) vec(lenBytes int) (cursor, bool) {
	if len(*c) < lenBytes {
		return nil, false
	}
	n := 0
	for i := 0; i < lenBytes; i++ {
		n = n<<8 | int((*c)[i])
	}
	rest := (*c)[lenBytes:]
	if len(rest) < n {
		return nil, false
	}
	*c = rest[n:]
	return rest[:n], true
}
