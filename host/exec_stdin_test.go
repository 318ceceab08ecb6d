//go:build unix

package host_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host"
)

// TestExecStdinAndStreams: through the Host, with and without its
// sandbox, a command reads Stdin and streams into Stdout uncut.
func TestExecStdinAndStreams(t *testing.T) {
	dir := execTree(t)
	for _, policy := range []host.SandboxPolicy{{Off: true}, {Required: true}} {
		h, err := host.New(host.Config{WorkspaceRoot: filepath.Join(dir, "ws"), Sandbox: policy})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		out, err := h.Exec(context.Background(), host.ExecRequest{Command: "wc -c", Stdin: strings.NewReader(strings.Repeat("z", 123456))})
		if errors.Is(err, host.ErrNoSandbox) {
			t.Logf("no sandbox here: %v", err)
			continue
		}
		if err != nil || strings.TrimSpace(out.Stdout) != "123456" || (out.Sandbox == nil) != policy.Off {
			t.Fatalf("policy %+v: %+v, %v", policy, out, err)
		}
		var stdout bytes.Buffer
		out, err = h.Exec(context.Background(), host.ExecRequest{Command: "cat; seq 1 20000", Stdin: strings.NewReader("in\n"), Stdout: &stdout})
		if err != nil || out.Stdout != "" || !strings.HasPrefix(stdout.String(), "in\n1\n") || stdout.Len() != 3+108894 {
			t.Fatalf("policy %+v: streamed %d bytes, %+v, %v", policy, stdout.Len(), out, err)
		}
	}
}
