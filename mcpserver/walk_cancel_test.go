package mcpserver_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/gittest"
)

// procCPU is the user and system time of process pid so far (Linux's
// /proc; ok is false elsewhere).
func procCPU(pid int) (time.Duration, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * (time.Second / 100), true // USER_HZ
}

// TestWalkCancelled: notifications/cancelled for a walk in flight over a
// tree that takes seconds to walk stops it within 100 ms: the reply for
// the cancelled request comes within that (the handler returns only once
// the walker's goroutines have ended), and the server burns no CPU after
// it. The tree is slow rather than huge: a .gitignore of patterns that
// each cost the matcher some microseconds on every name (none matches),
// so that each entry costs about a millisecond (what a cancel may have to
// wait for, per walking goroutine) and the test builds 10,000 files, not
// millions. One of up to five cancellations must be within 100 ms (the
// machine is shared and noisy: a loaded one can keep the server's threads
// off the CPU for tens of milliseconds) and every one within 2 s, where an
// uncancelled walk takes several seconds.
func TestWalkCancelled(t *testing.T) {
	r := startRaw(t)
	g := gittest.New(t)
	g.Init(t, r.ws)
	var rules strings.Builder
	for i := range 40 {
		fmt.Fprintf(&rules, "%s[xyz%c]\n", strings.Repeat("**/", 60), rune(0x100+i))
	}
	mustWrite(t, filepath.Join(r.ws, ".gitignore"), rules.String())
	for d := range 40 {
		for f := range 250 {
			mustWrite(t, filepath.Join(r.ws, fmt.Sprintf("d%d", d), strings.Repeat("n", 200)+fmt.Sprint(f)), "")
		}
	}

	best := time.Hour
	for i := 0; i < 5 && best > 100*time.Millisecond; i++ {
		id := fmt.Sprintf("%d", 100+i)
		r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"walk","arguments":{"maxEntries":50000}}}`)
		time.Sleep(300 * time.Millisecond)
		r.ping(fmt.Sprintf("%d", 200+i)) // the ping's reply comes first: the walk is still in flight
		t0 := time.Now()
		r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"test"}}`)
		reply := parseReply(t, r.line())
		d := time.Since(t0)
		if string(reply.ID) != id {
			t.Fatalf("reply for id %s, want %s: %s", reply.ID, id, reply.Result)
		}
		if !strings.Contains(string(reply.Result), `"isError":true`) || !strings.Contains(string(reply.Result), "cancel") {
			t.Fatalf("cancellation %d: the walk was not stopped: it answered %s after notifications/cancelled with %.200s", i, d, reply.Result)
		}
		best = min(best, d)
		if d > 2*time.Second {
			t.Errorf("cancellation %d: the reply came %s after notifications/cancelled", i, d)
		}
		// Stopped, not only answered: no walker goroutine burns CPU on.
		if before, ok := procCPU(r.cmd.Process.Pid); ok {
			time.Sleep(300 * time.Millisecond)
			after, _ := procCPU(r.cmd.Process.Pid)
			if after-before > 100*time.Millisecond {
				t.Errorf("cancellation %d: the server used %s of CPU in the 300 ms after the reply", i, after-before)
			}
		}
	}
	if best > 100*time.Millisecond {
		t.Errorf("the best of five cancelled walks replied %s after notifications/cancelled, want within 100ms", best)
	}
	t.Logf("best: the reply %s after notifications/cancelled", best)
	r.ping("300")
}
