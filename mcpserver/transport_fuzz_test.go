package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzDecodeLine: whatever line a client sends, decode neither panics nor
// gives both a message and a reply; a reply is one line of valid JSON, an
// error response or an array of them; a request handed to the SDK has an
// SDK id that maps back to the client's, and its reply carries those
// bytes again.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":"a\u0041","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},5]`, `[]`, `5`, `null`, `{bad`, "\xff", `[[[[`,
		`{"id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // the reader splits lines first
		}
		c := &lineConn{ids: map[int64]json.RawMessage{}, byKey: map[string]int64{}, wake: make(chan struct{})}
		c.byKey[idKey(json.RawMessage("1.5"))] = 99 // a request in flight, for cancellations
		msg, reply := c.decode(line)
		if msg != nil && reply != nil {
			t.Fatalf("both a message and a reply for %q", line)
		}
		if reply != nil {
			if !json.Valid(reply) || bytes.IndexByte(reply, '\n') >= 0 {
				t.Fatalf("reply %q to %q is not one line of JSON", reply, line)
			}
			var one errorLine
			var many []errorLine
			if json.Unmarshal(reply, &one) != nil && json.Unmarshal(reply, &many) != nil {
				t.Fatalf("reply %q is not an error response", reply)
			}
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.ID.IsValid() {
			return
		}
		sdkID := req.ID.Raw().(int64)
		raw := c.ids[sdkID]
		parts, answered, err := c.encode(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
		if err != nil || !answered {
			t.Fatalf("reply to %q: %v, answered %v", line, err, answered)
		}
		var got struct{ ID json.RawMessage }
		if err := json.Unmarshal(bytes.Join(parts, nil), &got); err != nil || !bytes.Equal(got.ID, raw) {
			t.Fatalf("reply %s to %q: id %s, want %s (%v)", bytes.Join(parts, nil), line, got.ID, raw, err)
		}
	})
}

// TestSpliceIDFallback: a reply not in the shape spliceID expects is
// decoded and re-encoded with the client's id.
func TestSpliceIDFallback(t *testing.T) {
	got := spliceID([]byte(`{"id":7,"jsonrpc":"2.0","result":{}}`), 7, json.RawMessage(`1.5`))
	var m map[string]json.RawMessage
	if err := json.Unmarshal(got, &m); err != nil || string(m["id"]) != "1.5" || string(m["result"]) != "{}" {
		t.Fatalf("%s: %v", got, err)
	}
	if got := spliceID([]byte(`{"jsonrpc":"2.0","id":7,"result":{}}`), 7, json.RawMessage(`"x"`)); string(got) != `{"jsonrpc":"2.0","id":"x","result":{}}` {
		t.Fatalf("%s", got)
	}
}
