package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes is the longest line (one JSON-RPC message, without
// its line break) that a LineTransport reads when none is configured:
// 16 MiB. It is the SDK's own default (mcp.DefaultMaxLineLength) and the
// Host's read limit (host/fs.DefaultMaxReadBytes): a client that worked with
// the SDK's transport still works, and a write_file of any file read_file
// could return fits when its text needs little escaping. A longer line is
// answered with an error naming the limit and skipped; it never ends the
// session. `agent-host mcp --max-message-bytes` and Options.MaxMessageBytes
// change it.
const DefaultMaxMessageBytes = 16 << 20

// Backpressure. A LineTransport reads a request only while fewer than
// MaxPendingReplies requests are unanswered and the bytes their replies
// will take, reckoned at the size of recent replies, plus the bytes of
// replies waiting for the pipe stay under MaxPendingBytes. It reads on as
// replies are written. A client that stops reading its stdout then holds
// the server at a few MiB of replies instead of every reply to every
// request it has sent: the requests stay in the pipe, where the client's
// writes block.
const (
	// MaxPendingReplies is 64: twice the bench's 32 calls in flight, and
	// room for that many long exec calls at once, whose replies are small.
	MaxPendingReplies = 64
	// MaxPendingBytes is 8 MiB. A pipe holds 64 KiB, so a client that
	// reads at all never leaves near that much waiting; with replies of
	// 1 MiB it admits 8 requests at a time, whose replies (as the SDK
	// encodes them, about 1.5 MiB each in memory) and the garbage of
	// making them keep the process under 64 MiB.
	MaxPendingBytes = 4 << 20
	// firstReplyEstimate is the size reckoned for a reply before any has
	// been written: pessimistic, so that a burst of large reads at the
	// start of a session is admitted 8 at a time, not 64.
	firstReplyEstimate = 1 << 20
	// minReplyEstimate keeps the estimate from reaching zero.
	minReplyEstimate = 1 << 10
)

// readBufferSize is the read buffer of a LineTransport: a line longer than
// it is assembled in pieces of this size.
const readBufferSize = 64 << 10

// LineTransport is the server's transport over a byte stream (stdin and
// stdout for `agent-host mcp`): newline-delimited JSON-RPC, as the MCP
// stdio transport specifies. It stands in for the SDK's
// mcp.StdioTransport and mcp.IOTransport (Server.Run puts one in their
// place) and differs from them in three ways (docs/adr/0007):
//
//   - A line that is not a valid message (not JSON, not UTF-8, not an
//     object, a batch, nested deeper than maxNestingDepth, longer than
//     MaxMessageBytes, no "jsonrpc":"2.0", a method that is not a string,
//     ...) is answered with a JSON-RPC error, -32700 when it is not JSON and
//     -32600 when it is not a valid request, with the request's id when it
//     can be read and null when it cannot. The session goes on.
//   - Request ids are echoed exactly as the client wrote them (1.5,
//     12345678901234567890, "x"): the SDK sees an id of its own for each
//     request, and the transport puts the client's bytes back in the reply
//     and in notifications/cancelled.
//   - It stops reading while MaxPendingReplies requests are unanswered or
//     MaxPendingBytes of replies wait to be written (see those constants).
//
// Batches are answered with an error for each request in them: MCP
// 2025-06-18 removed JSON-RPC batching. A batch of more than MaxBatch
// messages is refused whole with one error, so that a reply is never
// many times the size of the line it answers.
type LineTransport struct {
	// Reader gives the client's messages, one per line. When it is an
	// io.Closer, closing the connection closes it.
	Reader io.Reader
	// Writer takes the server's messages, one per line. When it is an
	// io.Closer, closing the connection closes it.
	Writer io.Writer
	// MaxMessageBytes is the longest line read; 0 means
	// DefaultMaxMessageBytes (Server.Run puts Options.MaxMessageBytes there
	// first).
	MaxMessageBytes int

	lender *lender // the serving Server's lent values (see lender); nil: none
}

// Connect starts reading Reader and returns the connection. It is called
// once, by the SDK.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxMessageBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	c := &lineConn{
		r:        t.Reader,
		w:        t.Writer,
		limit:    limit,
		lender:   t.lender,
		incoming: make(chan msgOrErr),
		closed:   make(chan struct{}),
		wake:     make(chan struct{}),
		estimate: firstReplyEstimate,
		ids:      map[int64]json.RawMessage{},
		byKey:    map[string]int64{},
	}
	go c.readLoop()
	return c, nil
}

// lineConn is one LineTransport connection.
type lineConn struct {
	r      io.Reader
	w      io.Writer
	limit  int
	lender *lender

	incoming  chan msgOrErr // from readLoop to Read, unbuffered
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error

	writeMu sync.Mutex // one message on the wire at a time

	mu       sync.Mutex
	next     int64                     // the last SDK id given to a request
	ids      map[int64]json.RawMessage // SDK id -> the client's id, as sent
	byKey    map[string]int64          // idKey(client id) -> SDK id, for cancellations
	inFlight int                       // requests given to the SDK and not yet answered
	pending  int                       // bytes of messages waiting to be written
	estimate int                       // the size reckoned for the next reply: a moving average of the last ones
	wake     chan struct{}             // closed (and replaced) when inFlight or pending drop
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

// readLoop reads lines until the stream ends or the connection is closed,
// answers the ones that are not valid messages, and hands the others to
// Read. Before each line it waits for room (admit). Like the SDK's, it
// stays blocked in Reader.Read when Close cannot interrupt that.
func (c *lineConn) readLoop() {
	br := bufio.NewReaderSize(c.r, readBufferSize)
	for {
		if !c.admit() {
			return
		}
		line, head, tooLong, err := readLine(br, c.limit)
		var msg jsonrpc.Message
		var reply []byte
		switch {
		case tooLong:
			reply = tooLongReply(head, c.limit)
		case len(line) > 0:
			msg, reply = c.decode(line)
		}
		if reply != nil {
			if _, werr := c.writeLine(reply); werr != nil && err == nil {
				err = werr
			}
		}
		if msg != nil {
			select {
			case c.incoming <- msgOrErr{msg: msg}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			if err == io.EOF {
				// The client closed its end after sending: the requests it
				// sent are still answered before the session ends.
				c.drain(MaxDrain)
			}
			select {
			case c.incoming <- msgOrErr{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// MaxDrain is how long, once the client's input has ended, the server
// goes on answering the requests it already read (a client that writes
// its requests and closes its end, `printf ... | agent-host mcp`) before
// it ends the session. A call still running then is cancelled and its
// command killed: a client that closed its input is taken to be gone
// (TestDisconnectEndsCalls). One second lets every file operation finish.
const MaxDrain = time.Second

// drain waits until no request is unanswered, the connection is closed,
// or d has passed.
func (c *lineConn) drain(d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n, wake := c.inFlight, c.wake
		c.mu.Unlock()
		if n <= 0 {
			return
		}
		select {
		case <-wake:
		case <-c.closed:
			return
		case <-timer.C:
			return
		}
	}
}

// admit waits until fewer than MaxPendingReplies requests are unanswered
// and fewer than MaxPendingBytes wait to be written. It reports false when
// the connection closed first.
func (c *lineConn) admit() bool {
	for {
		c.mu.Lock()
		ok := c.inFlight < MaxPendingReplies && c.inFlight*c.estimate+c.pending < MaxPendingBytes
		wake := c.wake
		c.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-wake:
		case <-c.closed:
			return false
		}
	}
}

// signal wakes admit; c.mu is held.
func (c *lineConn) signal() {
	close(c.wake)
	c.wake = make(chan struct{})
}

// readLine reads one line of at most limit bytes (its line break not
// counted, and not returned). A longer line is read to its end and
// dropped: tooLong is set and head holds its first bytes, where a client
// usually puts the id. err is the stream's error (io.EOF at its end), with
// the last line, if unterminated, in line.
func readLine(br *bufio.Reader, limit int) (line, head []byte, tooLong bool, err error) {
	for {
		frag, e := br.ReadSlice('\n')
		n := len(frag)
		if e == nil {
			n-- // the line break
		}
		if !tooLong {
			if len(line)+n > limit {
				tooLong = true
				head = append(line, frag[:min(len(frag), max(0, maxHead-len(line)))]...)
				head = head[:min(len(head), maxHead)]
				line = nil
			} else {
				line = appendLine(line, frag[:n], limit)
			}
		}
		switch e {
		case nil:
			return line, head, tooLong, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return line, head, tooLong, e
		}
	}
}

// appendLine appends frag to line, which never grows past limit bytes:
// its room is doubled up to limit rather than grown by append's quarter,
// so a line at the limit is copied into arrays that add up to twice its
// size, not five times (the garbage of a 16 MiB line was most of the
// server's 64 MiB).
func appendLine(line, frag []byte, limit int) []byte {
	if need := len(line) + len(frag); need > cap(line) {
		grown := make([]byte, len(line), min(max(2*cap(line), need, readBufferSize), max(limit, need)))
		copy(grown, line)
		line = grown
	}
	return append(line, frag...)
}

// maxHead is how much of a line over the limit is kept to find its id.
const maxHead = 4 << 10

// Read returns the next message, or io.EOF once the stream has ended or
// the connection is closed.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case v := <-c.incoming:
		return v.msg, v.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write writes msg as one line. A reply gets the client's id back. Write
// may be called concurrently; messages are written whole, one at a time.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	parts, answered, err := c.encode(msg)
	if err != nil {
		return err
	}
	n, err := c.writeLine(parts...)
	if answered {
		c.mu.Lock()
		c.inFlight--
		c.estimate = max(minReplyEstimate, (3*c.estimate+n)/4)
		c.signal()
		c.mu.Unlock()
	}
	return err
}

// writeLine writes parts and a line break as one line, counting its bytes
// as pending while it waits for the writer, and returns its length.
func (c *lineConn) writeLine(parts ...[]byte) (int, error) {
	n := 1
	for _, p := range parts {
		n += len(p)
	}
	c.mu.Lock()
	c.pending += n
	c.mu.Unlock()
	c.writeMu.Lock()
	var err error
	for _, p := range append(parts, newline) {
		if _, err = c.w.Write(p); err != nil {
			break
		}
	}
	c.writeMu.Unlock()
	c.mu.Lock()
	c.pending -= n
	c.signal()
	c.mu.Unlock()
	return n, err
}

var newline = []byte{'\n'}

// encode is msg's wire form, in parts to be written one after the other.
// For a reply to a client's request, the SDK's id is replaced by the
// client's and the request is forgotten (answered reports it): the client
// may reuse the id once it has the reply. A result is written as the SDK
// encoded it, not copied again: a reply of a megabyte costs a megabyte
// while it waits for the pipe.
func (c *lineConn) encode(msg jsonrpc.Message) (parts [][]byte, answered bool, err error) {
	resp, ok := msg.(*jsonrpc.Response)
	var raw json.RawMessage
	var sdkID int64
	if ok {
		sdkID, ok = resp.ID.Raw().(int64)
	}
	if ok {
		c.mu.Lock()
		raw, ok = c.ids[sdkID]
		if ok {
			delete(c.ids, sdkID)
			if k := idKey(raw); c.byKey[k] == sdkID {
				delete(c.byKey, k)
			}
		}
		c.mu.Unlock()
	}
	if ok && resp.Error == nil && len(resp.Result) > 0 && bytes.IndexByte(resp.Result, '\n') < 0 {
		head := append(append([]byte(wirePrefix), raw...), `,"result":`...)
		parts := append([][]byte{head}, c.lender.splice(resp.Result)...)
		return append(parts, []byte("}")), true, nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, ok, err
	}
	if ok {
		data = spliceID(data, sdkID, raw)
	}
	return c.lender.splice(data), ok, nil
}

// wirePrefix is how jsonrpc.EncodeMessage begins a message with an id: its
// wire struct's first two fields.
const wirePrefix = `{"jsonrpc":"2.0","id":`

// spliceID replaces the id sdkID in data, an encoded reply, with raw. The
// reply is not decoded again: EncodeMessage puts the id right after the
// version, and when that ever changes the reply is re-encoded.
func spliceID(data []byte, sdkID int64, raw json.RawMessage) []byte {
	num := strconv.FormatInt(sdkID, 10)
	p := len(wirePrefix)
	if len(data) > p+len(num) && string(data[:p]) == wirePrefix && string(data[p:p+len(num)]) == num &&
		(data[p+len(num)] == ',' || data[p+len(num)] == '}') {
		out := make([]byte, 0, len(data)-len(num)+len(raw))
		out = append(out, data[:p]...)
		out = append(out, raw...)
		return append(out, data[p+len(num):]...)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return data
	}
	m["id"] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}

// Close closes the connection, and Reader and Writer when they are
// io.Closers. It may be called more than once.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		var errs []error
		if rc, ok := c.r.(io.Closer); ok {
			errs = append(errs, rc.Close())
		}
		if wc, ok := c.w.(io.Closer); ok {
			errs = append(errs, wc.Close())
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

// SessionID is "": a stream carries one session.
func (c *lineConn) SessionID() string { return "" }
