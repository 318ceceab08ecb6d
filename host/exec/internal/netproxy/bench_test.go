package netproxy

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"testing"
	"time"
)

// benchSetup starts a TLS upstream for test.example on loopback and a
// proxy allowing it, and returns a direct client (dialling 127.0.0.1
// itself) and a proxied one. keepAlive lets a client reuse connections.
func benchSetup(b *testing.B, h http.HandlerFunc, keepAlive bool) (up *upstream, direct, proxied *http.Client) {
	cert, pool := testCert(b, "test.example")
	up = newUpstream(b, &cert, h)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	s := startProxy(b, Config{}, dns, hp("test.example", up.port), hp("127.0.0.1", up.port))
	var d net.Dialer
	direct = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, fmt.Sprintf("127.0.0.1:%d", up.port))
		},
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		DisableKeepAlives: !keepAlive,
	}}
	proxied = proxyClient(s, pool)
	proxied.Transport.(*http.Transport).DisableKeepAlives = !keepAlive
	b.Cleanup(direct.CloseIdleConnections)
	b.Cleanup(proxied.CloseIdleConnections)
	return up, direct, proxied
}

// BenchmarkHTTPSRequest is the latency of one HTTPS request on a new
// connection (TCP, TLS 1.3 handshake, GET, a 13-byte answer), direct and
// through the proxy (plus CONNECT, resolve, check, dial, SNI check).
// It reports p50 and p99 in milliseconds.
//
//	go test -run XXX -bench HTTPSRequest -benchtime 2000x ./host/exec/internal/netproxy/
func BenchmarkHTTPSRequest(b *testing.B) {
	up, direct, proxied := benchSetup(b, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello, world\n")
	}, false)
	url := fmt.Sprintf("https://test.example:%d/", up.port)
	for _, bc := range []struct {
		name string
		c    *http.Client
	}{{"direct", direct}, {"proxy", proxied}} {
		b.Run(bc.name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				code, _, err := get(bc.c, url)
				if err != nil || code != 200 {
					b.Fatalf("%d %v", code, err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			ms := func(q float64) float64 {
				return float64(times[int(q*float64(len(times)-1))]) / float64(time.Millisecond)
			}
			b.ReportMetric(ms(0.50), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
		})
	}
}

// BenchmarkHTTPSThroughput downloads 100 MiB over HTTPS, direct and
// through the proxy; MB/s is the figure.
//
//	go test -run XXX -bench HTTPSThroughput -benchtime 10x ./host/exec/internal/netproxy/
func BenchmarkHTTPSThroughput(b *testing.B) {
	const size = 100 << 20
	chunk := make([]byte, 1<<20)
	up, direct, proxied := benchSetup(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(size))
		for range size / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}, true)
	url := fmt.Sprintf("https://test.example:%d/big", up.port)
	for _, bc := range []struct {
		name string
		c    *http.Client
	}{{"direct", direct}, {"proxy", proxied}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				resp, err := bc.c.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || n != size {
					b.Fatalf("%d bytes, %v", n, err)
				}
			}
		})
	}
}

// BenchmarkStartClose is the proxy's start-up and shutdown: what a
// sandboxed command pays before its first byte (the anchor: srt's proxy
// adds about 400 ms to every command).
func BenchmarkStartClose(b *testing.B) {
	allow, _ := ParseAllowList([]string{"registry.npmjs.org", "proxy.golang.org", "sum.golang.org"})
	for b.Loop() {
		s, err := Start(context.Background(), Config{Allow: allow})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
