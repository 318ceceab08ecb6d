package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// serve handles one client connection: one CONNECT tunnel or one
// plain-HTTP request, then closes it.
func (s *Server) serve(c net.Conn) {
	defer c.Close()
	stop := context.AfterFunc(s.ctx, func() { c.Close() })
	defer stop()

	c.SetDeadline(time.Now().Add(s.cfg.HeaderTimeout))
	lim := &headLimit{r: c, n: s.cfg.MaxHeaderBytes}
	br := bufio.NewReaderSize(lim, 4096)
	head, err := readHead(br)
	if err != nil {
		if errors.Is(err, errHeadTooLarge) {
			reply(c, statusHeaderTooLarge, "the request head is larger than "+strconv.Itoa(s.cfg.MaxHeaderBytes)+" bytes")
		}
		return // a deadline (slowloris), a reset, or an early close
	}
	method, target, ok := requestLine(head)
	if !ok {
		reply(c, statusBadRequest, "not an HTTP/1 request")
		return
	}
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	if method == "CONNECT" {
		s.connect(c, br, lim, target, &last)
		return
	}
	lim.n = -1
	lim.r = idleConn{c, s.cfg.IdleTimeout, &last}
	s.plain(c, br, head, &last)
}

// requestLine splits the first line of head into method and target,
// requiring "METHOD SP TARGET SP HTTP/1.x".
func requestLine(head []byte) (method, target string, ok bool) {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	parts := strings.Split(string(line), " ")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	if parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0" {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// reply writes a whole short response and leaves the closing to the
// caller.
func reply(c net.Conn, status int, msg string) {
	body := "agent-host proxy: " + msg + "\n"
	c.SetWriteDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		status, statusText(status), len(body), body)
}

// refuse records d and answers the client with 403 (400 for a bad name).
func (s *Server) refuse(c net.Conn, d Denial) {
	s.denied.add(d)
	status := statusForbidden
	if d.Reason == ReasonBadName {
		status = statusBadRequest
	}
	d.Count = 1
	reply(c, status, d.Message())
}

// check parses and matches a request's host and port.
func (s *Server) check(hostText, portText string) (Host, uint16, *Denial) {
	port, err := ParsePort(portText)
	if err != nil {
		return Host{}, 0, &Denial{Host: quote(hostText), Reason: ReasonBadName, Detail: err.Error()}
	}
	h, err := ParseHost(hostText)
	if err != nil {
		return Host{}, port, &Denial{Host: quote(hostText), Port: port, Reason: ReasonBadName, Detail: err.Error()}
	}
	if s.isSelf(h.Addr, port) {
		return h, port, &Denial{Host: h.String(), Port: port, Reason: ReasonRelay}
	}
	if !s.cfg.Allow.Allows(h, port) {
		return h, port, &Denial{Host: h.String(), Port: port, Reason: ReasonNotAllowed}
	}
	return h, port, nil
}

// isSelf reports whether a:port would reach this proxy's listener.
func (s *Server) isSelf(a netip.Addr, port uint16) bool {
	a = a.Unmap()
	return a.IsValid() && port == s.addr.Port() && (a == s.addr.Addr() || a.IsLoopback() || a.IsUnspecified())
}

// dial resolves h once, checks every address, and dials the checked
// addresses in order. A refusal is returned as a Denial, a failure to
// resolve or connect as an error.
func (s *Server) dial(h Host, port uint16) (net.Conn, *Denial, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.DialTimeout)
	defer cancel()
	addrs := []netip.Addr{h.Addr}
	if h.Name != "" {
		var err error
		addrs, err = s.cfg.Resolve(ctx, h.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("resolving %s: %w", h.Name, err)
		}
		if len(addrs) == 0 {
			return nil, nil, fmt.Errorf("resolving %s: no address", h.Name)
		}
	}
	checked := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		a = a.Unmap()
		ah := Host{Addr: a}
		if !a.IsValid() || a.Zone() != "" {
			return nil, &Denial{Host: h.String(), Port: port, Reason: ReasonPrivate, Detail: quote(a.String())}, nil
		}
		if s.isSelf(a, port) {
			return nil, &Denial{Host: h.String(), Port: port, Reason: ReasonRelay, Detail: ah.String()}, nil
		}
		if h.Name != "" && !isPublic(a) && !s.cfg.Allow.AllowsAddr(a, port) {
			return nil, &Denial{Host: h.String(), Port: port, Reason: ReasonPrivate, Detail: ah.String()}, nil
		}
		checked = append(checked, a)
	}
	var err error
	for _, a := range checked {
		var up net.Conn
		up, err = s.cfg.Dial(ctx, "tcp", netip.AddrPortFrom(a, port).String())
		if err == nil {
			return up, nil, nil
		}
	}
	return nil, nil, fmt.Errorf("connecting to %s:%d: %w", h, port, err)
}

// connect serves a CONNECT: check, dial, 200, read and check the
// ClientHello, send it upstream, then copy both ways.
func (s *Server) connect(c net.Conn, br *bufio.Reader, lim *headLimit, target string, last *atomic.Int64) {
	hostText, portText, err := net.SplitHostPort(target)
	if err != nil {
		s.refuse(c, Denial{Host: quote(target), Reason: ReasonBadName, Detail: "CONNECT needs host:port"})
		return
	}
	h, port, d := s.check(hostText, portText)
	if d != nil {
		s.refuse(c, *d)
		return
	}
	up, d, err := s.dial(h, port)
	if d != nil {
		s.refuse(c, *d)
		return
	}
	if err != nil {
		reply(c, statusBadGateway, err.Error())
		return
	}
	defer up.Close()
	stop := context.AfterFunc(s.ctx, func() { up.Close() })
	defer stop()

	// The answer and the ClientHello get their own HeaderTimeout (the
	// dial may have used the first one up), and MaxHeaderBytes no
	// longer applies: maxClientHello bounds the hello.
	c.SetDeadline(time.Now().Add(s.cfg.HeaderTimeout))
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	lim.n = -1
	raw, sni, err := readClientHello(br)
	if err != nil {
		if errors.Is(err, errNotClientHello) {
			s.denied.add(Denial{Host: h.String(), Port: port, Reason: ReasonNotTLS, Detail: err.Error()})
		}
		return
	}
	if !sniMatches(h, sni) {
		detail := "absent"
		if sni != "" {
			detail = quote(sni)
		}
		s.denied.add(Denial{Host: h.String(), Port: port, Reason: ReasonSNI, Detail: detail})
		return
	}
	c.SetDeadline(time.Time{})
	lim.r = idleConn{c, s.cfg.IdleTimeout, last}
	toUp := idleConn{up, s.cfg.IdleTimeout, last}
	if _, err := toUp.Write(raw); err != nil {
		return
	}
	s.pipe(c, br, up, last)
}

// sniMatches: a CONNECT to a name needs that name as SNI; a CONNECT to
// an address needs no SNI (clients send none for addresses, RFC 6066).
func sniMatches(h Host, sni string) bool {
	if h.Name == "" {
		return sni == ""
	}
	name, err := NormalizeName(sni)
	return err == nil && name == h.Name
}

// plain serves one absolute-URI HTTP request and closes: what the client
// sends after it (its body framed by Content-Length or chunked) is never
// read, so no second request (a CONNECT included) rides on this stream.
// The request goes upstream with "Connection: close", and the response
// comes back as the upstream sent it, its first head without the
// connection's own headers, until the upstream closes.
func (s *Server) plain(c net.Conn, br *bufio.Reader, head []byte, last *atomic.Int64) {
	method, target, _ := requestLine(head)
	mh, err := mimeHeader(head)
	if err != nil {
		reply(c, statusBadRequest, "malformed header")
		return
	}
	u, err := url.ParseRequestURI(target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		reply(c, statusBadRequest, "this is a proxy: send CONNECT for TLS, or an absolute http:// URI")
		return
	}
	hostText, portText := u.Hostname(), u.Port()
	if portText == "" {
		portText = "80"
	}
	h, port, d := s.check(hostText, portText)
	if d != nil {
		s.refuse(c, *d)
		return
	}
	hostHeaders := mh.Values("Host")
	if len(hostHeaders) > 1 || (len(hostHeaders) == 1 && !hostAgrees(hostHeaders[0], h, port)) {
		s.refuse(c, Denial{Host: h.String(), Port: port, Reason: ReasonHost, Detail: quote(strings.Join(hostHeaders, ", "))})
		return
	}
	body, err := requestBody(mh)
	if err != nil {
		reply(c, statusBadRequest, err.Error())
		return
	}
	up, d, err := s.dial(h, port)
	if d != nil {
		s.refuse(c, *d)
		return
	}
	if err != nil {
		reply(c, statusBadGateway, err.Error())
		return
	}
	defer up.Close()
	stop := context.AfterFunc(s.ctx, func() { up.Close() })
	defer stop()

	c.SetDeadline(time.Time{})
	toUp := idleConn{up, s.cfg.IdleTimeout, last}
	toClient := idleConn{c, s.cfg.IdleTimeout, last}
	if strings.EqualFold(mh.Get("Expect"), "100-continue") {
		// Answered here, not passed on: the body follows at once.
		if _, err := io.WriteString(toClient, continueMessage); err != nil {
			return
		}
	}
	if len(hostHeaders) == 0 {
		mh.Set("Host", u.Host)
	}
	dropHopHeaders(mh, "Expect")
	mh.Set("Connection", "close")
	bw := bufio.NewWriterSize(toUp, 4096)
	bw.WriteString(method + " " + u.RequestURI() + " HTTP/1.1\r\n")
	writeHeader(bw, mh)
	if err := bw.Flush(); err != nil {
		reply(c, statusBadGateway, "sending the request: "+err.Error())
		return
	}
	if err := body.copy(toUp, br, s.cfg.MaxHeaderBytes); err != nil {
		reply(c, statusBadGateway, "sending the request: "+err.Error())
		return
	}

	ulim := &headLimit{r: toUp, n: s.cfg.MaxHeaderBytes}
	ur := bufio.NewReaderSize(ulim, 4096)
	rhead, err := readHead(ur)
	if err != nil {
		reply(c, statusBadGateway, "reading the response: "+err.Error())
		return
	}
	ulim.n = -1
	status, _, _ := bytes.Cut(rhead, []byte("\n"))
	if !bytes.HasPrefix(status, []byte("HTTP/1.")) {
		reply(c, statusBadGateway, "reading the response: not an HTTP/1 response")
		return
	}
	rh, err := mimeHeader(rhead)
	if err != nil {
		reply(c, statusBadGateway, "reading the response: malformed header")
		return
	}
	dropHopHeaders(rh)
	rh.Set("Connection", "close")
	cw := bufio.NewWriterSize(toClient, s.cfg.BufferSize)
	cw.Write(bytes.TrimRight(status, "\r"))
	cw.WriteString("\r\n")
	writeHeader(cw, rh)
	if _, err := ur.WriteTo(cw); err == nil {
		cw.Flush()
	}
}

// mimeHeader parses the header fields of head (a request or response
// head whose first line is skipped).
func mimeHeader(head []byte) (textproto.MIMEHeader, error) {
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	if _, err := tp.ReadLine(); err != nil {
		return nil, err
	}
	return tp.ReadMIMEHeader()
}

// writeHeader writes h, in key order, and the empty line.
func writeHeader(w *bufio.Writer, h textproto.MIMEHeader) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			// ReadMIMEHeader leaves no CR or LF inside a value.
			w.WriteString(k + ": " + v + "\r\n")
		}
	}
	w.WriteString("\r\n")
}

// hopHeaders are the connection's own headers, not forwarded. The
// framing headers (Transfer-Encoding, Content-Length) are kept: the body
// is passed on in the framing it came in.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Upgrade",
}

// dropHopHeaders removes hopHeaders, more, and the fields the
// Connection header names (but the framing ones) from h.
func dropHopHeaders(h textproto.MIMEHeader, more ...string) {
	for _, v := range h.Values("Connection") {
		for f := range strings.SplitSeq(v, ",") {
			if f = textproto.TrimString(f); f != "" && !isFraming(f) {
				h.Del(f)
			}
		}
	}
	for _, k := range append(hopHeaders, more...) {
		h.Del(k)
	}
}

func isFraming(field string) bool {
	return strings.EqualFold(field, "Transfer-Encoding") || strings.EqualFold(field, "Content-Length")
}

// hostAgrees reports whether a Host header names h on port (80 when it
// has none).
func hostAgrees(value string, h Host, port uint16) bool {
	u := url.URL{Host: value}
	p := u.Port()
	if p == "" {
		if strings.HasSuffix(value, ":") {
			return false
		}
		p = "80"
	}
	hp, err := ParsePort(p)
	if err != nil || hp != port {
		return false
	}
	hh, err := ParseHost(u.Hostname())
	return err == nil && hh == h
}
