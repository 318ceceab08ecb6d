package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// spec is one run, shell or not, after defaulting.
type spec struct {
	path     string   // program, looked up on PATH unless it has a separator
	args     []string // arguments after argv[0]
	cwd      string
	dir      *os.File // when set, where to start (cwd only names it)
	env      []string // additions to the environment
	timeout  time.Duration
	combined bool
	sandbox  *Sandbox   // nil: not confined
	stdin    io.Reader  // nil: /dev/null
	stdout   io.Writer  // nil: captured
	stderr   io.Writer  // nil: captured
	maxOut   int        // the capture limit, defaults applied
	in       *stdinFeed // the copy of stdin, told when the command started
	// start, when set, starts cmd in place of startProc: a confined
	// run's helper (sandboxRun.start).
	start func(cmd *osexec.Cmd) (*proc, error)
}

// begin starts cmd and returns its leader: with s.start when set, else
// startProc.
func (s spec) begin(cmd *osexec.Cmd) (*proc, error) {
	if s.start != nil {
		return s.start(cmd)
	}
	return startProc(cmd)
}

// sinks returns the writers of the run's pipes, in the order the
// supervisors make them (standard output, then standard error; one pipe
// when combined), nil for a pipe that is captured.
func (s spec) sinks() []io.Writer {
	if s.combined {
		if s.stdout != nil {
			return []io.Writer{s.stdout}
		}
		return []io.Writer{s.stderr}
	}
	return []io.Writer{s.stdout, s.stderr}
}

// streaming reports whether some output goes to a writer.
func (s spec) streaming() bool { return s.stdout != nil || s.stderr != nil }

// quietEnv is set for every command so that nothing waits for a human:
// pagers print straight through and git fails instead of prompting for a
// password.
var quietEnv = []string{"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"}

// readBufSize is the size of a reader's buffer: a Linux pipe holds 64 KiB
// by default, so one read empties a full pipe. (Growing the pipe to 1 MiB
// with F_SETPIPE_SZ did not speed up `head -c 1G /dev/zero`, whose 4 KiB
// writes are the bottleneck, and it spends the user's pipe-user-pages-soft
// budget shared with every other program, so pipes keep their default.)
const readBufSize = 64 << 10

var readBufs = sync.Pool{New: func() any { b := make([]byte, readBufSize); return &b }}

// stream is one pipe the command writes to and the goroutine reading it.
type stream struct {
	r    *os.File
	mu   sync.Mutex // guards buf: a reader abandoned after DrainGrace may still write
	buf  *headTail
	sink io.Writer // when set, gets the bytes instead of buf
	// grace, once set (after the group was killed, in a streaming run),
	// is how long in all the reader may still wait in Read for new bytes,
	// and it reads at most maxAfterKill bytes more: a process that
	// escaped the group cannot hold the run, by trickling or by flooding,
	// while a slow sink (time spent in Write does not count) still gets
	// what the group left in the pipe.
	grace atomic.Int64
}

// maxAfterKill bounds what a streaming run still reads once its group is
// dead: what was left in the pipe, at most its size (1 MiB, Linux's
// pipe-max-size, for a pipe the command enlarged).
const maxAfterKill = 1 << 20

// read copies the pipe into buf until EOF, an error or the read deadline,
// then calls done.
func (s *stream) read(done func()) {
	defer done()
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	b := *bp
	var budget time.Duration // of waiting in Read, once the group is dead
	left := -1               // bytes still to read then; -1: not yet
	for {
		var n int
		var err error
		if d := s.grace.Load(); d > 0 {
			if left < 0 {
				budget, left = time.Duration(d), maxAfterKill
			}
			if budget <= 0 || left <= 0 {
				return
			}
			s.r.SetReadDeadline(time.Now().Add(budget))
			t0 := time.Now()
			n, err = s.r.Read(b[:min(len(b), left)])
			budget -= time.Since(t0)
			left -= n
		} else {
			n, err = s.r.Read(b)
		}
		if n > 0 && s.sink != nil {
			if _, werr := s.sink.Write(b[:n]); werr != nil {
				// Nobody takes the output any more: the command's next
				// write fails, as in a pipeline whose reader went away.
				s.r.Close()
				return
			}
		} else if n > 0 {
			s.mu.Lock()
			s.buf.Write(b[:n])
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (s *stream) render(limit int) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.render(limit)
}

// run starts s and supervises it to the end; see the package
// documentation for the sequence of drain, signals and deadlines.
func (r *Runner) run(ctx context.Context, s spec) (Output, error) {
	out, err := r.runOnce(ctx, s)
	if err != nil && errors.Is(err, errNamespacesRefused) {
		// The kernel refused the namespaces: try once more without them
		// (a Required sandbox then fails with ErrNoSandbox).
		nsBroken.Store(true)
		out, err = r.runOnce(ctx, s)
	}
	return out, err
}

// errNamespacesRefused marks a start the kernel refused for its
// namespaces.
var errNamespacesRefused = errors.New("exec: namespaces refused")

func (r *Runner) runOnce(ctx context.Context, s spec) (Output, error) {
	cmd, err := prepare(ctx, s)
	if err != nil {
		return Output{}, err
	}
	sr, err := r.wrap(ctx, cmd, s)
	if err != nil {
		return Output{}, err
	}
	if sr != nil && sr.confined() {
		s.start = sr.start
	}
	in, err := feedStdin(cmd, s.stdin)
	if err != nil {
		if sr != nil {
			sr.close()
		}
		return Output{}, err
	}
	s.in = in
	var out Output
	handled := false
	if !s.streaming() {
		out, handled, err = r.runPolled(ctx, cmd, s)
	}
	if !handled {
		out, err = r.runWatched(ctx, cmd, s)
	}
	in.stop(r.limits.DrainGrace)
	if sr == nil {
		return out, err
	}
	if err != nil {
		sr.close()
		if sr.usedNS && startRefused(err) {
			return Output{}, fmt.Errorf("%w: %w", errNamespacesRefused, err)
		}
		return Output{}, err
	}
	if err := sr.finish(&out); err != nil {
		if errors.Is(err, ErrNoStartDir) {
			return Output{}, err // nothing ran
		}
		return out, err
	}
	return out, nil
}

// prepare checks what can be checked before a start and builds the
// command, without its standard output and error.
func prepare(ctx context.Context, s spec) (*osexec.Cmd, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("exec: not started: %w", err)
	}
	if s.cwd != "" && s.dir == nil {
		fi, err := os.Stat(s.cwd)
		if err != nil {
			return nil, fmt.Errorf("exec: working directory: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("exec: working directory: %w",
				&fs.PathError{Op: "chdir", Path: s.cwd, Err: syscall.ENOTDIR})
		}
	}
	cmd := osexec.Command(s.path, s.args...)
	if cmd.Err != nil {
		return nil, fmt.Errorf("exec: %w", cmd.Err)
	}
	cmd.Dir = s.cwd
	if s.dir != nil {
		cmd.Dir = dirPath(s.dir, s.cwd)
	}
	cmd.Env = append(os.Environ(), quietEnv...)
	if s.cwd != "" {
		// Our own $PWD would be wrong for the child; a caller's Env may
		// still replace this one.
		cmd.Env = append(cmd.Env, "PWD="+s.cwd)
	}
	cmd.Env = append(cmd.Env, s.env...)
	setProcAttr(cmd)
	return cmd, nil
}

// runWatched is the portable supervisor: a goroutine per pipe reading it,
// one watching the leader, and this one reacting to them, the timeout and
// the context.
func (r *Runner) runWatched(ctx context.Context, cmd *osexec.Cmd, s spec) (Output, error) {
	lim := r.limits
	var streams []*stream
	var writers []*os.File
	closeAll := func() {
		for _, w := range writers {
			w.Close()
		}
		for _, st := range streams {
			st.r.Close()
		}
	}
	npipes := 2
	if s.combined {
		npipes = 1
	}
	for range npipes {
		pr, pw, err := outputPipe()
		if err != nil {
			closeAll()
			return Output{}, fmt.Errorf("exec: %w", err)
		}
		streams = append(streams, &stream{r: pr, buf: newHeadTail(s.maxOut), sink: s.sinks()[len(streams)]})
		writers = append(writers, pw)
	}
	cmd.Stdout = writers[0]
	cmd.Stderr = writers[len(writers)-1]

	start := time.Now()
	p, err := s.begin(cmd)
	s.in.started(err)
	if err != nil {
		closeAll()
		return Output{}, fmt.Errorf("exec: %w", err)
	}
	for _, w := range writers {
		w.Close() // the child has its copies; EOF comes when it and its heirs close them
	}
	ldr := watch(p)

	allRead := make(chan struct{})
	var pending atomic.Int32
	pending.Store(int32(len(streams)))
	readerDone := func() {
		if pending.Add(-1) == 0 {
			close(allRead)
		}
	}
	for _, st := range streams {
		go st.read(readerDone)
	}

	out := Output{Timeout: s.timeout, Pid: p.pid}
	timer := time.NewTimer(s.timeout)
	select {
	case <-ldr.exited:
		// The leader is gone; what it wrote is in the pipes. Give a
		// background job a moment to finish writing, then kill the
		// group whether or not the pipes closed.
		waitFor(allRead, lim.DrainGrace)
	case <-timer.C:
		out.TimedOut = true
		terminate(ldr, allRead, lim.KillGrace)
	case <-ctx.Done():
		out.Cancelled = true
		terminate(ldr, allRead, lim.KillGrace)
	}
	timer.Stop()
	ldr.kill()
	<-ldr.exited

	// Every process of the group is dead or dying, and their ends of the
	// pipes close as they go. A process that left the group may still
	// hold them: read for DrainGrace more, then stop.
	select {
	case <-allRead:
	default:
		if streamOn(streams, s, lim.DrainGrace) {
			// Until every byte the group left is written to its
			// sink; the readers' own bounds end the wait.
			<-allRead
			break
		}
		deadline := time.Now().Add(lim.DrainGrace)
		for _, st := range streams {
			st.r.SetReadDeadline(deadline)
		}
		// Where pipes have no deadlines, abandon the readers.
		waitFor(allRead, 2*lim.DrainGrace)
	}
	state := ldr.reap()
	for _, st := range streams {
		st.r.Close()
	}
	out.Duration = time.Since(start)

	setStatus(&out, state)
	var t1, t2 bool
	if s.combined {
		out.Combined, t1 = streams[0].render(s.maxOut)
	} else {
		out.Stdout, t1 = streams[0].render(s.maxOut)
		out.Stderr, t2 = streams[1].render(s.maxOut)
	}
	out.Truncated = t1 || t2
	return out, nil
}

// streamOn, for a streaming run, bounds each reader's waits for new
// bytes to grace in all from now on (see stream.grace) and reports true, so that the caller waits for the
// readers however long their sinks take (a slow terminal, a pager)
// without losing the end of the output. It reports false for a capturing
// run or where pipes have no read deadlines: the caller then abandons
// the readers after a fixed time.
func streamOn(streams []*stream, s spec, grace time.Duration) bool {
	if !s.streaming() {
		return false
	}
	for _, st := range streams {
		st.grace.Store(int64(grace))
		err := st.r.SetReadDeadline(time.Now().Add(grace)) // wakes a Read waiting now
		if errors.Is(err, os.ErrNoDeadline) {
			return false
		}
	}
	return true
}

// exitStatus is how a leader ended, as its reap found it.
type exitStatus struct {
	known  bool           // false: the wait failed, nothing is known
	code   int            // the exit code; -1 when a signal ended it
	signal syscall.Signal // the signal that ended it, or 0
}

// statusOf is the exitStatus of a process os/exec waited for.
func statusOf(state *os.ProcessState) exitStatus {
	if state == nil {
		return exitStatus{}
	}
	st := exitStatus{known: true, code: state.ExitCode()}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		st.code, st.signal = -1, ws.Signal()
	}
	return st
}

// setStatus fills out's ExitCode and Signal from how the leader ended.
func setStatus(out *Output, st exitStatus) {
	if !st.known {
		return
	}
	out.ExitCode = st.code
	if st.signal != 0 {
		out.ExitCode = -1
		out.Signal = signalName(st.signal)
	}
}

// terminate asks the group to stop with SIGTERM and waits up to grace for
// the leader to exit and the pipes to close.
func terminate(ldr *leader, allRead <-chan struct{}, grace time.Duration) {
	ldr.terminate()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-ldr.exited:
	case <-t.C:
		return
	}
	select {
	case <-allRead:
	case <-t.C:
	}
}

// waitFor waits until c is closed or d has passed.
func waitFor(c <-chan struct{}, d time.Duration) {
	select {
	case <-c:
		return
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c:
	case <-t.C:
	}
}
