package mcpserver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
)

const (
	// rootsTimeout bounds one roots/list request to the client. A client
	// answers from memory; one that takes longer is stuck, and its roots
	// are asked for again on its next list_changed.
	rootsTimeout = 10 * time.Second
	// rootsWait is how long a tool call waits for a roots/list in flight
	// before it runs with the roots already known. A call made right after
	// initialize should see the client's roots; a client that never answers
	// must not stall every call.
	rootsWait = 2 * time.Second
	// legacyProtocolMax is the last protocol version in which a server may
	// send roots/list on its own; from 2026-07-28 on it may not.
	legacyProtocolMax = "2025-11-25"
)

// clientRoots tracks the roots a client gave. The command-line roots are
// the Host's from the start and always stay; a client's are added with
// AddRoot as they come, and removed with RemoveRoot when a later
// roots/list (after roots/list_changed) no longer offers them.
type clientRoots struct {
	h   *host.Host
	ctx context.Context // the session's; set by Run

	mu      sync.Mutex                    // serializes refreshes
	pending atomic.Pointer[chan struct{}] // closed when the refresh in flight ends
	known   map[string]bool               // canonical roots the client gave and the server added
	fixed   map[string]bool               // the Host's roots before any client root: never removed
}

func (r *clientRoots) init(h *host.Host) {
	r.h, r.known, r.fixed = h, map[string]bool{}, map[string]bool{}
	for _, root := range h.Roots() {
		r.fixed[root] = true
	}
}

// initialized asks the client for its roots once the session is ready, if
// it supports them and the protocol lets the server ask.
func (s *Server) initialized(ctx context.Context, req *mcp.InitializedRequest) {
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil || ip.ProtocolVersion > legacyProtocolMax {
		return
	}
	s.refreshRoots(req.Session)
}

// rootsChanged asks the client for its roots again.
func (s *Server) rootsChanged(ctx context.Context, req *mcp.RootsListChangedRequest) {
	ip := req.Session.InitializeParams()
	if ip != nil && ip.ProtocolVersion > legacyProtocolMax {
		return
	}
	s.refreshRoots(req.Session)
}

// refreshRoots sends roots/list from a goroutine of its own: it is called
// from a notification handler, which the SDK runs on the connection's read
// loop, so waiting there for the answer would wait forever. Tool calls that
// arrive meanwhile wait for it (waitRoots).
func (s *Server) refreshRoots(ss *mcp.ServerSession) {
	done := make(chan struct{})
	s.rts.pending.Store(&done)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.rts.pending.CompareAndSwap(&done, nil)
			close(done)
		}()
		s.rts.mu.Lock()
		defer s.rts.mu.Unlock()
		ctx, cancel := context.WithTimeout(s.rts.ctx, rootsTimeout)
		defer cancel()
		res, err := ss.ListRoots(ctx, nil)
		if err != nil {
			if s.rts.ctx.Err() == nil {
				s.log.Printf("agent-host mcp: roots/list: %v", err)
			}
			return
		}
		offered := map[string]bool{}
		for _, root := range res.Roots {
			p, err := PathFromURI(root.URI)
			if err != nil {
				s.log.Printf("agent-host mcp: client root skipped: %v", err)
				continue
			}
			canon, err := s.h.AddRoot(p)
			if err != nil {
				s.log.Printf("agent-host mcp: client root %s not added: %v", root.URI, err)
				continue
			}
			if s.rts.fixed[canon] {
				continue // a command-line root: the client cannot take it away
			}
			offered[canon] = true
			if !s.rts.known[canon] {
				s.rts.known[canon] = true
				s.addRootResource(canon)
			}
		}
		// A client root no longer offered is withdrawn: operations that
		// start from now on cannot reach it.
		for canon := range s.rts.known {
			if offered[canon] {
				continue
			}
			if err := s.h.RemoveRoot(canon); err != nil {
				s.log.Printf("agent-host mcp: client root %s not removed: %v", canon, err)
				continue
			}
			delete(s.rts.known, canon)
			s.mcp.RemoveResources(FileURI(canon))
		}
	}()
}

// waitRoots waits, up to rootsWait, for a roots/list in flight.
func (s *Server) waitRoots(ctx context.Context) {
	p := s.rts.pending.Load()
	if p == nil {
		return
	}
	t := time.NewTimer(rootsWait)
	defer t.Stop()
	select {
	case <-*p:
	case <-ctx.Done():
	case <-t.C:
	}
}
