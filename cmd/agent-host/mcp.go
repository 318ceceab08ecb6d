package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/agenthost/agenthost/internal/cli"
)

func init() {
	register("mcp", cli.MCPSummary, cmdMCP)
}

// mcpProgram is the MCP server's program name. It is a program of its own
// so that agent-host, which every hook and CLI call starts, does not link
// the MCP SDK and run its initializers (ADR 0011).
const mcpProgram = "agent-host-mcp"

// mcpInstall is the command that installs both programs.
const mcpInstall = "CGO_ENABLED=0 go install ./cmd/... (in a clone of agenthost; the module is not published yet)"

// errNoMCPProgram is findMCP's error when agent-host-mcp is nowhere.
var errNoMCPProgram = errors.New(mcpProgram + " not found")

// cmdMCP is agent-host mcp: it replaces this process with agent-host-mcp
// (execve: the server gets this process's id, stdin, stdout, stderr and
// environment, with no process in between), passing it the arguments
// after "mcp" unchanged, so agent-host-mcp parses the flags and answers
// --help itself. When agent-host-mcp is missing it says how to install it
// and returns 2; when the exec fails, 1.
func cmdMCP(args []string, _ io.Reader, _, stderr io.Writer) int {
	path, err := findMCP()
	if err != nil {
		fmt.Fprintf(stderr, "agent-host mcp: the MCP server is the program %s, found neither beside agent-host nor on PATH; install both programs with:\n  %s\n(or, in a checkout, go run ./cmd/agent-host-mcp with the same flags)\n", mcpProgram, mcpInstall)
		return exitUsage
	}
	argv := append([]string{mcpProgram}, args...)
	if runtime.GOOS == "windows" { // no execve: run it as a child with this process's stdio
		cmd := exec.Command(path, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode()
			}
			return fail(stderr, "mcp", err, exitOther)
		}
		return exitOK
	}
	err = syscall.Exec(path, argv, os.Environ())
	return fail(stderr, "mcp", fmt.Errorf("running %s: %w", path, err), exitOther)
}

// findMCP is the path of agent-host-mcp: the one in the directory of this
// program's executable (its links resolved, so a link to agent-host on
// PATH finds the real install beside it), else the first on PATH, else
// errNoMCPProgram.
func findMCP() (string, error) {
	name := mcpProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		// The user's own install, not a path from a model: resolving its
		// links here is not the jail's business (internal/archtest).
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(mcpProgram); err == nil {
		return p, nil
	}
	return "", errNoMCPProgram
}
