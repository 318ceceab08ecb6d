package netproxy

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testCert makes a self-signed certificate for names (and 127.0.0.1),
// and the pool that trusts it.
func testCert(t testing.TB, names ...string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "netproxy test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		DNSNames:              names,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// upstream is a test server on 127.0.0.1 that records the requests it
// got ("METHOD host path").
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
	port uint16
}

func (u *upstream) requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...)
}

func newUpstream(t testing.TB, tlsCert *tls.Certificate, h http.HandlerFunc) *upstream {
	t.Helper()
	return newUpstreamOn(t, nil, tlsCert, h)
}

// newUpstreamOn is newUpstream serving ln (nil: 127.0.0.1, port 0).
func newUpstreamOn(t testing.TB, ln net.Listener, tlsCert *tls.Certificate, h http.HandlerFunc) *upstream {
	t.Helper()
	u := &upstream{}
	if h == nil {
		h = func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "hello %s", r.Host) }
	}
	u.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.seen = append(u.seen, r.Method+" "+r.Host+" "+r.URL.Path)
		u.mu.Unlock()
		h(w, r)
	}))
	if ln != nil {
		u.Listener.Close()
		u.Listener = ln
	}
	u.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point
	if tlsCert != nil {
		u.TLS = &tls.Config{Certificates: []tls.Certificate{*tlsCert}}
		u.StartTLS()
	} else {
		u.Start()
	}
	t.Cleanup(u.Close)
	ap := netip.MustParseAddrPort(u.Listener.Addr().String())
	if !ap.Addr().IsLoopback() {
		t.Fatalf("upstream listens on %s", ap)
	}
	u.port = ap.Port()
	return u
}

// fakeDNS maps test names to loopback addresses and counts lookups; a
// name it does not hold is an error, never the machine's DNS.
type fakeDNS struct {
	names map[string][]netip.Addr
	calls atomic.Int64
}

func (f *fakeDNS) resolve(ctx context.Context, name string) ([]netip.Addr, error) {
	f.calls.Add(1)
	if a, ok := f.names[name]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host (fake resolver)", Name: name, IsNotFound: true}
}

// loopbackDial dials like net.Dialer but fails the test for any address
// that is not 127.0.0.1 or ::1: the tests reach nothing else.
func loopbackDial(t testing.TB) Dialer {
	var d net.Dialer
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !ap.Addr().IsLoopback() {
			t.Errorf("the proxy dialled %q", address)
			return nil, fmt.Errorf("test dialer: %q is not loopback", address)
		}
		return d.DialContext(ctx, network, address)
	}
}

// startProxy starts a Server with cfg (Resolve defaulting to dns, Dial
// to loopbackDial) and stops it at the end of the test.
func startProxy(t testing.TB, cfg Config, dns *fakeDNS, allow ...string) *Server {
	t.Helper()
	if allow != nil {
		a, err := ParseAllowList(allow)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Allow = a
	}
	if cfg.Resolve == nil && dns != nil {
		cfg.Resolve = dns.resolve
	}
	if cfg.Dial == nil {
		cfg.Dial = loopbackDial(t)
	}
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// proxyClient is an HTTP client that goes through the proxy and trusts
// pool, one connection per request.
func proxyClient(s *Server, pool *x509.CertPool) *http.Client {
	u := &url.URL{Scheme: "http", Host: s.Addr()}
	tr := &http.Transport{
		Proxy:             http.ProxyURL(u),
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		DisableKeepAlives: true,
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// get fetches rawURL and returns the status and body; an error of the
// transport (a refused CONNECT is one) is returned as is.
func get(c *http.Client, rawURL string) (int, string, error) {
	resp, err := c.Get(rawURL)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// rawConn dials the proxy and sets a deadline that bounds the whole test
// exchange.
func rawConn(t testing.TB, s *Server, d time.Duration) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(d))
	t.Cleanup(func() { c.Close() })
	return c
}

// readStatus reads the answer to a method request from br, its body
// included (none after a CONNECT's 200).
func readStatus(t testing.TB, br *bufio.Reader, method string) int {
	t.Helper()
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading the proxy's answer: %v", err)
	}
	if method == http.MethodConnect && resp.StatusCode == http.StatusOK {
		return resp.StatusCode // the tunnel follows
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("reading the proxy's answer: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// denial returns the record's entry for hostPort.
func denial(s *Server, hostPort string) (Denial, bool) {
	list, _ := s.Denied()
	for _, d := range list {
		if d.HostPort() == hostPort {
			return d, true
		}
	}
	return Denial{}, false
}

func hp(name string, port uint16) string { return fmt.Sprintf("%s:%d", name, port) }

// mustContain fails unless s contains sub.
func mustContain(t testing.TB, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%q does not contain %q", s, sub)
	}
}

type netConn = net.Conn
