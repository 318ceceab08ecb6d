//go:build unix

package main

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWalkInterrupt: an interrupt (SIGINT) that reaches a walk once it has
// run for longer than interruptAfter stops it cleanly: the lines found so
// far are printed whole and the exit status is 130, as exec and read give
// (issue 25), not a death by signal.
// The walk is held past that time by a pipe nobody reads until the
// signal is sent; its output is larger than the pipe's buffer and the
// walk's own, so it cannot have ended before.
func TestWalkInterrupt(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	files := map[string]string{}
	for i := range 4000 {
		files[fmt.Sprintf("d%02d/a-file-name-long-enough-to-fill-the-pipe-%04d.txt", i%40, i)] = ""
	}
	writeFiles(t, w.ws, files)
	cmd := w.cmd("walk", "--no-ignore")
	out, errb := w.start(cmd)
	time.Sleep(interruptAfter + 400*time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The handler's goroutines cancel the walk while it is held; the pipe
	// is drained slowly too, so that a loaded machine that runs them late
	// still sees the walk stop before its end.
	time.Sleep(300 * time.Millisecond)
	var got []byte
	chunk := make([]byte, 4096)
	for {
		n, err := out.Read(chunk)
		got = append(got, chunk[:n]...)
		if err != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("walk ended with %v after an interrupt, want exit status 130", err)
	}
	if ee.ExitCode() != execCancelled {
		t.Fatalf("walk after an interrupt: %v (stderr %q), want exit status 130", ee, errb.String())
	}
	lines := strings.Split(string(got), "\n")
	if last := lines[len(lines)-1]; last != "" {
		t.Errorf("output ends in a partial line %q", last)
	}
	if n := len(lines) - 1; n == 0 || n >= len(files) {
		t.Errorf("%d lines printed after an interrupt, want some of the %d", n, len(files))
	}
}
