package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// FuzzBatchElems: for any line that is a JSON array, batchElems finds
// the elements encoding/json finds (the oracle), byte for byte, or
// reports more than the most asked for exactly when there are more.
func FuzzBatchElems(f *testing.F) {
	for _, s := range []string{
		`[]`, `[ ]`, `[1]`, `[1,2,3]`, ` [ 1 , "a,b" , [1,[2,3]] , {"a":[1,2],"b":"]\"}"} ] `,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},5,null,true,"x\\"]`, `[[],{},[[]]]`,
	} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, line []byte, most int) {
		line = bytes.TrimSpace(line)
		var want []json.RawMessage
		if len(line) == 0 || line[0] != '[' || json.Unmarshal(line, &want) != nil || most < 0 {
			return
		}
		got, ok := batchElems(line, most)
		if ok != (len(want) <= most) {
			t.Fatalf("batchElems(%q, %d): ok %v with %d elements", line, most, ok, len(want))
		}
		if !ok {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("batchElems(%q): %d elements %q, want %d", line, len(got), got, len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("batchElems(%q): element %d is %q, want %q", line, i, got[i], want[i])
			}
		}
	})
}

// TestBatchAtTheLimit: a batch of MaxBatch requests is answered with an
// error for each, by its id; one more request and the batch is one
// error, id null, naming the limit.
func TestBatchAtTheLimit(t *testing.T) {
	batch := func(n int) []byte {
		var elems []string
		for i := range n {
			elems = append(elems, fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","method":"ping"}`, i))
		}
		return []byte("[" + strings.Join(elems, ",") + "]")
	}
	c := &lineConn{ids: map[int64]json.RawMessage{}, byKey: map[string]int64{}, wake: make(chan struct{})}
	_, reply := c.decode(batch(MaxBatch))
	var many []errorLine
	if err := json.Unmarshal(reply, &many); err != nil || len(many) != MaxBatch {
		t.Fatalf("batch of %d: %d replies (%v)", MaxBatch, len(many), err)
	}
	for i, e := range many {
		if string(e.ID) != fmt.Sprintf(`"r%d"`, i) || e.Error.Code != -32600 {
			t.Errorf("reply %d: %+v", i, e)
		}
	}
	_, reply = c.decode(batch(MaxBatch + 1))
	var one struct {
		ID    json.RawMessage
		Error struct {
			Code    int
			Message string
			Data    map[string]int
		}
	}
	if err := json.Unmarshal(reply, &one); err != nil || string(one.ID) != "null" || one.Error.Code != -32600 ||
		one.Error.Data["maxBatch"] != MaxBatch || !strings.Contains(one.Error.Message, "more than 64 messages") {
		t.Fatalf("batch of %d: %s (%v)", MaxBatch+1, reply, err)
	}
}

// TestBatchErrorIsErrorReply: the error batchReply writes for a request
// is errorReply's, byte for byte.
func TestBatchErrorIsErrorReply(t *testing.T) {
	const msg = "invalid request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching); send each message on a line of its own"
	for _, id := range []string{"7", `"x"`} {
		if got, want := batchErrorHead+id+batchErrorTail, string(errorReply(json.RawMessage(id), -32600, msg, nil)); got != want {
			t.Errorf("id %s:\n got %s\nwant %s", id, got, want)
		}
	}
}

// FuzzMemberOf: for any JSON object, memberOf finds the member
// encoding/json finds when it decodes the object into a map (the
// oracle): the same bytes, or none.
func FuzzMemberOf(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"id":1}`, ` { "a" : [1,{"id":2}] , "id" : "x,}" } `, `{"\u0069d":3,"id":4}`, `{"id":5,"id":6}`,
		`{"ida":1,"i":2}`, `{"a":{"b":"}"},"id":null}`, `{"id":-1.5e3}`, `{"id":true,"x":false}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		obj = bytes.TrimSpace(obj)
		var m map[string]json.RawMessage
		if len(obj) == 0 || obj[0] != '{' || json.Unmarshal(obj, &m) != nil {
			return
		}
		want, wantOK := m["id"]
		got, ok := memberOf(obj, "id")
		if ok != wantOK || !bytes.Equal(got, want) {
			t.Fatalf("memberOf(%q, id) = %q, %v; encoding/json: %q, %v", obj, got, ok, want, wantOK)
		}
	})
}
