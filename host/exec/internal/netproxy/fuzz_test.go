package netproxy

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"
)

// FuzzAllowList: parsing an entry and normalising a name never panic; a
// parsed rule reads back from its String; a normalised name holds only
// the bytes a name may hold, is idempotent and ignores case; and the
// list allows a name only when the rule's name is that name or, for a
// suffix rule, ends it after a dot.
func FuzzAllowList(f *testing.F) {
	for _, tc := range allowCases {
		f.Add(tc.entry, "example.org", uint16(443))
		for _, req := range append(tc.allow, tc.refuse...) {
			h, p, _ := strings.Cut(req, " ")
			f.Add(tc.entry, h, uint16(len(p)*100))
		}
	}
	f.Add("*.example.org", "a.example.org\x00", uint16(443))
	f.Add("example.org", "EXAMPLE.ORG.", uint16(80))
	f.Fuzz(func(t *testing.T, entry, host string, port uint16) {
		r, err := ParseRule(entry)
		if err == nil {
			back, err := ParseRule(r.String())
			if err != nil || back != r {
				t.Fatalf("%q -> %v -> %v, %v", entry, r, back, err)
			}
		}
		name, err := NormalizeName(host)
		if err == nil {
			if len(name) == 0 || len(name) > maxNameLen || strings.HasSuffix(name, ".") {
				t.Fatalf("NormalizeName(%q) = %q", host, name)
			}
			for i := 0; i < len(name); i++ {
				c := name[i]
				if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
					t.Fatalf("NormalizeName(%q) = %q holds %q", host, name, c)
				}
			}
			if again, err := NormalizeName(name); err != nil || again != name {
				t.Fatalf("not idempotent: %q -> %q -> %q, %v", host, name, again, err)
			}
			if up, err := NormalizeName(strings.ToUpper(host)); err != nil || up != name {
				t.Fatalf("case: %q -> %q, %v", host, up, err)
			}
		}
		h, err := ParseHost(host)
		if err != nil || r == (Rule{}) {
			return
		}
		a := &AllowList{rules: []Rule{r}}
		if !a.Allows(h, port) {
			return
		}
		switch {
		case h.Name == "":
			if r.Addr != h.Addr {
				t.Fatalf("%q allows address %v", entry, h.Addr)
			}
		case r.Suffix:
			if !strings.HasSuffix(h.Name, "."+r.Name) {
				t.Fatalf("%q allows %q", entry, h.Name)
			}
		default:
			if h.Name != r.Name {
				t.Fatalf("%q allows %q", entry, h.Name)
			}
		}
	})
}

// clientHello returns the first flight of a crypto/tls client for
// serverName ("" for no SNI).
func clientHello(t testing.TB, serverName string) []byte {
	t.Helper()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c := tls.Client(a, &tls.Config{ServerName: serverName, InsecureSkipVerify: serverName == ""})
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Handshake()
	}()
	b.SetDeadline(time.Now().Add(5 * time.Second))
	raw, sni, err := readClientHello(bufio.NewReader(b))
	b.Close()
	<-done
	if err != nil || sni != serverName {
		t.Fatalf("%q: %q %v", serverName, sni, err)
	}
	return raw
}

// FuzzClientHello: the ClientHello reader never panics, never returns
// more bytes than it was given, and finds the SNI crypto/tls wrote.
func FuzzClientHello(f *testing.F) {
	f.Add(clientHello(f, "test.example"))
	f.Add(clientHello(f, ""))
	f.Add([]byte("CONNECT evil.example:443 HTTP/1.1\r\n\r\n"))
	f.Add([]byte{0x16, 3, 1, 0, 4, 1, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, _, err := readClientHello(bufio.NewReader(bytes.NewReader(data)))
		if err == nil && !bytes.HasPrefix(data, raw) {
			t.Fatalf("returned bytes it was not given")
		}
	})
}

func TestClientHelloFromCryptoTLS(t *testing.T) {
	for _, name := range []string{"test.example", "a.b.c.test.example", ""} {
		clientHello(t, name)
	}
}
