//go:build !unix

package main

import (
	"io"
	"os"
	"os/signal"
	"syscall"
)

// brokenPipeIsError, outside Unix, catches SIGPIPE until the function it
// returns is called (see the Unix version) and returns the writers
// unchanged.
func brokenPipeIsError(stdout, stderr io.Writer) (io.Writer, io.Writer, func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGPIPE)
	return stdout, stderr, func() { signal.Stop(c) }
}
