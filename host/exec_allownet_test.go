//go:build unix

package host_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host"
)

// TestExecAllowNetPolicy: the policy's AllowNet reaches the command as
// the proxy variables, a request narrows it (never widens it), and an
// entry that names no host starts nothing.
func TestExecAllowNetPolicy(t *testing.T) {
	dir := execTree(t)
	h, err := host.New(host.Config{WorkspaceRoot: filepath.Join(dir, "ws"),
		Sandbox: host.SandboxPolicy{Required: true, AllowNet: []string{"a.example", "b.example"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	out, err := h.Exec(context.Background(), host.ExecRequest{Command: "echo $HTTPS_PROXY"})
	if errors.Is(err, host.ErrNoSandbox) {
		t.Skipf("skipped: no sandbox on this system: %v", err)
	}
	if err != nil || !strings.HasPrefix(out.Stdout, "http://127.0.0.1:") || !out.Sandbox.On("netproxy") {
		t.Fatalf("policy AllowNet: %v, stdout %q, report %+v", err, out.Stdout, out.Sandbox)
	}
	// A request without network: none, no proxy. One naming a host the
	// policy names: the proxy. One naming another: none.
	for _, c := range []struct {
		allow []string
		proxy bool
	}{{nil, false}, {[]string{"b.example"}, true}, {[]string{"c.example"}, false}} {
		out, err := h.Exec(context.Background(), host.ExecRequest{Command: "echo ${HTTPS_PROXY:-none}",
			Sandbox: &host.ExecSandbox{AllowNet: c.allow}})
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Sandbox.On("netproxy"); got != c.proxy || got != strings.HasPrefix(out.Stdout, "http://") {
			t.Errorf("request AllowNet %q: proxy %v, stdout %q; want proxy %v", c.allow, got, out.Stdout, c.proxy)
		}
	}

	bad, err := host.New(host.Config{WorkspaceRoot: filepath.Join(dir, "ws"),
		Sandbox: host.SandboxPolicy{Required: true, AllowNet: []string{"*.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := bad.Exec(context.Background(), host.ExecRequest{Command: "true"}); !errors.Is(err, host.ErrBadAllowNet) {
		t.Errorf("AllowNet *.com: err = %v, want ErrBadAllowNet", err)
	}
}
