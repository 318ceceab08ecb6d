package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestPlainBodies: a plain-HTTP request's body reaches the upstream
// whole, in the framing it came in (Content-Length, chunked with a
// trailer, Expect: 100-continue), through Go's client; the response,
// framed by the upstream (chunked, a length, HEAD), reaches the client
// whole; nothing after the request is read.
func TestPlainBodies(t *testing.T) {
	up := newUpstream(t, nil, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Query().Get("chunked") != "" {
			w.Write([]byte(strings.Repeat("x", 100)))
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "%s %s %d %q te=%q trailer=%q", r.Method, r.URL.RequestURI(), len(b), b[:min(len(b), 12)], r.TransferEncoding, r.Trailer.Get("X-Sum"))
	})
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	s := startProxy(t, Config{}, dns, hp("test.example", up.port), hp("127.0.0.1", up.port))
	c := proxyClient(s, nil)
	base := fmt.Sprintf("http://test.example:%d", up.port)

	body := strings.Repeat("0123456789", 10000)
	resp, err := c.Post(base+"/len?a=1", "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	mustContain(t, string(got), `POST /len?a=1 100000 "012345678901" te=[]`)

	// Chunked (an io.Reader of unknown length), with a trailer.
	req, _ := http.NewRequest("PUT", base+"/chunked?chunked=1", io.MultiReader(strings.NewReader("abc"), strings.NewReader(body)))
	req.Trailer = http.Header{"X-Sum": {"42"}}
	req.Header.Set("Expect", "100-continue")
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	mustContain(t, string(got), strings.Repeat("x", 100)+`PUT /chunked?chunked=1 100003 "abc012345678" te=["chunked"] trailer="42"`)

	resp, err = c.Head(base + "/h")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestPlainFramingRefused: a request the proxy and the upstream could
// frame differently (both Content-Length and chunked, another coding,
// lengths that differ, a bad chunk) is refused or cut, and no second
// request smuggled behind one reaches the upstream.
func TestPlainFramingRefused(t *testing.T) {
	up := newUpstream(t, nil, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	s := startProxy(t, Config{}, dns, hp("test.example", up.port), hp("127.0.0.1", up.port))
	target := fmt.Sprintf("http://test.example:%d/x", up.port)
	host := hp("test.example", up.port)
	for _, tc := range []struct {
		name, head, body string
		want             int
	}{
		{"both", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n", 400},
		{"gzip", "Transfer-Encoding: gzip, chunked\r\n", "0\r\n\r\n", 400},
		{"two lengths", "Content-Length: 3\r\nContent-Length: 4\r\n", "abcd", 400},
		{"negative", "Content-Length: -1\r\n", "", 400},
		{"bad chunk", "Transfer-Encoding: chunked\r\n", "zz\r\nabc\r\n0\r\n\r\n", 502},
		{"smuggled", "Content-Length: 3\r\n", "abcGET /second HTTP/1.1\r\nHost: " + host + "\r\n\r\n", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(up.requests())
			conn := rawConn(t, s, 10*time.Second)
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\n%s\r\n%s", target, host, tc.head, tc.body)
			if code := readStatus(t, bufio.NewReader(conn), "POST"); code != tc.want {
				t.Errorf("status %d, want %d", code, tc.want)
			}
			reqs := up.requests()[before:]
			for _, r := range reqs {
				if strings.Contains(r, "second") {
					t.Errorf("a second request reached the upstream: %q", reqs)
				}
			}
			if tc.want != 200 && tc.name != "bad chunk" && len(reqs) != 0 {
				t.Errorf("a refused request reached the upstream: %q", reqs)
			}
		})
	}
}
