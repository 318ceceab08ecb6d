package netproxy

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

var loop4 = []netip.Addr{netip.MustParseAddr("127.0.0.1")}

// An allowed name is reached over CONNECT (TLS) and as an absolute-URI
// request (plain HTTP), with the name resolved by the proxy; the literal
// 127.0.0.1 is allowed too since the test servers are on loopback.
func TestAllowedNameHTTPSAndHTTP(t *testing.T) {
	cert, pool := testCert(t, "test.example")
	tlsUp := newUpstream(t, &cert, nil)
	plainUp := newUpstream(t, nil, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	s := startProxy(t, Config{}, dns,
		hp("test.example", tlsUp.port), hp("127.0.0.1", tlsUp.port),
		hp("test.example", plainUp.port), hp("127.0.0.1", plainUp.port))
	c := proxyClient(s, pool)

	for _, tc := range []struct{ url, host string }{
		{fmt.Sprintf("https://test.example:%d/a", tlsUp.port), hp("test.example", tlsUp.port)},
		{fmt.Sprintf("https://TEST.Example.:%d/a", tlsUp.port), hp("test.example.", tlsUp.port)}, // case and a trailing dot
		{fmt.Sprintf("http://test.example:%d/b", plainUp.port), hp("test.example", plainUp.port)},
		{fmt.Sprintf("http://Test.EXAMPLE.:%d/b", plainUp.port), hp("test.example.", plainUp.port)},
	} {
		code, body, err := get(c, tc.url)
		if err != nil || code != 200 {
			t.Fatalf("%s: %d %q %v", tc.url, code, body, err)
		}
		mustContain(t, strings.ToLower(body), "hello "+strings.ToLower(tc.host))
	}
	if got := len(tlsUp.requests()) + len(plainUp.requests()); got != 4 {
		t.Fatalf("upstreams saw %d requests, want 4", got)
	}
	if n := dns.calls.Load(); n != 4 {
		t.Fatalf("%d lookups for 4 requests, want one each", n)
	}
	if list, _ := s.Denied(); len(list) != 0 {
		t.Fatalf("denials: %+v", list)
	}
}

// A name not in the list is refused over both protocols, never resolved,
// and recorded with a count.
func TestRefusedName(t *testing.T) {
	dns := &fakeDNS{names: map[string][]netip.Addr{"other.example": loop4}}
	s := startProxy(t, Config{}, dns, "test.example", "127.0.0.1")
	c := proxyClient(s, nil)
	for range 3 {
		if _, _, err := get(c, "https://other.example/"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Fatalf("CONNECT other.example: %v", err)
		}
	}
	code, body, err := get(c, "http://other.example/x")
	if err != nil || code != 403 {
		t.Fatalf("GET http://other.example: %d %v", code, err)
	}
	mustContain(t, body, "refused other.example:80")
	if n := dns.calls.Load(); n != 0 {
		t.Fatalf("a refused name was resolved %d times", n)
	}
	d, ok := denial(s, "other.example:443")
	if !ok || d.Count != 3 || d.Reason != ReasonNotAllowed {
		t.Fatalf("record: %+v", d)
	}
	want := "network: refused other.example:443 (3 times); --allow-net other.example allows it"
	if d.Message() != want {
		t.Fatalf("message %q, want %q", d.Message(), want)
	}
}

// Raw request lines: a NUL byte, an empty label, a numeric last label,
// a bad port and a name outside ASCII are refused as bad names (400) and
// recorded quoted; none is resolved.
func TestBadNamesOnTheWire(t *testing.T) {
	dns := &fakeDNS{names: map[string][]netip.Addr{}}
	s := startProxy(t, Config{}, dns, "test.example", "*.test.example", "127.0.0.1")
	for _, target := range []string{
		"test.example\x00.evil.example:443",
		"evil.example\x00.test.example:443",
		"a..test.example:443",
		"test.example..:443",
		"127.1:443",
		"0x7f.1:443",
		"test.example:0",
		"test.example:99999",
		"test.example:+443",
		"tëst.example:443",
		"test.example%2f:443",
		"[fe80::1%25lo]:443",
	} {
		c := rawConn(t, s, 5*time.Second)
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		if code := readStatus(t, bufio.NewReader(c), "CONNECT"); code != 400 {
			t.Errorf("CONNECT %q: %d, want 400", target, code)
		}
		c.Close()
	}
	if n := dns.calls.Load(); n != 0 {
		t.Fatalf("%d lookups of bad names", n)
	}
	list, _ := s.Denied()
	for _, d := range list {
		if d.Reason != ReasonBadName {
			t.Errorf("%+v", d)
		}
		if strings.ContainsRune(d.Host, 0) || strings.ContainsRune(d.Message(), 0) {
			t.Errorf("a NUL reached the record: %q", d.Host)
		}
	}
	if len(list) < 10 {
		t.Fatalf("%d records: %+v", len(list), list)
	}
}

// A plain-HTTP request whose Host header names another host than its
// URI is refused and never reaches upstream, and so is one with two
// Host headers.
func TestHostHeaderMismatch(t *testing.T) {
	up := newUpstream(t, nil, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	s := startProxy(t, Config{}, dns, hp("test.example", up.port), hp("127.0.0.1", up.port))
	for _, hosts := range [][]string{
		{"evil.example"},
		{hp("evil.example", up.port)},
		{"test.example"}, // port 80, not the URI's
		{hp("test.example", up.port+1)},
		{hp("test.example", up.port), "evil.example"},
		{"test.example\x00:" + fmt.Sprint(up.port)},
	} {
		c := rawConn(t, s, 5*time.Second)
		fmt.Fprintf(c, "GET http://test.example:%d/ HTTP/1.1\r\n", up.port)
		for _, h := range hosts {
			fmt.Fprintf(c, "Host: %s\r\n", h)
		}
		io.WriteString(c, "\r\n")
		if code := readStatus(t, bufio.NewReader(c), "GET"); code != 403 && code != 400 {
			t.Errorf("Host %q: %d", hosts, code)
		}
		c.Close()
	}
	if got := up.requests(); len(got) != 0 {
		t.Fatalf("upstream got %q", got)
	}
	// The same request with the right Host header goes through.
	c := rawConn(t, s, 5*time.Second)
	fmt.Fprintf(c, "GET http://test.example:%d/ok HTTP/1.1\r\nHost: test.example:%d\r\n\r\n", up.port, up.port)
	if code := readStatus(t, bufio.NewReader(c), "GET"); code != 200 {
		t.Fatalf("matching Host: %d", code)
	}
	if d, ok := denial(s, hp("test.example", up.port)); !ok || d.Reason != ReasonHost {
		t.Fatalf("record: %+v", d)
	}
}

// connectThenTLS opens a tunnel to target through s and runs a TLS
// handshake with cfg inside it.
func connectThenTLS(t *testing.T, s *Server, target string, cfg *tls.Config) error {
	t.Helper()
	c := rawConn(t, s, 5*time.Second)
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	if code := readStatus(t, br, "CONNECT"); code != 200 {
		return fmt.Errorf("CONNECT: %d", code)
	}
	tc := tls.Client(&bufConn{c, br}, cfg)
	defer tc.Close()
	if err := tc.Handshake(); err != nil {
		return err
	}
	fmt.Fprintf(tc, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", cfg.ServerName)
	_, err := io.ReadAll(tc)
	return err
}

// A CONNECT to an allowed name whose ClientHello names another host, or
// no host, is cut before a byte reaches upstream.
func TestSNIMismatch(t *testing.T) {
	cert, pool := testCert(t, "test.example", "evil.example")
	up := newUpstream(t, &cert, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	s := startProxy(t, Config{}, dns, hp("test.example", up.port), hp("127.0.0.1", up.port))
	target := hp("test.example", up.port)

	if err := connectThenTLS(t, s, target, &tls.Config{RootCAs: pool, ServerName: "evil.example"}); err == nil {
		t.Fatal("a ClientHello for evil.example went through a CONNECT to test.example")
	}
	if err := connectThenTLS(t, s, target, &tls.Config{InsecureSkipVerify: true}); err == nil {
		t.Fatal("a ClientHello without SNI went through")
	}
	if got := up.requests(); len(got) != 0 {
		t.Fatalf("upstream got %q", got)
	}
	d, ok := denial(s, target)
	if !ok || d.Reason != ReasonSNI || d.Count != 2 {
		t.Fatalf("record: %+v", d)
	}
	// The right SNI works, in another case and with a trailing dot.
	if err := connectThenTLS(t, s, target, &tls.Config{RootCAs: pool, ServerName: "test.example"}); err != nil {
		t.Fatalf("matching SNI: %v", err)
	}
	if got := up.requests(); len(got) != 1 {
		t.Fatalf("upstream got %q", got)
	}
}

// A name that resolves to 127.0.0.1 while only the name is allowed is
// refused (DNS rebinding); with the literal allowed too it works. Every
// address is checked: one allowed loopback address beside one that is
// not is still refused.
func TestRebinding(t *testing.T) {
	cert, pool := testCert(t, "test.example", "two.example")
	up := newUpstream(t, &cert, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{
		"test.example": loop4,
		"two.example":  {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")},
	}}
	url := fmt.Sprintf("https://test.example:%d/", up.port)

	only := startProxy(t, Config{}, dns, hp("test.example", up.port), hp("two.example", up.port))
	if _, _, err := get(proxyClient(only, pool), url); err == nil {
		t.Fatal("a name resolving to 127.0.0.1 went through with only the name allowed")
	}
	d, ok := denial(only, hp("test.example", up.port))
	if !ok || d.Reason != ReasonPrivate || d.Detail != "127.0.0.1" {
		t.Fatalf("record: %+v", d)
	}
	mustContain(t, d.Message(), fmt.Sprintf("--allow-net 127.0.0.1:%d allows that address too", up.port))

	both := startProxy(t, Config{}, dns, hp("test.example", up.port), hp("two.example", up.port), hp("127.0.0.1", up.port))
	if code, _, err := get(proxyClient(both, pool), url); err != nil || code != 200 {
		t.Fatalf("with the literal allowed: %d %v", code, err)
	}
	if _, _, err := get(proxyClient(both, pool), fmt.Sprintf("https://two.example:%d/", up.port)); err == nil {
		t.Fatal("a name resolving to 127.0.0.1 and ::1 went through with only 127.0.0.1 allowed")
	}
	if d, ok := denial(both, hp("two.example", up.port)); !ok || d.Detail != "[::1]" {
		t.Fatalf("record: %+v", d)
	}
	if got := up.requests(); len(got) != 1 {
		t.Fatalf("upstream got %q", got)
	}
}

// A second CONNECT sent inside an established tunnel is not TLS and is
// cut; one sent after a plain-HTTP request on the same stream is never
// read; and an absolute URI naming the proxy itself is refused even
// with 127.0.0.1 allowed on its port.
func TestNoRelays(t *testing.T) {
	cert, _ := testCert(t, "test.example")
	tlsUp := newUpstream(t, &cert, nil)
	plainUp := newUpstream(t, nil, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4, "self.example": loop4}}
	s := startProxy(t, Config{}, dns,
		hp("test.example", tlsUp.port), hp("127.0.0.1", tlsUp.port),
		hp("test.example", plainUp.port), hp("127.0.0.1", plainUp.port))

	t.Run("CONNECT inside CONNECT", func(t *testing.T) {
		c := rawConn(t, s, 5*time.Second)
		target := hp("test.example", tlsUp.port)
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		br := bufio.NewReader(c)
		if code := readStatus(t, br, "CONNECT"); code != 200 {
			t.Fatalf("CONNECT: %d", code)
		}
		fmt.Fprintf(c, "CONNECT other.example:443 HTTP/1.1\r\nHost: other.example:443\r\n\r\n")
		start := time.Now()
		if n, err := io.Copy(io.Discard, br); err != nil || n != 0 {
			t.Fatalf("after the inner CONNECT: %d bytes, %v", n, err)
		}
		if time.Since(start) > 2*time.Second {
			t.Fatal("the inner CONNECT was not cut at once")
		}
		if d, ok := denial(s, target); !ok || d.Reason != ReasonNotTLS {
			t.Fatalf("record: %+v", d)
		}
	})
	t.Run("CONNECT after a plain request", func(t *testing.T) {
		c := rawConn(t, s, 5*time.Second)
		fmt.Fprintf(c, "GET http://test.example:%d/first HTTP/1.1\r\nHost: test.example:%d\r\n\r\n"+
			"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"+
			"GET http://test.example:%d/second HTTP/1.1\r\nHost: test.example:%d\r\n\r\n",
			plainUp.port, plainUp.port, tlsUp.port, tlsUp.port, plainUp.port, plainUp.port)
		br := bufio.NewReader(c)
		if code := readStatus(t, br, "GET"); code != 200 {
			t.Fatalf("first request: %d", code)
		}
		if n, _ := io.Copy(io.Discard, br); n != 0 {
			t.Fatalf("%d more bytes after the first response", n)
		}
		got := plainUp.requests()
		if len(got) != 1 || !strings.HasSuffix(got[0], "/first") {
			t.Fatalf("upstream got %q", got)
		}
	})
	t.Run("the proxy itself", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := netip.MustParseAddrPort(ln.Addr().String()).Port()
		self := startProxy(t, Config{Listener: ln}, dns, hp("127.0.0.1", port), hp("self.example", port))
		for _, u := range []string{fmt.Sprintf("http://127.0.0.1:%d/", port), fmt.Sprintf("http://self.example:%d/", port)} {
			c := rawConn(t, self, 5*time.Second)
			fmt.Fprintf(c, "GET %s HTTP/1.1\r\n\r\n", u)
			if code := readStatus(t, bufio.NewReader(c), "GET"); code != 403 {
				t.Errorf("%s through itself: %d", u, code)
			}
		}
		list, _ := self.Denied()
		if len(list) != 2 || list[0].Reason != ReasonRelay || list[1].Reason != ReasonRelay {
			t.Fatalf("records: %+v", list)
		}
	})
}

// bufConn reads through a bufio.Reader that already holds the proxy's
// answer, and writes to the connection.
type bufConn struct {
	netConn
	br *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.br.Read(p) }
