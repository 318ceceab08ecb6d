package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// trickle writes msg one byte every gap until it is written, the write
// fails, or stop is closed; the returned func stops it and waits.
func trickle(c net.Conn, msg string, gap time.Duration) func() {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < len(msg); i++ {
			if _, err := c.Write([]byte{msg[i]}); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(gap):
			}
		}
	}()
	return func() { close(stop); wg.Wait() }
}

// cutWithin reads br until the proxy closes and fails unless that took
// between lo and hi.
func cutWithin(t *testing.T, br io.Reader, start time.Time, lo, hi time.Duration) {
	t.Helper()
	io.Copy(io.Discard, br)
	if d := time.Since(start); d < lo || d > hi {
		t.Fatalf("cut after %v, want between %v and %v", d, lo, hi)
	}
}

// A client that sends its head (or its ClientHello) one byte at a time
// is cut at HeaderTimeout, which does not slide with each byte.
func TestSlowloris(t *testing.T) {
	cert, _ := testCert(t, "test.example")
	up := newUpstream(t, &cert, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	const timeout = 300 * time.Millisecond
	s := startProxy(t, Config{HeaderTimeout: timeout}, dns, hp("test.example", up.port), hp("127.0.0.1", up.port))

	t.Run("head", func(t *testing.T) {
		c := rawConn(t, s, 10*time.Second)
		start := time.Now()
		stop := trickle(c, strings.Repeat("CONNECT test.example:443 HTTP/1.1\r\nX-A: b\r\n", 100), 20*time.Millisecond)
		defer stop()
		cutWithin(t, c, start, timeout-50*time.Millisecond, timeout+time.Second)
	})
	t.Run("ClientHello", func(t *testing.T) {
		c := rawConn(t, s, 10*time.Second)
		target := hp("test.example", up.port)
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\n\r\n", target)
		br := bufio.NewReader(c)
		if code := readStatus(t, br, "CONNECT"); code != 200 {
			t.Fatalf("CONNECT: %d", code)
		}
		start := time.Now()
		stop := trickle(c, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"+strings.Repeat("r", 500), 20*time.Millisecond)
		defer stop()
		cutWithin(t, br, start, timeout-50*time.Millisecond, timeout+time.Second)
	})
	if got := up.requests(); len(got) != 0 {
		t.Fatalf("upstream got %q", got)
	}
}

// Past MaxConns open connections, one more gets 503 at once; a slot
// freed is served again.
func TestConnectionCap(t *testing.T) {
	s := startProxy(t, Config{MaxConns: 2, HeaderTimeout: 10 * time.Second}, &fakeDNS{}, "test.example")
	held := []net.Conn{rawConn(t, s, 10*time.Second), rawConn(t, s, 10*time.Second)}
	start := time.Now()
	third := rawConn(t, s, 10*time.Second)
	if code := readStatus(t, bufio.NewReader(third), "GET"); code != 503 {
		t.Fatalf("third connection: %d", code)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the refusal took %v", d)
	}
	if s.Busy() != 1 {
		t.Fatalf("Busy() = %d", s.Busy())
	}
	for _, c := range held {
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		c := rawConn(t, s, 5*time.Second)
		io.WriteString(c, "CONNECT other.example:443 HTTP/1.1\r\n\r\n")
		code := readStatus(t, bufio.NewReader(c), "CONNECT")
		c.Close()
		if code == 403 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot came free: %d", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A tunnel in which nothing moves for IdleTimeout is closed; one where
// only the download moves lives on past it.
func TestIdleTimeout(t *testing.T) {
	cert, pool := testCert(t, "test.example")
	up := newUpstream(t, &cert, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/drip": // a byte every 100 ms for 1.2 s
			for range 12 {
				w.Write([]byte("x"))
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		case "/silent":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	})
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	const idle = 400 * time.Millisecond
	s := startProxy(t, Config{IdleTimeout: idle}, dns, hp("test.example", up.port), hp("127.0.0.1", up.port))
	c := proxyClient(s, pool)

	code, body, err := get(c, fmt.Sprintf("https://test.example:%d/drip", up.port))
	if err != nil || code != 200 || body != strings.Repeat("x", 12) {
		t.Fatalf("drip: %d %q %v", code, body, err)
	}
	start := time.Now()
	if _, _, err := get(c, fmt.Sprintf("https://test.example:%d/silent", up.port)); err == nil {
		t.Fatal("a silent tunnel answered")
	}
	if d := time.Since(start); d < idle-50*time.Millisecond || d > idle+2*time.Second {
		t.Fatalf("silent tunnel cut after %v, want about %v", d, idle)
	}
}

// The Server's context ends every connection, open tunnels included,
// and Close returns once they are gone (goleak checks the goroutines).
func TestContextEndsConnections(t *testing.T) {
	cert, pool := testCert(t, "test.example")
	up := newUpstream(t, &cert, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	allow, _ := ParseAllowList([]string{hp("test.example", up.port), hp("127.0.0.1", up.port)})
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, Config{Allow: allow, Resolve: dns.resolve, Dial: loopbackDial(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tunnel := rawConn(t, s, 10*time.Second)
	target := hp("test.example", up.port)
	fmt.Fprintf(tunnel, "CONNECT %s HTTP/1.1\r\n\r\n", target)
	br := bufio.NewReader(tunnel)
	if code := readStatus(t, br, "CONNECT"); code != 200 {
		t.Fatalf("CONNECT: %d", code)
	}
	tc := tls.Client(&bufConn{tunnel, br}, &tls.Config{RootCAs: pool, ServerName: "test.example"})
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	stalled := rawConn(t, s, 10*time.Second) // a head never finished
	io.WriteString(stalled, "GET http://test")

	start := time.Now()
	cancel()
	for _, r := range []io.Reader{tc, stalled} {
		if _, err := io.Copy(io.Discard, r); err != nil && !strings.Contains(err.Error(), "reset") {
			t.Logf("read after cancel: %v", err)
		}
	}
	s.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the connections ended %v after the context", d)
	}
	if _, err := net.Dial("tcp", s.Addr()); err == nil {
		t.Fatal("the listener still accepts")
	}
}

// allocDuring returns the bytes allocated by the whole process while f
// ran.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A head larger than MaxHeaderBytes gets 431, and a ClientHello that
// claims or sends more than maxClientHello is cut: the proxy holds a
// fixed amount whatever the client sends.
func TestOversizedInput(t *testing.T) {
	cert, _ := testCert(t, "test.example")
	up := newUpstream(t, &cert, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	s := startProxy(t, Config{MaxHeaderBytes: 16 << 10}, dns, hp("test.example", up.port), hp("127.0.0.1", up.port))
	big := bytes.Repeat([]byte("a"), 8<<20)

	alloc := allocDuring(func() {
		c := rawConn(t, s, 10*time.Second)
		go func() { c.Write([]byte("GET http://test.example/ HTTP/1.1\r\nX: ")); c.Write(big) }()
		if code := readStatus(t, bufio.NewReader(c), "GET"); code != 431 {
			t.Errorf("8 MiB header: %d", code)
		}
		c.Close()
	})
	if alloc > 2<<20 {
		t.Errorf("an 8 MiB head cost %d bytes of allocation", alloc)
	}

	for name, hello := range map[string][]byte{
		"claims 16 MiB":   append([]byte{0x16, 3, 1, 0x40, 0, 1, 0xff, 0xff, 0xff}, big[:1<<14-4]...),
		"records forever": recordsForever(big),
	} {
		alloc := allocDuring(func() {
			c := rawConn(t, s, 10*time.Second)
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\n\r\n", hp("test.example", up.port))
			br := bufio.NewReader(c)
			if code := readStatus(t, br, "CONNECT"); code != 200 {
				t.Fatalf("CONNECT: %d", code)
			}
			start := time.Now()
			go c.Write(hello)
			cutWithin(t, br, start, 0, 2*time.Second)
			c.Close()
		})
		if alloc > 2<<20 {
			t.Errorf("%s: %d bytes of allocation", name, alloc)
		}
	}
	if got := up.requests(); len(got) != 0 {
		t.Fatalf("upstream got %q", got)
	}
}

// recordsForever is a ClientHello header claiming 60 KiB followed by
// handshake records of 16 KiB, 8 MiB of them.
func recordsForever(big []byte) []byte {
	var b []byte
	first := append([]byte{1, 0, 0xf0, 0}, big[:1<<14-4]...)
	b = append(b, 0x16, 3, 1, 0x40, 0)
	b = append(b, first...)
	for len(b) < len(big) {
		b = append(b, 0x16, 3, 1, 0x40, 0)
		b = append(b, big[:1<<14]...)
	}
	return b
}

// The record counts each host:port, keeps at most maxDenied of them and
// counts the rest.
func TestDeniedRecord(t *testing.T) {
	s := startProxy(t, Config{}, &fakeDNS{}, "test.example")
	for i := range maxDenied + 10 {
		for range 1 + i%3 {
			c := rawConn(t, s, 5*time.Second)
			fmt.Fprintf(c, "CONNECT h%d.example:443 HTTP/1.1\r\n\r\n", i)
			if code := readStatus(t, bufio.NewReader(c), "CONNECT"); code != 403 {
				t.Fatalf("h%d: %d", i, code)
			}
			c.Close()
		}
	}
	list, dropped := s.Denied()
	if len(list) != maxDenied {
		t.Fatalf("%d entries", len(list))
	}
	wantDropped := 0
	for i := maxDenied; i < maxDenied+10; i++ {
		wantDropped += 1 + i%3
	}
	if dropped != wantDropped {
		t.Fatalf("dropped %d, want %d", dropped, wantDropped)
	}
	for i, d := range list {
		if d.Host != fmt.Sprintf("h%d.example", i) || d.Count != 1+i%3 || d.Port != 443 {
			t.Fatalf("entry %d: %+v", i, d)
		}
	}
	if got, want := list[2].Message(), "network: refused h2.example:443 (3 times); --allow-net h2.example allows it"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if got, want := list[0].Message(), "network: refused h0.example:443 (1 time); --allow-net h0.example allows it"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

// Bytes the client sends in the same write as its CONNECT and
// ClientHello reach upstream whole and in order, and upstream's answer
// comes back; the upstream here is a raw TCP listener that echoes.
func TestTunnelCarriesBufferedBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := netip.MustParseAddrPort(ln.Addr().String()).Port()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(c) // until the client half-closes
		c.Write(b)            // echo, then close
		got <- b
	}()
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	s := startProxy(t, Config{}, dns, hp("test.example", port), hp("127.0.0.1", port))
	hello := clientHello(t, "test.example")
	extra := bytes.Repeat([]byte("0123456789abcdef"), 1<<12)
	want := append(append([]byte(nil), hello...), extra...)

	c := rawConn(t, s, 10*time.Second)
	msg := append([]byte(fmt.Sprintf("CONNECT %s HTTP/1.1\r\n\r\n", hp("test.example", port))), want...)
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).CloseWrite()
	br := bufio.NewReader(c)
	if code := readStatus(t, br, "CONNECT"); code != 200 {
		t.Fatalf("CONNECT: %d", code)
	}
	back, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	up := <-got
	if !bytes.Equal(up, want) || !bytes.Equal(back, want) {
		t.Fatalf("upstream got %d bytes, client got back %d, want %d", len(up), len(back), len(want))
	}
}
