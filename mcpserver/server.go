package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/buildinfo"
	"github.com/agenthost/agenthost/invalidation"
	"github.com/agenthost/agenthost/tools"
)

// Name is the server's name in the initialize result (serverInfo.name).
const Name = "agent-host"

// moduleVersion is serverInfo.version when Options.Version is "": this
// module's version as agent-host --version prints it (a variable for
// tests, whose binaries record none).
var moduleVersion = buildinfo.Version

// closeTimeout bounds how long Run waits, once the session is over, for the
// notices still queued for the client to be written. A client that has gone
// away cannot take them, and nothing is lost by dropping them then.
const closeTimeout = 2 * time.Second

// Options configure a Server. The zero value is a server with every file
// tool, no exec, and its own invalidation publisher.
type Options struct {
	// AllowExec offers the exec and run_capture tools. Off by default: a
	// command runs in the Host's sandbox (see host.Host.Exec), which
	// confines its writes and network, but it still runs code the model
	// wrote.
	AllowExec bool
	// Version is reported as serverInfo.version; "" means the version of
	// this module the program was built from, the one agent-host
	// --version prints ("devel" when the build recorded none).
	Version string
	// Publisher receives each tool call's notice. nil: the server makes its
	// own and closes it when Run returns. A caller's Publisher is not closed.
	Publisher *invalidation.Publisher
	// Hooks are Claude Code command hooks run around each tool call (see
	// tools.Hook); PreToolUse hooks may refuse a call or rewrite its input.
	// Tool names are those of Tools (read_file, write_file, ...).
	Hooks []tools.Hook
	// QueueLen is the length of the queue of notices waiting to be sent to
	// the client (see invalidation.WithQueueLen); 0 means the publisher's.
	QueueLen int
	// MaxMessageBytes is the longest message (one line) the server reads
	// over a stream (see LineTransport); 0 means DefaultMaxMessageBytes. A
	// longer one is answered with an error naming the limit.
	MaxMessageBytes int
	// Log receives what the server has to say outside the protocol (a
	// client root that could not be added, a failed notification). nil
	// means the standard logger; use log.New(io.Discard, "", 0) for silence.
	Log *log.Logger
}

// Server is an MCP server over one Host. Build it with New, then Run it on
// a transport (mcp.StdioTransport for a subprocess server, which Run
// serves with a LineTransport). A Server serves one session at a time.
type Server struct {
	h       *host.Host
	opts    Options
	pub     *invalidation.Publisher
	ownPub  bool
	invoker *tools.Invoker
	mcp     *mcp.Server
	log     *log.Logger

	subs subscriptions
	rts  clientRoots

	schemasMu sync.Mutex
	schemas   map[string]*jsonschema.Schema // tool name -> input schema, for checkArguments

	lend    lender      // values handlers lend the transport (see lender)
	lending atomic.Bool // Run serves a LineTransport that splices them

	walkHint atomic.Int64 // entries the last walk call found, to size the next one's buffers
	heavy    heavySlots   // turns of the heavy tools (heavy.go)
	treeHint atomic.Int64 // bytes of the last directory_tree text, to size the next one's buffers

	stop  context.Context // Run's context: when it is done, calls in flight are cancelled
	ready chan struct{}   // closed when the tools are registered
	wg    sync.WaitGroup  // goroutines the server started (roots requests)
}

// New builds a Server for h. The Host stays the caller's: Run does not close
// it.
func New(h *host.Host, opts Options) (*Server, error) {
	if h == nil {
		return nil, errors.New("mcpserver: nil Host")
	}
	s := &Server{h: h, opts: opts, pub: opts.Publisher, log: opts.Log, stop: context.Background(), schemas: map[string]*jsonschema.Schema{}, heavy: newHeavySlots()}
	if s.log == nil {
		s.log = log.Default()
	}
	if s.pub == nil {
		s.pub, s.ownPub = &invalidation.Publisher{}, true
	}
	s.invoker = &tools.Invoker{Host: h, Publisher: s.pub, Hooks: opts.Hooks}
	s.subs.init()
	s.rts.init(h)
	version := opts.Version
	if version == "" {
		version = moduleVersion()
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "agenthost: jailed files, git-exact walk, bounded exec", Version: version}, &mcp.ServerOptions{
		Instructions: instructions,
		// Stated, not inferred: the tools are registered after New returns
		// (see register). No logging capability; the tool list never
		// changes, the resource list does (a client's roots).
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true},
		},
		InitializedHandler:      s.initialized,
		RootsListChangedHandler: s.rootsChanged,
		SubscribeHandler:        s.subscribe,
		UnsubscribeHandler:      s.unsubscribe,
	})
	// Resources now: adding one after a session exists would send it
	// notifications/resources/list_changed, perhaps before the initialize
	// result. Tools send nothing (their capability says the list never
	// changes), so they can come later.
	s.addResources()
	s.ready = make(chan struct{})
	s.mcp.AddReceivingMiddleware(s.waitReady, s.checkArguments)
	go s.register()
	return s, nil
}

// register adds the tools. Inferring and resolving the JSON schemas of
// fifteen tools is most of a start-up's work (several milliseconds), so it
// runs on its own goroutine while the process reads its first request;
// initialize and server/discover need no tool and are answered at once,
// everything else waits for ready (waitReady).
func (s *Server) register() {
	defer close(s.ready)
	s.addTools()
}

// waitReady holds every request but initialize, server/discover and ping
// until the tools are registered.
func (s *Server) waitReady(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize", "server/discover", "ping":
		default:
			select {
			case <-s.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return next(ctx, method, req)
	}
}

// instructions is the initialize result's instructions: what a model needs
// to know before the first call.
const instructions = `Files are reached through a jail: every path must lie inside one of the allowed roots (list_roots shows them). ` +
	`Relative paths are taken from the workspace root (the first root). ` +
	`Files are exposed as file:// resources; subscribe to a file or a directory to be told when a tool call changes it. ` +
	`A name that is not UTF-8 comes with its exact bytes in path_b64 (name_b64, root_b64: standard base64); to name that file, send path_b64 beside the path text you got.`

// MCP returns the underlying SDK server, for callers that add their own
// tools, prompts or resources before Run. It waits until the server's own
// are registered.
func (s *Server) MCP() *mcp.Server {
	<-s.ready
	return s.mcp
}

// Publisher returns the publisher that receives each tool call's notice.
func (s *Server) Publisher() *invalidation.Publisher { return s.pub }

// Run serves one session on t until the client disconnects or ctx is done.
// Notices of tool calls become resource updates for the session's
// subscriptions while it runs. When Run returns, every goroutine the server
// started has stopped, and a Publisher that New made has been closed. Run
// may be called once.
//
// The SDK's stream transports, *mcp.StdioTransport and *mcp.IOTransport,
// are served by a LineTransport over the same streams (stdin and stdout
// for the first): it answers malformed lines instead of ending the
// session, echoes ids exactly and bounds what a client that does not read
// makes the server hold (docs/adr/0007). A LineTransport without a
// MaxMessageBytes gets Options.MaxMessageBytes. Other transports are used
// as they are.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	t = s.lineTransport(t)
	if lt, ok := t.(*LineTransport); ok && len(s.opts.Hooks) == 0 {
		// Replies go through our transport: handlers may lend it values.
		c := *lt
		c.lender = &s.lend
		t = &c
		s.lending.Store(true)
		defer func() { s.lending.Store(false); s.lend.drop() }()
	}
	cancelSink, err := s.pub.Subscribe(invalidation.SinkFunc(s.notify), invalidation.WithQueueLen(s.opts.QueueLen))
	if err != nil {
		return fmt.Errorf("mcpserver: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s.rts.ctx, s.stop = ctx, ctx
	err = s.mcp.Run(ctx, t)
	cancel()
	<-s.ready
	s.wg.Wait()
	cctx, ccancel := context.WithTimeout(context.Background(), closeTimeout)
	defer ccancel()
	if s.ownPub {
		s.pub.Close(cctx)
	} else {
		s.pub.Flush(cctx)
	}
	cancelSink()
	// The client going away is a clean end, whichever way the transport
	// saw it (io.ErrClosedPipe: a write after the other end of an
	// in-memory pipe closed).
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// runTool is a tools.Tool for one call: fn with the input the SDK decoded,
// or, when a PreToolUse hook rewrote the input, with the rewritten one.
type runTool[In, Out any] struct {
	name  string
	in    In
	raw   json.RawMessage
	fn    func(ctx context.Context, in In) (*mcp.CallToolResult, Out, error)
	res   *mcp.CallToolResult
	out   Out
	hooks bool
}

// Name returns the MCP tool's name, which hooks match.
func (t *runTool[In, Out]) Name() string { return t.name }

// Run calls fn and keeps its result for the MCP handler; with hooks, it
// returns the result as JSON for PostToolUse hooks.
func (t *runTool[In, Out]) Run(ctx context.Context, call tools.Call) (json.RawMessage, error) {
	in := t.in
	if t.hooks && !bytes.Equal(call.Input, t.raw) {
		var upd In
		if err := json.Unmarshal(call.Input, &upd); err != nil {
			return nil, fmt.Errorf("the input a hook gave back does not fit the tool: %w", err)
		}
		if err := applyRawArgs(call.Input, &upd); err != nil {
			return nil, fmt.Errorf("the input a hook gave back does not fit the tool: %w", err)
		}
		in = upd
	}
	res, out, err := t.fn(ctx, in)
	t.res, t.out = res, out
	if err != nil || !t.hooks {
		return nil, err
	}
	// PostToolUse hooks see the result as the model does.
	return json.Marshal(res)
}

// addTool registers a tool whose handler fn runs inside one invalidation
// invocation (through the server's tools.Invoker). An error from fn, or a
// refusal by a hook, becomes a result with isError and the error's text; so
// does a panic (after the invocation has published its notice), which is
// logged with its stack: a bug in one tool must not end the session.
func addTool[In, Out any](s *Server, t *mcp.Tool, fn func(ctx context.Context, in In) (*mcp.CallToolResult, Out, error)) {
	declare[In, Out](s, t)
	hooks := len(s.opts.Hooks) > 0
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		if err := applyRawArgs(req.Params.Arguments, &in); err != nil {
			var zero Out
			return nil, zero, err
		}
		res, out, err := invoke(s, ctx, t.Name, req, in, hooks, fn)
		if err == nil {
			fillRaw(&out) // X_b64 beside a name that is not UTF-8 (rawnames.go)
		}
		return res, out, err
	})
}

// invoke is one call of the tool name, for addTool and addEncodedTool: fn
// inside one invalidation invocation, cancelled when the server stops, a
// panic turned into an error (see addTool), a hook's feedback appended.
func invoke[In, Out any](s *Server, ctx context.Context, name string, req *mcp.CallToolRequest, in In, hooks bool, fn func(ctx context.Context, in In) (*mcp.CallToolResult, Out, error)) (res *mcp.CallToolResult, out Out, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("agent-host mcp: %s panicked: %v\n%s", name, r, debug.Stack())
			var zero Out
			res, out, err = nil, zero, fmt.Errorf("%s failed with an internal error (%v); the server goes on, and the error is in its log", name, r)
		}
	}()
	// The SDK lets a call run on when the server is stopped (it waits
	// for calls in flight before it closes); a stopped server cancels
	// them, so that a command never outlives it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stop, cancel)()
	s.waitRoots(ctx)
	leave, err := s.heavy.enter(ctx, name) // a burst of heavy calls queues (heavy.go)
	if err != nil {
		var zero Out
		return nil, zero, err
	}
	defer leave()
	rt := &runTool[In, Out]{name: name, in: in, raw: req.Params.Arguments, fn: fn, hooks: hooks}
	ir, err := s.invoker.Invoke(ctx, rt, tools.Call{Input: req.Params.Arguments})
	if err != nil {
		var zero Out
		if errors.Is(err, tools.ErrRefused) {
			return nil, zero, fmt.Errorf("%s was refused: %s", name, ir.Reason)
		}
		return nil, zero, err
	}
	if len(ir.Feedback) > 0 || len(ir.AdditionalContext) > 0 {
		if rt.res == nil {
			rt.res = &mcp.CallToolResult{}
		}
		for _, f := range append(ir.Feedback, ir.AdditionalContext...) {
			rt.res.Content = append(rt.res.Content, &mcp.TextContent{Text: f})
		}
	}
	return rt.res, rt.out, nil
}

// addTools registers every tool: the file tools, the reference server's
// names that ours do not already cover (reference.go), read_media_file, the
// walk tools, directory_tree and search_files, send_user_file, and exec
// and run_capture when AllowExec is set.
func (s *Server) addTools() {
	s.addFileTools()
	s.addReferenceTools()
	s.addMediaTool()
	s.addWalkTools()
	s.addTreeTools()
	s.addSendTool()
	if s.opts.AllowExec {
		s.addExecTools()
	}
}

// text is a result holding one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// lineTransport is the transport Run serves t with: a LineTransport for
// the SDK's stream transports, t itself otherwise.
func (s *Server) lineTransport(t mcp.Transport) mcp.Transport {
	switch t := t.(type) {
	case *mcp.StdioTransport:
		// As the SDK's: stdout is not closed with the session.
		return &LineTransport{Reader: os.Stdin, Writer: struct{ io.Writer }{os.Stdout}, MaxMessageBytes: s.opts.MaxMessageBytes}
	case *mcp.IOTransport:
		return &LineTransport{Reader: t.Reader, Writer: t.Writer, MaxMessageBytes: s.opts.MaxMessageBytes}
	case *LineTransport:
		if t.MaxMessageBytes == 0 {
			c := *t
			c.MaxMessageBytes = s.opts.MaxMessageBytes
			return &c
		}
	}
	return t
}
