package netproxy

import (
	"context"
	"encoding/pem"
	"fmt"
	"net"
	"net/http/cgi"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clientEnv is the environment of a real client run through s: a fake
// HOME and git config, the proxy variables of Env, and the test CA.
func clientEnv(t *testing.T, s *Server, caFile string) []string {
	home := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_SSL_CAINFO=" + caFile,
		"CURL_CA_BUNDLE=" + caFile,
	}
	return append(env, Env(s.Addr())...)
}

func writeCA(t *testing.T, der []byte) string {
	f := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// run runs name with args and env, bounded to 30 s, and returns its
// combined output.
func run(t *testing.T, env []string, dir, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// git, going through the proxy variables alone, clones over HTTPS from
// an allowed name and gets the commit the source has; from a name not
// allowed it fails and the refusal is recorded.
func TestGitOverHTTPSThroughProxy(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	execPath, err := exec.Command(gitPath, "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skip("no git-http-backend")
	}

	root := t.TempDir()
	home := t.TempDir()
	genv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	src := filepath.Join(root, "src")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", src},
		{"-C", src, "commit", "-q", "--allow-empty", "-m", "one"},
		{"clone", "-q", "--bare", src, filepath.Join(root, "repo.git")},
	} {
		if out, err := run(t, genv, root, "git", args...); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	want, err := run(t, genv, src, "git", "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}

	cert, _ := testCert(t, "git.example")
	up := newUpstream(t, &cert, (&cgi.Handler{
		Path: backend,
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + home},
	}).ServeHTTP)
	dns := &fakeDNS{names: map[string][]netip.Addr{"git.example": loop4, "other.example": loop4}}
	s := startProxy(t, Config{}, dns, hp("git.example", up.port), hp("127.0.0.1", up.port))
	env := clientEnv(t, s, writeCA(t, cert.Certificate[0]))

	dst := filepath.Join(t.TempDir(), "clone")
	if out, err := run(t, env, root, "git", "clone", "-q", fmt.Sprintf("https://git.example:%d/repo.git", up.port), dst); err != nil {
		t.Fatalf("clone through the proxy: %v\n%s", err, out)
	}
	got, err := run(t, genv, dst, "git", "rev-parse", "HEAD")
	if err != nil || got != want {
		t.Fatalf("clone HEAD %q, source %q (%v)", got, want, err)
	}
	if out, err := run(t, env, root, "git", "ls-remote", fmt.Sprintf("https://other.example:%d/repo.git", up.port)); err == nil {
		t.Fatalf("ls-remote of a name not allowed worked:\n%s", out)
	}
	if d, ok := denial(s, hp("other.example", up.port)); !ok || d.Reason != ReasonNotAllowed {
		t.Fatalf("record: %+v", d)
	}
}

// curl, through the proxy variables alone: an allowed name with a
// trailing dot and in upper case works; the same name with no proxy
// variable honoured is not this test's (the sandbox's).
func TestCurlThroughProxy(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	cert, _ := testCert(t, "test.example")
	up := newUpstream(t, &cert, nil)
	dns := &fakeDNS{names: map[string][]netip.Addr{"test.example": loop4}}
	s := startProxy(t, Config{}, dns, hp("test.example", up.port), hp("127.0.0.1", up.port))
	env := clientEnv(t, s, writeCA(t, cert.Certificate[0]))
	for _, u := range []string{
		fmt.Sprintf("https://test.example:%d/", up.port),
		fmt.Sprintf("https://TEST.EXAMPLE.:%d/", up.port),
	} {
		out, err := run(t, env, t.TempDir(), "curl", "-sS", "--max-time", "20", u)
		if err != nil || !strings.Contains(strings.ToLower(out), "hello test.example") {
			t.Fatalf("curl %s: %v\n%s", u, err, out)
		}
	}
	out, err := run(t, env, t.TempDir(), "curl", "-sS", "--max-time", "20", fmt.Sprintf("https://other.example:%d/", up.port))
	if err == nil {
		t.Fatalf("curl other.example worked:\n%s", out)
	}
	if n := dns.calls.Load(); n != 2 {
		t.Fatalf("%d lookups, want 2", n)
	}
}

// The same rules on ::1: a name resolving to ::1 is refused with only
// the name allowed and works with [::1] allowed too.
func TestIPv6Loopback(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("no ::1:", err)
	}
	cert, pool := testCert(t, "v6.example")
	up6 := newUpstreamOn(t, ln, &cert, nil)
	port := netip.MustParseAddrPort(ln.Addr().String()).Port()
	dns := &fakeDNS{names: map[string][]netip.Addr{"v6.example": {netip.MustParseAddr("::1")}}}
	url := fmt.Sprintf("https://v6.example:%d/", port)

	only := startProxy(t, Config{}, dns, hp("v6.example", port))
	if _, _, err := get(proxyClient(only, pool), url); err == nil {
		t.Fatal("::1 reached with only the name allowed")
	}
	if d, ok := denial(only, hp("v6.example", port)); !ok || d.Detail != "[::1]" {
		t.Fatalf("record: %+v", d)
	}
	both := startProxy(t, Config{}, dns, hp("v6.example", port), fmt.Sprintf("[::1]:%d", port))
	if code, _, err := get(proxyClient(both, pool), url); err != nil || code != 200 {
		t.Fatalf("with [::1] allowed: %d %v", code, err)
	}
	if got := up6.requests(); len(got) != 1 {
		t.Fatalf("upstream got %q", got)
	}
}
