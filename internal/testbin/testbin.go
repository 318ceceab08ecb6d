// Package testbin builds the agent-host programs for tests that run them as
// real processes. It is test support: only _test.go files import it.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// Main is a TestMain for packages that drive agent-host as a process: it
// builds cmd/agent-host and cmd/agent-host-mcp (static, CGO_ENABLED=0)
// into one temporary directory, as go install puts them side by side, so
// that "agent-host mcp" finds its server; stores agent-host's path in
// *bin, runs the tests, checks with goleak that they left no
// goroutine behind when they passed, removes the directory and exits with
// the tests' code (2 when the build fails).
func Main(m *testing.M, bin *string) {
	dir, err := os.MkdirTemp("", "agent-host-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	*bin = filepath.Join(dir, "agent-host")
	// Built as it ships: static, without cgo (see the README's install
	// command), whatever CGO_ENABLED the test run itself uses (-race
	// needs cgo).
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/agenthost/agenthost/cmd/agent-host", "github.com/agenthost/agenthost/cmd/agent-host-mcp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building agent-host and agent-host-mcp:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
