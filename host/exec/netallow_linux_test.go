package exec

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host/exec/internal/netproxy"
)

// netProbe is run by the sandboxed python: each argument one probe,
// each printing one line "NAME ok|refused DETAIL".
const netProbe = `
import os, socket, sys, time
proxy = os.environ.get("HTTP_PROXY", "http://127.0.0.1:1").rsplit("/", 1)[-1]
phost, pport = proxy.rsplit(":", 1)
pport = int(pport)
def proxied(head, then=None):
    s = socket.create_connection((phost, pport), timeout=10)
    s.sendall(head)
    r = s.recv(4096)
    if then is not None and r.startswith(b"HTTP/1.1 200"):
        s.sendall(then)
        r = r + b" | " + s.recv(4096)
    s.close()
    return r
for a in sys.argv[1:]:
    kind, _, arg = a.partition("=")
    try:
        if kind == "tcp":
            h, p = arg.rsplit(":", 1)
            fam = socket.AF_INET6 if ":" in h else socket.AF_INET
            s = socket.socket(fam, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect((h.strip("[]"), int(p)))
            print(kind, "ok", arg)
        elif kind == "udp":
            h, p = arg.rsplit(":", 1)
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            # a DNS query for allowed.test, to the test's own listener
            s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07allowed\x04test\x00\x00\x01\x00\x01", (h, int(p)))
            print(kind, "ok", arg)
        elif kind == "listen":
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            print(kind, "ok", s.getsockname())
        elif kind == "proxyport-elsewhere":
            s = socket.socket()
            s.settimeout(5)
            s.connect(("127.0.0.2", pport))
            print(kind, "ok")
        elif kind == "nul":
            r = proxied(b"CONNECT allowed.test\x00.evil.example:443 HTTP/1.1\r\nHost: allowed.test\r\n\r\n")
            print(kind, "ok" if r.startswith(b"HTTP/1.1 200") else "refused", r[:12])
        elif kind == "connect-in-connect":
            r = proxied(b"CONNECT " + arg.encode() + b" HTTP/1.1\r\nHost: " + arg.encode() + b"\r\n\r\n",
                        b"CONNECT denied.test:80 HTTP/1.1\r\nHost: denied.test:80\r\n\r\n")
            print(kind, "ok" if r.count(b"200") > 1 else "refused", r[:40])
        elif kind == "slowloris":
            s = socket.create_connection((phost, pport), timeout=30)
            start = time.time()
            s.sendall(b"CONNECT allowed")
            while True:
                time.sleep(0.2)
                try:
                    s.sendall(b".")
                except OSError:
                    break
                if time.time() - start > 20:
                    break
            print(kind, "refused" if time.time() - start < 15 else "ok", round(time.time() - start))
        else:
            print(kind, "unknown")
    except OSError as e:
        print(kind, "refused", e)
`

// netFixture is a sandbox fixture with the upstream servers of the
// proxy tests: plain HTTP and TLS on 127.0.0.1, a UDP listener standing
// for DNS, and the names the proxy's test resolver maps to them.
type netFixture struct {
	*sbFixture
	httpPort, tlsPort, udpPort int
	hits                       atomic.Int32 // requests the upstreams served
	udpReached                 atomic.Int32
	mu                         sync.Mutex
	hosts                      []string
	gitServer                  http.Handler // serves /repo.git/ when set (TestAllowNetGitClone)
}

func newNetFixture(t *testing.T) *netFixture {
	f := &netFixture{sbFixture: newSBFixture(t)}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("skipped: needs curl")
	}
	if f.python == "" {
		t.Skip("skipped: needs python3")
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.gitServer != nil && strings.HasPrefix(r.URL.Path, "/repo.git/") {
			f.gitServer.ServeHTTP(w, r)
			return
		}
		f.hits.Add(1)
		f.mu.Lock()
		f.hosts = append(f.hosts, r.Host)
		f.mu.Unlock()
		fmt.Fprintf(w, "hello %s", r.Host)
	})
	plain := httptest.NewServer(handler)
	t.Cleanup(plain.Close)
	tls := httptest.NewTLSServer(handler) // its certificate names example.com
	t.Cleanup(tls.Close)
	f.httpPort = plain.Listener.Addr().(*net.TCPAddr).Port
	f.tlsPort = tls.Listener.Addr().(*net.TCPAddr).Port
	must(t, os.WriteFile(filepath.Join(f.ws, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tls.Certificate().Raw}), 0o644))
	must(t, os.WriteFile(filepath.Join(f.ws, "probe.py"), []byte(netProbe), 0o644))
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { udp.Close() })
	f.udpPort = udp.LocalAddr().(*net.UDPAddr).Port
	go func() {
		b := make([]byte, 512)
		for {
			if _, _, err := udp.ReadFrom(b); err != nil {
				return
			}
			f.udpReached.Add(1)
		}
	}()

	// The proxy's names: test names only, mapped to public addresses
	// that serve as labels (the documentation ranges count as
	// non-public to the proxy): the test's dialer sends each to our
	// listeners on loopback and fails the test on anything else;
	// rebind.test resolves to loopback itself. Nothing reaches the
	// machine's DNS or any other address.
	names := map[string]netip.Addr{
		"allowed.test": netip.MustParseAddr("6.6.6.1"),
		"example.com":  netip.MustParseAddr("6.6.6.2"),
		"denied.test":  netip.MustParseAddr("6.6.6.3"),
		"rebind.test":  netip.MustParseAddr("127.0.0.1"),
	}
	proxyTestConfig = func(c *netproxy.Config) {
		c.HeaderTimeout = time.Second
		c.Resolve = func(_ context.Context, name string) ([]netip.Addr, error) {
			if a, ok := names[strings.TrimSuffix(name, ".")]; ok {
				return []netip.Addr{a}, nil
			}
			return nil, errors.New("no such test name")
		}
		c.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !ap.Addr().Is4() || !netip.MustParsePrefix("6.6.6.0/24").Contains(ap.Addr()) {
				t.Errorf("the proxy dialled %s, not a test address", address)
				return nil, errors.New("not a test address")
			}
			var d net.Dialer
			return d.DialContext(ctx, network, "127.0.0.1:"+strconv.Itoa(int(ap.Port())))
		}
	}
	t.Cleanup(func() { proxyTestConfig = nil })
	return f
}

// TestAllowNet runs a command that may reach named hosts only (issue 24)
// through the proxy, in the layer the machine gives (the namespace one;
// TestAttacksWithoutUserNamespaces runs it again in the second), and
// tries every way around it.
func TestAllowNet(t *testing.T) {
	f := newNetFixture(t)
	hp, tp := strconv.Itoa(f.httpPort), strconv.Itoa(f.tlsPort)
	sb := f.sandbox()
	sb.AllowNet = []string{"allowed.test:" + hp, "example.com:" + tp, "rebind.test:" + hp}
	curl := "curl -sS -m 10 "
	code := curl + "-o /dev/null -w '%{http_code}' "
	probe := "$PY probe.py "
	cases := []struct {
		name, cmd string
		want      string // in the standard output
		hits      int32  // requests the upstreams serve
		denied    string // host:port in NetDenied ("" none)
		reason    string
	}{
		{"plain HTTP", curl + "http://allowed.test:" + hp + "/", "hello allowed.test:" + hp, 1, "", ""},
		{"CONNECT", curl + "--cacert ca.pem https://example.com:" + tp + "/", "hello example.com:" + tp, 1, "", ""},
		{"trailing dot", curl + "http://allowed.test.:" + hp + "/", "hello allowed.test.:" + hp, 1, "", ""},
		{"refused name", code + "http://denied.test:" + hp + "/", "403", 0, "denied.test:" + hp, "not allowed"},
		{"refused port", code + "--cacert ca.pem https://example.com:" + hp + "/; true", "", 0, "example.com:" + hp, "not allowed"},
		{"Host header", code + "-H 'Host: denied.test:" + hp + "' http://allowed.test:" + hp + "/", "403", 0, "allowed.test:" + hp, "Host header differs"},
		{"rebinding", code + "http://rebind.test:" + hp + "/", "403", 0, "rebind.test:" + hp, "non-public address"},
		{"noproxy", "curl --noproxy '*' -sS -m 5 http://127.0.0.1:" + hp + "/ || echo curl failed", "curl failed", 0, "", ""},
		{"raw TCP", probe + "tcp=127.0.0.1:" + hp + " tcp=[::1]:" + hp + " proxyport-elsewhere listen", "tcp refused", 0, "", ""},
		{"UDP and DNS", probe + "udp=127.0.0.1:" + strconv.Itoa(f.udpPort), "udp refused", 0, "", ""},
		{"NUL byte", probe + "nul", "nul refused", 0, "", "not a host name"},
		{"CONNECT in CONNECT", probe + "connect-in-connect=example.com:" + tp, "connect-in-connect refused", 0, "example.com:" + tp, "not TLS"},
		{"slowloris", probe + "slowloris", "slowloris refused", 0, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.hits.Store(0)
			out, err := f.r.Exec(context.Background(), f.request(c.cmd, sb))
			must(t, err)
			all := out.Stdout + out.Stderr
			if !strings.Contains(out.Stdout, c.want) {
				t.Errorf("%s: want %q in the output:\n%s", c.cmd, c.want, all)
			}
			if strings.Contains(out.Stdout, " ok") && strings.HasPrefix(c.cmd, probe) {
				t.Errorf("a probe got through:\n%s", all)
			}
			if n := f.hits.Load(); n != c.hits {
				t.Errorf("the upstreams served %d requests, want %d:\n%s", n, c.hits, all)
			}
			if n := f.udpReached.Load(); n != 0 {
				t.Errorf("%d UDP packets reached the test's listener", n)
			}
			rep := out.Sandbox
			if rep == nil || !rep.On("netproxy") {
				t.Fatalf("the report does not say the proxy was on: %+v", rep)
			}
			var got []string
			for _, d := range rep.NetDenied {
				got = append(got, d.Host+":"+strconv.Itoa(d.Port)+" "+d.Reason)
				if d.Message == "" || !strings.Contains(d.Message, "refused") {
					t.Errorf("denial without a message: %+v", d)
				}
			}
			switch {
			case c.denied != "" && (len(got) != 1 || got[0] != c.denied+" "+c.reason):
				t.Errorf("NetDenied = %q, want [%s %s]", got, c.denied, c.reason)
			case c.denied == "" && c.reason != "" && (len(got) != 1 || !strings.HasSuffix(got[0], " "+c.reason)):
				t.Errorf("NetDenied = %q, want one %q", got, c.reason)
			case c.denied == "" && c.reason == "" && len(got) != 0:
				t.Errorf("NetDenied = %q, want none", got)
			}
		})
	}
}

// TestAllowNetBadEntry: an entry that names no host starts nothing.
func TestAllowNetBadEntry(t *testing.T) {
	f := newSBFixture(t)
	mark := filepath.Join(f.ws, "ran")
	for _, e := range []string{"*.com", "exa mple.org", "example.org:0", "example.org:http", "ex\x00ample.org", "bücher.example"} {
		sb := f.sandbox()
		sb.AllowNet = []string{e}
		_, err := f.r.Exec(context.Background(), f.request("touch "+mark, sb))
		if !errors.Is(err, ErrBadAllowNet) {
			t.Errorf("AllowNet %q: err = %v, want ErrBadAllowNet", e, err)
		}
		if _, err := os.Stat(mark); err == nil {
			t.Fatalf("AllowNet %q: the command ran", e)
		}
	}
}

// TestAllowNetEmptyIsNoNetwork: without entries (and without Network)
// the proxy is not started and nothing leaves, as before issue 24.
func TestAllowNetEmptyIsNoNetwork(t *testing.T) {
	f := newNetFixture(t)
	sb := f.sandbox()
	sb.AllowNet = []string{}
	out, err := f.r.Exec(context.Background(), f.request("env | grep -ci _proxy; $PY probe.py tcp=127.0.0.1:"+strconv.Itoa(f.httpPort), sb))
	must(t, err)
	if out.Sandbox.On("netproxy") || strings.Contains(out.Stdout, "tcp ok") || !strings.HasPrefix(out.Stdout, "0\n") {
		t.Errorf("an empty AllowNet gave a way out: %+v\n%s%s", out.Sandbox, out.Stdout, out.Stderr)
	}
}

// TestAllowNetGitClone: git, through the proxy variables alone, clones
// over HTTPS from an allowed host inside the sandbox (git's own
// http-backend behind the test's TLS server) and gets the source's
// commit.
func TestAllowNetGitClone(t *testing.T) {
	f := newNetFixture(t)
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("skipped: needs git")
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skip("skipped: needs git-http-backend")
	}
	srv := filepath.Join(f.base, "srv")
	src := filepath.Join(srv, "src")
	must(t, os.MkdirAll(src, 0o755))
	f.git(t, src, "init", "-q", "-b", "main")
	f.git(t, src, "commit", "-q", "--allow-empty", "-m", "one")
	f.git(t, srv, "clone", "-q", "--bare", src, filepath.Join(srv, "repo.git"))
	want := f.git(t, src, "rev-parse", "HEAD")
	f.gitServer = &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + srv, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + f.home}}

	sb := f.sandbox()
	sb.AllowNet = []string{"example.com:" + strconv.Itoa(f.tlsPort)}
	url := "https://example.com:" + strconv.Itoa(f.tlsPort) + "/repo.git"
	res, err := f.r.Exec(context.Background(), f.request("GIT_SSL_CAINFO=$PWD/ca.pem git clone -q "+url+" clone && git -C clone rev-parse HEAD", sb))
	must(t, err)
	if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != strings.TrimSpace(want) {
		t.Fatalf("git clone through the proxy: exit %d, HEAD %q, want %q\n%s", res.ExitCode, res.Stdout, want, res.Stderr)
	}
}

// TestAllowNetPackageManagers: npm, Go, pip and cargo, each pointed at
// a registry on an allowed name over plain HTTP, reach it through the
// proxy variables alone (the request arrives at the test's upstream by
// way of the proxy; the answer is no registry's, so the tool then
// fails, which is not what is tested). A tool that is not installed is
// skipped, by name.
func TestAllowNetPackageManagers(t *testing.T) {
	f := newNetFixture(t)
	hp := strconv.Itoa(f.httpPort)
	reg := "http://allowed.test:" + hp
	sb := f.sandbox()
	sb.AllowNet = []string{"allowed.test:" + hp}
	for _, c := range []struct{ tool, probe, cmd string }{
		{"npm", "npm", "npm view left-pad --registry=" + reg + "/ --fetch-retries=0 --cache=$TMPDIR/npm-cache"},
		{"go", "go", "GOTOOLCHAIN=local GOPROXY=" + reg + " GOSUMDB=off GOPATH=$TMPDIR/gopath GOMODCACHE=$TMPDIR/gomod GOFLAGS= go mod download example.com/m@v1.0.0"},
		{"pip", "pip", "PIP_CONFIG_FILE=/dev/null $PY -m pip download --no-deps --no-cache-dir --retries 0 --trusted-host allowed.test --index-url " + reg + "/simple/ -d $TMPDIR/pip leftpad"},
		{"cargo", "cargo", "CARGO_HOME=$TMPDIR/cargo cargo search --limit 1 --index sparse+" + reg + "/index/ leftpad"},
	} {
		t.Run(c.tool, func(t *testing.T) {
			if c.tool == "pip" {
				if err := exec.Command(f.python, "-m", "pip", "--version").Run(); err != nil {
					t.Skip("skipped: needs pip")
				}
			} else if _, err := exec.LookPath(c.probe); err != nil {
				t.Skipf("skipped: needs %s", c.probe)
			}
			run := sb
			if c.tool == "cargo" {
				// rustup's cargo finds its toolchain in RUSTUP_HOME,
				// which the fake home has not: shown read-only when the
				// environment names it (the test reads no real home).
				if real, _ := filepath.EvalSymlinks(mustLookPath(t, "cargo")); strings.Contains(real, "rustup") || strings.Contains(mustLookPath(t, "cargo"), ".cargo/bin") {
					rh := os.Getenv("RUSTUP_HOME")
					if rh == "" {
						t.Skip("skipped: rustup's cargo needs RUSTUP_HOME set (the test does not look in the real home)")
					}
					cp := *sb
					cp.Read = append(append([]string(nil), sb.Read...), rh)
					run = &cp
					c.cmd = "RUSTUP_HOME=" + rh + " " + c.cmd
				}
			}
			f.mu.Lock()
			f.hosts = nil
			f.mu.Unlock()
			out, err := f.r.Exec(context.Background(), f.request(c.cmd+"; true", run))
			must(t, err)
			f.mu.Lock()
			hosts := f.hosts
			f.mu.Unlock()
			if len(hosts) == 0 {
				t.Fatalf("%s reached nothing through the proxy:\n%s%s", c.tool, out.Stdout, out.Stderr)
			}
			for _, h := range hosts {
				if h != "allowed.test:"+hp {
					t.Errorf("%s: a request for %q", c.tool, h)
				}
			}
			if len(out.Sandbox.NetDenied) != 0 {
				t.Errorf("%s: refused %+v", c.tool, out.Sandbox.NetDenied)
			}
		})
	}
}

func mustLookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	must(t, err)
	return p
}
