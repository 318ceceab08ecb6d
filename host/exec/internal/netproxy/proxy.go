package netproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Resolver returns the addresses of a normalised name. The proxy calls
// it once per request and dials only addresses it returned and checked.
type Resolver func(ctx context.Context, name string) ([]netip.Addr, error)

// Dialer opens a TCP connection to address ("ip:port", never a name).
type Dialer func(ctx context.Context, network, address string) (net.Conn, error)

// Defaults of Config's bounds.
const (
	DefaultMaxConns       = 256
	DefaultBufferSize     = 64 << 10
	DefaultHeaderTimeout  = 10 * time.Second
	DefaultDialTimeout    = 15 * time.Second
	DefaultIdleTimeout    = 5 * time.Minute
	DefaultMaxHeaderBytes = 32 << 10
)

// Config is what Start needs. Zero fields take the defaults above.
type Config struct {
	// Allow is the allow list; nil allows nothing (every request is
	// refused and recorded).
	Allow *AllowList
	// Resolve resolves names; nil uses net.DefaultResolver (the Host's
	// DNS, outside the sandbox) on the rooted name, so that no search
	// domain turns an allowed "registry.npmjs.org" into another host (a
	// name of one label, "intranet", is looked up as the system would).
	// Tests map their names to loopback.
	Resolve Resolver
	// Dial opens upstream connections; nil uses a net.Dialer.
	Dial Dialer
	// MaxConns bounds the client connections served at once; one more
	// gets "503" and is closed.
	MaxConns int
	// BufferSize is the copy buffer of each direction of a connection:
	// the bytes in flight per connection are at most twice this.
	BufferSize int
	// HeaderTimeout bounds the time from accept to a complete request
	// head, and from "200 Connection established" to a complete TLS
	// ClientHello (slowloris).
	HeaderTimeout time.Duration
	// DialTimeout bounds resolving and connecting upstream.
	DialTimeout time.Duration
	// IdleTimeout closes a connection when no byte has moved in either
	// direction for this long.
	IdleTimeout time.Duration
	// Listener, when set, is served instead of a new listener on
	// 127.0.0.1 port 0 (it must be a TCP listener); the Server closes it.
	Listener net.Listener
	// MaxHeaderBytes bounds a request head (and a plain-HTTP response
	// head): past it the request is refused with 431 (502 upstream).
	MaxHeaderBytes int
}

func (c *Config) fill() {
	if c.Resolve == nil {
		c.Resolve = lookupHost
	}
	if c.Dial == nil {
		var d net.Dialer
		c.Dial = d.DialContext
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defd := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxConns, DefaultMaxConns)
	def(&c.BufferSize, DefaultBufferSize)
	def(&c.MaxHeaderBytes, DefaultMaxHeaderBytes)
	defd(&c.HeaderTimeout, DefaultHeaderTimeout)
	defd(&c.DialTimeout, DefaultDialTimeout)
	defd(&c.IdleTimeout, DefaultIdleTimeout)
}

// Server is a running proxy. Its methods are safe for concurrent use.
type Server struct {
	cfg    Config
	ln     net.Listener
	addr   netip.AddrPort
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sem    chan struct{}
	busy   atomic.Int64 // connections refused with 503
	denied denials
}

// Start listens on 127.0.0.1 on a port the kernel picks (or takes
// Config.Listener) and serves until
// ctx ends or Close is called; either closes the listener and every
// connection, client and upstream. The error is the listener's.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg.fill()
	ln := cfg.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("netproxy: listen: %w", err)
		}
	}
	ta, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		ln.Close()
		return nil, fmt.Errorf("netproxy: listen: %v is not a TCP address", ln.Addr())
	}
	s := &Server{
		cfg:  cfg,
		ln:   ln,
		addr: ta.AddrPort(),
		sem:  make(chan struct{}, cfg.MaxConns),
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	stop := context.AfterFunc(s.ctx, func() { ln.Close() })
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer stop()
		s.accept()
	}()
	return s, nil
}

// Addr is the listener's address, "127.0.0.1:PORT".
func (s *Server) Addr() string { return s.addr.String() }

// Port is the listener's port.
func (s *Server) Port() int { return int(s.addr.Port()) }

// Close stops the server and returns once every connection is closed
// and every goroutine of the server has returned. It may be called more
// than once.
func (s *Server) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

// Denied returns a snapshot of the refusals so far, in the order each
// host:port was first refused, and how many refusals of further
// host:ports were only counted (past 256 distinct ones).
func (s *Server) Denied() ([]Denial, int) { return s.denied.snapshot() }

// Busy is the number of connections refused because MaxConns were open.
func (s *Server) Busy() int64 { return s.busy.Load() }

func (s *Server) accept() {
	backoff := 5 * time.Millisecond
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// EMFILE and the like: wait and try again, as net/http does.
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		select {
		case s.sem <- struct{}{}:
		default:
			s.busy.Add(1)
			c.SetWriteDeadline(time.Now().Add(time.Second))
			c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
			c.Close()
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.sem }()
			s.serve(c)
		}()
	}
}

// lookupHost is the default Resolver: a name with a dot is looked up as
// rooted ("name."), which skips resolv.conf's search list.
func lookupHost(ctx context.Context, name string) ([]netip.Addr, error) {
	if strings.Contains(name, ".") {
		name += "."
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", name)
}
