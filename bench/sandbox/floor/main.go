//go:build unix

// Command floor is the least a Go program does to run a shell command the
// way agent-host exec --no-sandbox must: find bash on PATH, start
// `bash -c COMMAND` in its own session (so that its whole process group
// can be killed), wait for it, and, when SIGINT or SIGTERM comes, kill the
// group instead of dying and leaving it behind. It has none of
// agent-host's limits, pipes or jail; bench/sandbox measures it beside
// agent-host as the floor any Go program starting a shell reaches on the
// machine (docs/adr/0011).
//
// Usage: floor [-nosig] [-empty] -- COMMAND
//
// -nosig leaves the signals alone (the process dies at Ctrl-C and the
// command lives on: not enough for agent-host, the bare start and wait);
// -empty returns at once (the Go runtime's own start and exit).
package main

import (
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	args := os.Args[1:]
	sig := true
	for len(args) > 0 && args[0] != "--" {
		switch args[0] {
		case "-empty":
			return
		case "-nosig":
			sig = false
		}
		args = args[1:]
	}
	if len(args) < 2 {
		os.Stderr.WriteString("usage: floor [-nosig] [-empty] -- COMMAND\n")
		os.Exit(2)
	}
	// As agent-host does: the handlers go in from a goroutine, and the
	// command starts once they are in, so no signal is left unhandled.
	c := make(chan os.Signal, 1)
	ready := make(chan struct{})
	if sig {
		go func() {
			signal.Notify(c, os.Interrupt, syscall.SIGTERM)
			close(ready)
		}()
	}
	bash := lookPath("bash")
	if sig {
		<-ready
	}
	pid, err := syscall.ForkExec(bash, []string{"bash", "-c", strings.Join(args[1:], " ")}, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		os.Stderr.WriteString("floor: " + err.Error() + "\n")
		os.Exit(126)
	}
	if sig {
		go func() {
			<-c
			syscall.Kill(-pid, syscall.SIGKILL)
		}()
	}
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	syscall.Kill(-pid, syscall.SIGKILL) // what the command left in its group
	os.Exit(ws.ExitStatus())
}

// lookPath finds name on PATH as os/exec's LookPath would for a plain
// name (a regular file with an execute bit), without linking os/exec.
func lookPath(name string) string {
	for _, dir := range strings.Split(os.Getenv("PATH"), ":") {
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + name
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Mode&0o111 != 0 {
			return p
		}
	}
	return name
}
