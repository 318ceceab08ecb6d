package exec

import (
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"time"
)

// stdinFeed is the copy of a Request.Stdin that is not a file into the
// command's standard input, a pipe.
type stdinFeed struct {
	r    io.Reader     // the caller's reader
	w    *os.File      // our end of the pipe; nil when nothing is copied
	cw   *os.File      // the command's end, ours until the start
	done chan struct{} // closed when the copy has returned
}

// feedStdin gives cmd its standard input from r (see Request.Stdin): nil
// leaves /dev/null, a file is passed as it is, any other reader gets a
// pipe, copied into by a goroutine started once the command has started
// (started), so that a failed start consumes nothing of r. The caller
// calls started after the start, whatever its outcome, and stop once the
// run is over.
func feedStdin(cmd *osexec.Cmd, r io.Reader) (*stdinFeed, error) {
	f := &stdinFeed{}
	switch in := r.(type) {
	case nil:
		return f, nil
	case *os.File:
		if in != nil {
			cmd.Stdin = in
		}
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("exec: stdin: %w", err)
	}
	cmd.Stdin = pr // a file: os/exec hands it over and copies nothing itself
	f.r, f.w, f.cw = r, pw, pr
	return f, nil
}

// started closes the command's end of the pipe in this process (the
// command has its copy, so the copy fails with EPIPE once the command and
// its heirs are gone) and, when the command started (err is nil), starts
// the copy.
func (f *stdinFeed) started(err error) {
	if f == nil || f.w == nil {
		return
	}
	f.cw.Close()
	if err != nil {
		return
	}
	f.done = make(chan struct{})
	go func() {
		defer close(f.done)
		// An error is the command's (it stopped reading: EPIPE) or the
		// reader's; either way the command sees end of file.
		_, _ = io.Copy(f.w, f.r)
		f.w.Close()
	}()
}

// stop ends the copy: closing our end of the pipe makes a write blocked
// on a full pipe return at once; a Read of the caller's reader in
// progress is waited for up to grace, then left to end by itself (the
// copy calls Read no more once it returns).
func (f *stdinFeed) stop(grace time.Duration) {
	if f == nil || f.w == nil {
		return
	}
	f.cw.Close() // in case the run failed before the start
	f.w.Close()
	if f.done != nil {
		waitFor(f.done, grace)
	}
}
