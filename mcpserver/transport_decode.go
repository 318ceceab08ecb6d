package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxNestingDepth is how deeply a message may nest arrays and objects. A
// tool's arguments nest a handful of levels; encoding/json itself refuses
// 10,000 (and a recursive reader would have to go down that far first).
// The depth is counted in one pass over the bytes before anything is
// decoded, so 100,000 opening brackets cost a scan, not a stack.
const maxNestingDepth = 1000

const methodCancelled = "notifications/cancelled"

// errorLine is a JSON-RPC error response: a reply to a message that the
// SDK never sees.
type errorLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"` // nil is null
	Error   wireError       `json:"error"`
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// errorReply is the encoded error response with id (nil: null).
func errorReply(id json.RawMessage, code int, msg string, data any) []byte {
	b, err := json.Marshal(errorLine{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: msg, Data: data}})
	if err != nil { // data is always a plain value of ours
		panic(err)
	}
	return b
}

// tooLongReply answers a line over limit, with the id when its first bytes
// hold one.
func tooLongReply(head []byte, limit int) []byte {
	return errorReply(idFromHead(head), jsonrpc.CodeInvalidRequest,
		fmt.Sprintf("message too long: more than %d bytes, the server's limit (agent-host mcp --max-message-bytes); it was not read", limit),
		map[string]int{"maxMessageBytes": limit})
}

// decode checks one line and turns it into a message for the SDK; or, for
// a line that is not a valid message, into the error reply to write; or
// into neither (a cancellation of a request that is no longer in flight).
func (c *lineConn) decode(line []byte) (jsonrpc.Message, []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	if !utf8.Valid(line) {
		return nil, errorReply(idOf(line), jsonrpc.CodeParseError, "parse error: the message is not valid UTF-8", nil)
	}
	if d := depth(line); d > maxNestingDepth {
		return nil, errorReply(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: arrays and objects nested more than %d deep", maxNestingDepth), nil)
	}
	if !json.Valid(line) {
		// Unmarshal says where and why; it copies nothing of a line that
		// is not valid (json.Valid checks without a copy of the line).
		err := json.Unmarshal(line, new(json.RawMessage))
		return nil, errorReply(nil, jsonrpc.CodeParseError, "parse error: "+err.Error(), nil)
	}
	switch line[0] {
	case '{':
	case '[':
		return nil, batchReply(line)
	default:
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message must be a JSON object, not "+kind(line), nil)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, errorReply(nil, jsonrpc.CodeParseError, "parse error: "+err.Error(), nil)
	}
	rawID, hasID := m["id"]
	if hasID && !validID(rawID) {
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: the id must be a string or a number, not "+kind(rawID), nil)
	}
	invalid := func(msg string) (jsonrpc.Message, []byte) {
		return nil, errorReply(rawID, jsonrpc.CodeInvalidRequest, "invalid request: "+msg, nil)
	}
	if v, ok := m["jsonrpc"]; !ok || string(v) != `"2.0"` {
		if !ok {
			return invalid(`"jsonrpc": "2.0" is missing`)
		}
		return invalid(`"jsonrpc" must be "2.0", not ` + string(v))
	}
	method, hasMethod := m["method"]
	if !hasMethod {
		return c.decodeResponse(line, m, rawID, hasID)
	}
	var name string
	if method[0] != '"' || json.Unmarshal(method, &name) != nil {
		return invalid(`"method" must be a string, not ` + kind(method))
	}
	params := m["params"]
	if string(params) == "null" {
		params = nil
	}
	if len(params) > 0 && params[0] != '{' && params[0] != '[' {
		return invalid(`"params" must be an object, not ` + kind(params))
	}
	req := &jsonrpc.Request{Method: name, Params: params}
	if !hasID {
		if name == methodCancelled {
			return c.cancelled(req)
		}
		return req, nil
	}
	c.mu.Lock()
	c.next++
	sdkID := c.next
	c.ids[sdkID] = rawID
	c.byKey[idKey(rawID)] = sdkID
	c.inFlight++
	c.mu.Unlock()
	req.ID, _ = jsonrpc.MakeID(float64(sdkID)) // exact below 2^53
	return req, nil
}

// decodeResponse checks a message without a method: a response to one of
// the server's requests (roots/list). Those ids are the SDK's own, so they
// go through unchanged.
func (c *lineConn) decodeResponse(line []byte, m map[string]json.RawMessage, rawID json.RawMessage, hasID bool) (jsonrpc.Message, []byte) {
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if !hasID || hasResult == hasError {
		return nil, errorReply(rawID, jsonrpc.CodeInvalidRequest,
			`invalid request: a message needs a "method" (a request or a notification), or an "id" and one of "result" or "error" (a response)`, nil)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, errorReply(rawID, jsonrpc.CodeInvalidRequest, "invalid response: "+err.Error(), nil)
	}
	return msg, nil
}

// cancelled rewrites a notifications/cancelled for the SDK: the client
// names its own id, the SDK knows the request by the id it was given. A
// cancellation of a request that is not in flight (answered already, or
// never sent) is dropped, since its id could be another's SDK id.
func (c *lineConn) cancelled(req *jsonrpc.Request) (jsonrpc.Message, []byte) {
	var p map[string]json.RawMessage
	if json.Unmarshal(req.Params, &p) != nil || p["requestId"] == nil || !validID(p["requestId"]) {
		return nil, nil // a notification gets no reply, not even an error
	}
	c.mu.Lock()
	sdkID, ok := c.byKey[idKey(p["requestId"])]
	c.mu.Unlock()
	if !ok {
		return nil, nil
	}
	p["requestId"] = json.RawMessage(fmt.Sprint(sdkID))
	params, err := json.Marshal(p)
	if err != nil {
		return nil, nil
	}
	req.Params = params
	return req, nil
}

// MaxBatch is the most messages a batch may hold to be answered message
// by message. It is MaxPendingReplies, the requests a client may have
// unanswered at once, so a batch is bounded as single lines are: its
// reply holds at most MaxBatch errors of about 200 bytes and the ids the
// client wrote, well under the line's own length plus 16 KiB, built
// while nothing else is read. A longer batch is refused whole with one
// error (id null), found by one scan of the line that copies nothing,
// as a line over MaxMessageBytes is. Answering each of a million
// elements was a reply 94 times the line's size, built in memory: a
// 4 MiB line made 380 MB and 1.2 GiB of RSS.
const MaxBatch = MaxPendingReplies

// batchReply answers a batch: an error for each request in it (an
// element with an id), and for each element that is not an object; none
// for notifications, and nothing at all when that leaves none (as JSON-RPC
// says). An empty batch is one error, and so is a batch of more than
// MaxBatch elements. line is valid JSON and begins with '['. The reply is
// written in one buffer, each id as the client wrote it (as every reply
// of the transport has it), with nothing of the line decoded or copied
// but the ids.
func batchReply(line []byte) []byte {
	elems, ok := batchElems(line, MaxBatch)
	if !ok {
		return errorReply(nil, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("invalid request: a batch of more than %d messages is refused whole, and none of it was read; batches are not supported (MCP 2025-06-18 removed JSON-RPC batching): send each message on a line of its own", MaxBatch),
			map[string]int{"maxBatch": MaxBatch})
	}
	if len(elems) == 0 {
		return errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch", nil)
	}
	var ids [][]byte // nil: null
	size := 2
	for _, e := range elems {
		var id []byte
		if e[0] == '{' {
			v, ok := memberOf(e, "id")
			if !ok {
				continue // a notification: no reply
			}
			if validID(v) {
				id = v
			}
		}
		ids = append(ids, id)
		size += len(batchErrorHead) + max(len(id), 4) + len(batchErrorTail) + 1
	}
	if len(ids) == 0 {
		return nil
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, batchErrorHead...)
		if id == nil {
			id = []byte("null")
		}
		b = append(b, id...)
		b = append(b, batchErrorTail...)
	}
	return append(b, ']')
}

// batchErrorHead and batchErrorTail surround the id in the error for a
// request in a batch: errorReply's encoding of it.
const (
	batchErrorHead = `{"jsonrpc":"2.0","id":`
	batchErrorTail = `,"error":{"code":-32600,"message":"invalid request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching); send each message on a line of its own"}}`
)

// memberOf is the value of obj's member named key, as it is written in
// obj (the last one, as encoding/json takes it, when the name repeats),
// and whether there is one. obj is a valid JSON object; nothing is
// copied.
func memberOf(obj []byte, key string) ([]byte, bool) {
	var val []byte
	found := false
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		kEnd := valueEnd(obj, i)
		k := obj[i:kEnd]
		i = skipSpace(obj, skipSpace(obj, kEnd)+1) // past the colon
		vEnd := valueEnd(obj, i)
		if keyIs(k, key) {
			val, found = obj[i:vEnd], true
		}
		i = skipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return val, found
}

// keyIs reports whether k, a JSON string as written, is key.
func keyIs(k []byte, key string) bool {
	if bytes.IndexByte(k, '\\') < 0 {
		return len(k) == len(key)+2 && string(k[1:len(k)-1]) == key
	}
	var s string
	return json.Unmarshal(k, &s) == nil && s == key
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd is where the JSON value that starts at b[i] ends; b is valid
// JSON.
func valueEnd(b []byte, i int) int {
	d, inStr, esc := 0, false, false
	for j := i; j < len(b); j++ {
		c := b[j]
		switch {
		case esc:
			esc = false
		case inStr:
			switch c {
			case '\\':
				esc = true
			case '"':
				inStr = false
				if d == 0 {
					return j + 1
				}
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			d++
		case c == ']' || c == '}':
			if d == 0 {
				return j // the end of a scalar, at its container's close
			}
			if d--; d == 0 {
				return j + 1
			}
		case d == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return j
		}
	}
	return len(b)
}

// batchElems splits line, a valid JSON array, into its elements (slices
// of line, nothing copied). It reports false, after a scan of the line
// and nothing else, when there are more than most.
func batchElems(line []byte, most int) ([][]byte, bool) {
	var elems [][]byte
	d, inStr, esc, start := 0, false, false, -1
	for i, b := range line {
		switch {
		case esc:
			esc = false
		case inStr:
			switch b {
			case '\\':
				esc = true
			case '"':
				inStr = false
			}
		case b == '"':
			inStr = true
		case b == '[' || b == '{':
			d++
			if d == 1 {
				start = i + 1
			}
		case b == ']' || b == '}', b == ',':
			if b != ',' {
				d--
			}
			if d == 0 || b == ',' && d == 1 {
				if e := bytes.TrimSpace(line[start:i]); len(e) > 0 || b == ',' {
					if len(elems) == most {
						return nil, false
					}
					elems = append(elems, e)
				}
				start = i + 1
			}
		}
	}
	return elems, true
}

// validID reports whether raw is an id a request may carry: a string or a
// number (MCP forbids null; JSON-RPC forbids the rest).
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 || !utf8.Valid(raw) {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || c >= '0' && c <= '9':
		return true
	}
	return false
}

// idKey is raw's identity: a string by its value (however it was escaped),
// a number by its spelling (1.0 and 1 are different ids, as sent).
func idKey(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return "s" + s
		}
	}
	return "n" + string(raw)
}

// idOf is the id of line, an object that is otherwise not a valid
// message, when it can be read; nil otherwise.
func idOf(line []byte) json.RawMessage {
	var m map[string]json.RawMessage
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &m) != nil {
		return nil
	}
	if id := m["id"]; validID(id) {
		return id
	}
	return nil
}

// idFromHead finds the id among the members of an object of which head is
// the beginning, before the first member whose value head cuts off.
func idFromHead(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if k == "id" {
			if validID(v) {
				return v
			}
			return nil
		}
	}
	return nil
}

// depth is how deeply line nests arrays and objects, counted outside
// strings.
func depth(line []byte) int {
	d, most, inStr, esc := 0, 0, false, false
	for _, b := range line {
		switch {
		case esc:
			esc = false
		case inStr:
			switch b {
			case '\\':
				esc = true
			case '"':
				inStr = false
			}
		case b == '"':
			inStr = true
		case b == '[' || b == '{':
			d++
			most = max(most, d)
		case b == ']' || b == '}':
			d--
		}
	}
	return most
}

// kind names the JSON type of raw, for an error message.
func kind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch c := raw[0]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}
