package netproxy

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// One table: an entry, then requests it allows and refuses, or the
// error kind the entry gets.
var allowCases = []struct {
	entry   string
	err     error
	allow   []string // "host port", host as ParseHost takes it
	refuse  []string
	written string // Rule.String, when it differs from entry
}{
	{entry: "example.org", allow: []string{"example.org 443", "example.org 80", "EXAMPLE.org. 443"},
		refuse: []string{"example.org 8443", "www.example.org 443", "example.org.evil 443", "xexample.org 443"}},
	{entry: "Example.ORG.:8443", written: "example.org:8443", allow: []string{"example.org 8443"}, refuse: []string{"example.org 443"}},
	{entry: "*.example.org", allow: []string{"a.example.org 443", "a.b.example.org 80"},
		refuse: []string{"example.org 443", "aexample.org 443", "a.example.org 22"}},
	{entry: "*.example.org:22", allow: []string{"git.example.org 22"}, refuse: []string{"git.example.org 443"}},
	{entry: "192.0.2.7", allow: []string{"192.0.2.7 443", "::ffff:192.0.2.7 443"}, refuse: []string{"192.0.2.8 443"}},
	{entry: "192.0.2.7:8080", allow: []string{"192.0.2.7 8080"}, refuse: []string{"192.0.2.7 80"}},
	{entry: "[2001:db8::7]:443", allow: []string{"2001:db8::7 443"}, refuse: []string{"2001:db8::8 443"}},
	{entry: "[2001:DB8::7]", written: "[2001:db8::7]", allow: []string{"2001:db8::7 80"}},
	{entry: "2001:db8::7", written: "[2001:db8::7]", allow: []string{"2001:db8::7 443"}},
	{entry: "xn--bcher-kva.example", allow: []string{"XN--BCHER-KVA.example 443"}},
	{entry: "a_b.example", allow: []string{"a_b.example 443"}},
	{entry: "localhost", allow: []string{"localhost 443"}, refuse: []string{"127.0.0.1 443"}},

	{entry: "", err: ErrBadName},
	{entry: "*", err: ErrBadEntry},
	{entry: "*.", err: ErrBadName},
	{entry: "*.com", err: ErrBadEntry},
	{entry: "a.*.example.org", err: ErrBadEntry},
	{entry: "*example.org", err: ErrBadEntry},
	{entry: "**.example.org", err: ErrBadEntry},
	{entry: "example.org:0", err: ErrBadPort},
	{entry: "example.org:65536", err: ErrBadPort},
	{entry: "example.org:", err: ErrBadPort},
	{entry: "example.org:-1", err: ErrBadPort},
	{entry: "example.org:0x50", err: ErrBadPort},
	{entry: "exa\x00mple.org", err: ErrBadName},
	{entry: "exa mple.org", err: ErrBadName},
	{entry: "example..org", err: ErrBadName},
	{entry: "example.org..", err: ErrBadName},
	{entry: "-example.org", err: ErrBadName},
	{entry: "example-.org", err: ErrBadName},
	{entry: strings.Repeat("a", 64) + ".org", err: ErrBadName},
	{entry: strings.Repeat("a.", 127) + "org", err: ErrBadName},
	{entry: "bücher.example", err: ErrNonASCII},
	{entry: "127.1", err: ErrBadName},
	{entry: "0x7f000001", err: ErrBadName},
	{entry: "1.2.3.04", err: ErrBadName},
	{entry: "[192.0.2.7]", err: ErrBadEntry},
	{entry: "[2001:db8::7", err: ErrBadEntry},
	{entry: "[2001:db8::7]x", err: ErrBadEntry},
	{entry: "[fe80::1%eth0]", err: ErrBadName},
	{entry: "2001:db8::7:443:x", err: ErrBadName},
	{entry: "example.org/path", err: ErrBadName},
	{entry: "http://example.org", err: ErrBadPort},
}

func TestParseRuleTable(t *testing.T) {
	for _, tc := range allowCases {
		r, err := ParseRule(tc.entry)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("ParseRule(%q) = %v, %v; want %v", tc.entry, r, err, tc.err)
			}
			if _, err := ParseAllowList([]string{"ok.example", tc.entry}); !errors.Is(err, tc.err) {
				t.Errorf("ParseAllowList with %q: %v", tc.entry, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tc.entry, err)
			continue
		}
		want := tc.written
		if want == "" {
			want = tc.entry
		}
		if r.String() != want {
			t.Errorf("ParseRule(%q).String() = %q, want %q", tc.entry, r, want)
		}
		a, _ := ParseAllowList([]string{tc.entry})
		for _, req := range tc.allow {
			if !allows(t, a, req) {
				t.Errorf("%q does not allow %q", tc.entry, req)
			}
		}
		for _, req := range tc.refuse {
			if allows(t, a, req) {
				t.Errorf("%q allows %q", tc.entry, req)
			}
		}
	}
}

func allows(t *testing.T, a *AllowList, req string) bool {
	t.Helper()
	host, portText, _ := strings.Cut(req, " ")
	h, err := ParseHost(host)
	if err != nil {
		t.Fatalf("ParseHost(%q): %v", host, err)
	}
	port, err := ParsePort(portText)
	if err != nil {
		t.Fatal(err)
	}
	return a.Allows(h, port)
}

func TestEmptyAllowListAllowsNothing(t *testing.T) {
	var nilList *AllowList
	for _, a := range []*AllowList{nilList, {}} {
		if a.Allows(Host{Name: "example.org"}, 443) || a.AllowsAddr(netip.MustParseAddr("127.0.0.1"), 80) {
			t.Fatal("an empty list allowed something")
		}
	}
}

func TestIsPublic(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "127.255.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1",
		"169.254.169.254", "0.0.0.0", "0.1.2.3", "100.64.0.1", "224.0.0.1", "255.255.255.255",
		"::1", "::", "fe80::1", "fc00::1", "fd12::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
		"64:ff9b::7f00:1", "64:ff9b::a00:1", "2002:7f00:1::", "2002:c0a8:101::1", "::127.0.0.1", "fec0::1"} {
		if isPublic(netip.MustParseAddr(s)) {
			t.Errorf("%s counted as public", s)
		}
	}
	for _, s := range []string{"1.1.1.1", "93.184.215.14", "2606:4700::1111", "64:ff9b::101:101", "2002:101:101::1"} {
		if !isPublic(netip.MustParseAddr(s)) {
			t.Errorf("%s counted as not public", s)
		}
	}
}

func TestEnv(t *testing.T) {
	env := Env("127.0.0.1:4321")
	want := map[string]string{
		"HTTP_PROXY": "http://127.0.0.1:4321", "HTTPS_PROXY": "http://127.0.0.1:4321", "ALL_PROXY": "http://127.0.0.1:4321",
		"http_proxy": "http://127.0.0.1:4321", "https_proxy": "http://127.0.0.1:4321", "all_proxy": "http://127.0.0.1:4321",
		"NO_PROXY": "", "no_proxy": "",
	}
	if len(env) != len(want) {
		t.Fatalf("%q", env)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if w, ok := want[k]; !ok || w != v {
			t.Errorf("%q", kv)
		}
	}
}

// Every host in hosts.txt is an allow-list entry, and each package
// manager the issue names has its hosts.
func TestPackageHosts(t *testing.T) {
	for _, h := range PackageHosts() {
		if _, err := ParseRule(h.Entry); err != nil {
			t.Errorf("%s: %v", h.Tool, err)
		}
		if h.Why == "" {
			t.Errorf("%s %s: no reason", h.Tool, h.Entry)
		}
	}
	for _, tool := range []string{"npm", "go", "pip", "cargo", "git"} {
		if len(HostsFor(tool)) == 0 {
			t.Errorf("no hosts for %s", tool)
		}
	}
	if got := HostsFor("go"); len(got) != 2 || got[0] != "proxy.golang.org" || got[1] != "sum.golang.org" {
		t.Errorf("go: %q", got)
	}
}

// Every reason has its own line, and SSH's port says to use HTTPS.
func TestDenialMessages(t *testing.T) {
	for _, tc := range []struct {
		d    Denial
		want string
	}{
		{Denial{Host: "example.org", Port: 443, Count: 3, Reason: ReasonNotAllowed},
			"network: refused example.org:443 (3 times); --allow-net example.org allows it"},
		{Denial{Host: "example.org", Port: 8443, Count: 1, Reason: ReasonNotAllowed},
			"network: refused example.org:8443 (1 time); --allow-net example.org:8443 allows it"},
		{Denial{Host: "[2001:db8::1]", Port: 443, Count: 2, Reason: ReasonNotAllowed},
			"network: refused [2001:db8::1]:443 (2 times); --allow-net [2001:db8::1] allows it"},
		{Denial{Host: "github.com", Port: 22, Count: 1, Reason: ReasonNotAllowed},
			"network: refused github.com:22 (1 time): SSH does not go through the proxy (the keys are not in the sandbox); use an https:// remote"},
		{Denial{Host: "intranet.example", Port: 443, Count: 1, Reason: ReasonPrivate, Detail: "10.0.0.5"},
			"network: refused intranet.example:443 (1 time): it resolves to 10.0.0.5, which is not a public address; --allow-net 10.0.0.5 allows that address too"},
		{Denial{Host: "example.org", Port: 443, Count: 1, Reason: ReasonSNI, Detail: `"evil.example"`},
			`network: refused example.org:443 (1 time): the TLS server name was "evil.example"`},
		{Denial{Host: "example.org", Port: 80, Count: 1, Reason: ReasonHost, Detail: `"evil.example"`},
			`network: refused example.org:80 (1 time): the Host header was "evil.example"`},
		{Denial{Host: "127.0.0.1", Port: 3128, Count: 1, Reason: ReasonRelay},
			"network: refused 127.0.0.1:3128 (1 time): that is the proxy itself"},
	} {
		if got := tc.d.Message(); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.d, got, tc.want)
		}
	}
}
