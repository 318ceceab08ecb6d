package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestAdmission: the transport hands out requests only while the replies
// it reckons they will make fit MaxPendingBytes (the first reckoned at
// firstReplyEstimate) and fewer than MaxPendingReplies are unanswered; a
// reply written makes room; small replies let up to MaxPendingReplies in.
func TestAdmission(t *testing.T) {
	var lines strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&lines, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
	}
	conn, err := (&LineTransport{Reader: strings.NewReader(lines.String()), Writer: io.Discard}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got := make(chan *jsonrpc.Request, 2000)
	go func() {
		for {
			msg, err := conn.Read(context.Background())
			if err != nil {
				close(got)
				return
			}
			got <- msg.(*jsonrpc.Request)
		}
	}()
	// take reads what the transport hands out until it stops for a while.
	take := func() []*jsonrpc.Request {
		var rs []*jsonrpc.Request
		for {
			select {
			case r, ok := <-got:
				if !ok {
					return rs
				}
				rs = append(rs, r)
			case <-time.After(100 * time.Millisecond):
				return rs
			}
		}
	}
	first := take()
	if want := MaxPendingBytes / firstReplyEstimate; len(first) != want {
		t.Fatalf("%d requests admitted before any reply, want %d", len(first), want)
	}
	reply := func(r *jsonrpc.Request, size int) {
		t.Helper()
		res, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", size)})
		if err := conn.Write(context.Background(), &jsonrpc.Response{ID: r.ID, Result: res}); err != nil {
			t.Fatal(err)
		}
	}
	reply(first[0], 10)
	if more := take(); len(more) == 0 {
		t.Fatal("a reply written made no room")
	} else {
		first = append(first[1:], more...)
	}
	// Small replies bring the estimate down until the count is the bound.
	for range 6 {
		held := first
		first = nil
		for _, r := range held {
			reply(r, 10)
		}
		first = take()
	}
	if len(first) != MaxPendingReplies {
		t.Fatalf("%d requests unanswered after small replies, want MaxPendingReplies (%d)", len(first), MaxPendingReplies)
	}
}
