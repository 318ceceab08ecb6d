package invalidation

import (
	"context"
	"errors"
	"fmt"
	"log"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
)

// DefaultQueueLen is a subscriber's queue length when Publisher.QueueLen is 0.
// A tool invocation publishes one notice (and rarely a late one), and an agent
// runs a handful of tools at once, so a subscriber that keeps up at all never
// has 256 notices waiting; past that the queue is merged, not dropped, so the
// number bounds memory (256 notices and their paths), not correctness.
const DefaultQueueLen = 256

// ErrClosed is returned by Subscribe on a closed Publisher.
var ErrClosed = errors.New("invalidation: publisher closed")

// Sink receives notices. Notify is called from the subscriber's own
// goroutine, one notice at a time, in order of sequence number; it may block
// (the tools go on, and what it misses meanwhile is merged into wider notices)
// and it may panic (recovered and reported, and delivery goes on). It must not
// call its Publisher's Flush or Close, which would wait for Notify itself to
// return (until their ctx is done).
type Sink interface {
	Notify(n Notice)
}

// SinkFunc adapts a func to a Sink.
type SinkFunc func(n Notice)

// Notify calls f(n).
func (f SinkFunc) Notify(n Notice) { f(n) }

// PanicError reports a panic of a Sink: the value it panicked with, the
// notice it was given, and the stack of the panicking goroutine.
type PanicError struct {
	Sink   Sink
	Notice Notice
	Value  any
	Stack  []byte
}

// Error returns "invalidation: sink panicked on notice N: VALUE".
func (e *PanicError) Error() string {
	return fmt.Sprintf("invalidation: sink panicked on notice %d: %v", e.Notice.Seq, e.Value)
}

// Stats are counters of a Publisher since it was first used.
type Stats struct {
	Published   uint64 // notices published (sequence numbers given)
	Subscribers int    // subscribers now
	Widened     uint64 // times a full queue was merged into one wider notice
	Panics      uint64 // sink panics recovered
}

// Publisher fans notices out to its subscribers, in order, without ever
// blocking a publisher on a subscriber. The zero value is ready to use; a nil
// *Publisher is valid too and means "no sink": Begin returns a nil
// *Invocation and nothing is built or published.
//
// Set the exported fields before the first Subscribe and do not change them
// afterwards.
type Publisher struct {
	// QueueLen is each subscriber's queue length: how many notices may wait
	// for it before what waits is merged into one wider notice. 0 means
	// DefaultQueueLen; 1 is allowed (every notice that finds the subscriber
	// busy is merged).
	QueueLen int
	// OnPanic is called, from the panicking subscriber's goroutine, with every
	// panic recovered from a Sink; delivery goes on afterwards. A panic in
	// OnPanic itself is recovered and ignored. nil means the standard logger
	// (log.Printf) reports it. Like a Sink, it must not call Flush or Close.
	OnPanic func(*PanicError)

	nsubs atomic.Int32 // len(subs), read without mu on End's fast path

	mu      sync.Mutex // orders publication; held only for bounded work, never around a Sink
	seq     uint64
	subs    []*subscriber // receiving notices
	running []*subscriber // every subscriber whose goroutine may still run
	closed  bool

	widened, panics atomic.Uint64
}

// SubscribeOption adjusts one subscription.
type SubscribeOption func(*subscriber)

// WithQueueLen sets this subscriber's queue length, overriding
// Publisher.QueueLen; n <= 0 leaves the Publisher's.
func WithQueueLen(n int) SubscribeOption {
	return func(s *subscriber) {
		if n > 0 {
			s.qlen = n
		}
	}
}

// Subscribe adds sink as a subscriber and starts its delivery goroutine. The
// sink receives every notice published after Subscribe returns (an
// invocation that began earlier but ends later included), until cancel is
// called or the Publisher is closed. cancel stops delivery without waiting:
// notices still queued for the sink are dropped, and a Notify in progress is
// not interrupted. cancel may be called more than once.
//
// Subscribe returns ErrClosed after Close, and panics on a nil sink.
func (p *Publisher) Subscribe(sink Sink, opts ...SubscribeOption) (cancel func(), err error) {
	if sink == nil {
		panic("invalidation: Subscribe with a nil Sink")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	qlen := p.QueueLen
	if qlen <= 0 {
		qlen = DefaultQueueLen
	}
	s := &subscriber{
		pub:    p,
		sink:   sink,
		qlen:   qlen,
		done:   p.seq,
		wake:   make(chan struct{}, 1),
		exited: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	p.subs = append(p.subs, s)
	p.nsubs.Store(int32(len(p.subs)))
	p.running = slices.DeleteFunc(p.running, (*subscriber).hasExited)
	p.running = append(p.running, s)
	go s.run()
	return sync.OnceFunc(func() { p.remove(s, false) }), nil
}

// remove takes s off the list of receivers and stops its goroutine, after it
// has delivered what is queued (drain) or at once (dropping the queue).
func (p *Publisher) remove(s *subscriber, drain bool) {
	p.mu.Lock()
	if i := slices.Index(p.subs, s); i >= 0 {
		p.subs = slices.Delete(p.subs, i, i+1)
		p.nsubs.Store(int32(len(p.subs)))
	}
	p.mu.Unlock()
	s.stop(drain)
}

// publish gives n the next sequence number and queues it for every
// subscriber. It never blocks on a subscriber.
func (p *Publisher) publish(n Notice) {
	p.mu.Lock()
	if len(p.subs) == 0 {
		p.mu.Unlock()
		return
	}
	p.seq++
	n.Seq, n.FirstSeq, n.Merged = p.seq, p.seq, 1
	for _, s := range p.subs {
		s.push(&n)
	}
	p.mu.Unlock()
}

// Flush waits until every notice published before the call has been delivered
// to every subscriber (its Notify returned, or panicked), or until ctx is
// done, and then returns ctx.Err(). Notices merged while waiting count as
// delivered when the merged notice is. A subscriber cancelled meanwhile is not
// waited for. Flush on a nil Publisher returns nil at once.
func (p *Publisher) Flush(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	target := p.seq
	subs := slices.Clone(p.subs)
	p.mu.Unlock()
	for _, s := range subs {
		if err := s.waitDone(ctx, target); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the Publisher: later invocations publish nothing and Subscribe
// returns ErrClosed. What is queued is still delivered; Close waits for every
// subscriber goroutine to finish (cancelled ones included) or for ctx to be
// done, and then returns ctx.Err(): a Sink that never returns keeps its
// goroutine alive until it does, and only ctx bounds the wait. Close may be
// called more than once; a nil Publisher returns nil.
func (p *Publisher) Close(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.closed = true
	subs := p.subs
	p.subs = nil
	p.nsubs.Store(0)
	running := slices.Clone(p.running)
	p.mu.Unlock()
	for _, s := range subs {
		s.stop(true)
	}
	for _, s := range running {
		select {
		case <-s.exited:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Stats returns the Publisher's counters.
func (p *Publisher) Stats() Stats {
	if p == nil {
		return Stats{}
	}
	p.mu.Lock()
	st := Stats{Published: p.seq, Subscribers: len(p.subs)}
	p.mu.Unlock()
	st.Widened = p.widened.Load()
	st.Panics = p.panics.Load()
	return st
}

func (p *Publisher) reportPanic(e *PanicError) {
	p.panics.Add(1)
	if p.OnPanic == nil {
		log.Printf("%v\n%s", e, e.Stack)
		return
	}
	defer func() { _ = recover() }() // a panicking reporter must not kill delivery
	p.OnPanic(e)
}

// subscriber is one Sink with its queue and delivery goroutine.
type subscriber struct {
	pub  *Publisher
	sink Sink
	qlen int

	wake   chan struct{} // capacity 1: "the queue or the state changed"
	exited chan struct{} // closed when run returns

	mu       sync.Mutex
	queue    []Notice // waiting, in order
	spare    []Notice // the batch buffer handed back by run, reused
	merging  bool     // queue's last notice is a merge still open to more
	done     uint64   // every notice up to this sequence number was delivered
	progress chan struct{}
	stopping bool // run returns once the queue is empty
}

// push queues n (the caller holds pub.mu, so pushes are in sequence order).
// A full queue is merged into one notice; once merged, later notices join
// that notice until run takes the queue.
func (s *subscriber) push(n *Notice) {
	s.mu.Lock()
	// run waits for a wake only after it saw the queue empty under s.mu, so
	// only a push onto an empty queue needs to wake it.
	wake := len(s.queue) == 0
	switch {
	case s.stopping:
	case s.merging:
		widen(&s.queue[len(s.queue)-1], n)
	case len(s.queue) >= s.qlen:
		m := s.queue[0]
		for i := 1; i < len(s.queue); i++ {
			widen(&m, &s.queue[i])
		}
		widen(&m, n)
		clear(s.queue)
		s.queue = append(s.queue[:0], m)
		s.merging = true
		s.pub.widened.Add(1)
	default:
		s.queue = append(s.queue, *n)
	}
	s.mu.Unlock()
	if wake {
		s.signal()
	}
}

func (s *subscriber) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// stop makes run return, after delivering the queue (drain) or at once.
func (s *subscriber) stop(drain bool) {
	s.mu.Lock()
	s.stopping = true
	if !drain {
		clear(s.queue)
		s.queue = s.queue[:0]
		s.merging = false
		s.advanceLocked(^uint64(0)) // nothing more will be delivered: Flush need not wait
	}
	s.mu.Unlock()
	s.signal()
}

func (s *subscriber) hasExited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// run delivers the queue in batches until stopped and empty.
func (s *subscriber) run() {
	clean := false
	defer func() {
		if !clean { // the sink called runtime.Goexit: this goroutine is gone
			s.pub.remove(s, false)
			s.pub.reportPanic(&PanicError{Sink: s.sink, Value: "runtime.Goexit called by the sink; unsubscribed"})
		}
		close(s.exited)
	}()
	for {
		s.mu.Lock()
		for len(s.queue) == 0 {
			if s.stopping {
				s.mu.Unlock()
				clean = true
				return
			}
			s.mu.Unlock()
			<-s.wake
			s.mu.Lock()
		}
		batch := s.queue
		s.queue, s.spare = s.spare[:0], nil
		s.merging = false
		s.mu.Unlock()

		for i := range batch {
			s.deliver(&batch[i])
		}
		last := batch[len(batch)-1].Seq
		clear(batch)

		s.mu.Lock()
		s.spare = batch[:0]
		s.advanceLocked(last)
		s.mu.Unlock()
	}
}

// advanceLocked records delivery up to seq and wakes Flush.
func (s *subscriber) advanceLocked(seq uint64) {
	s.done = max(s.done, seq)
	if s.progress != nil {
		close(s.progress)
		s.progress = nil
	}
}

func (s *subscriber) deliver(n *Notice) {
	defer func() {
		if v := recover(); v != nil {
			s.pub.reportPanic(&PanicError{Sink: s.sink, Notice: *n, Value: v, Stack: debug.Stack()})
		}
	}()
	s.sink.Notify(*n)
}

// waitDone waits until everything up to seq was delivered, or ctx is done.
func (s *subscriber) waitDone(ctx context.Context, seq uint64) error {
	for {
		s.mu.Lock()
		if s.done >= seq {
			s.mu.Unlock()
			return nil
		}
		if s.progress == nil {
			s.progress = make(chan struct{})
		}
		ch := s.progress
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
