package mcpserver_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestEditFileNoLostUpdate is issue 11.1 through MCP: several `agent-host
// mcp` processes on one workspace each read a counter and edit_file it
// from n to n+1. An edit that succeeds must never be lost: the final value
// equals the number of successful edits (a server that read a stale value
// finds its oldText gone and gets an error result instead of a silent
// overwrite).
func TestEditFileNoLostUpdate(t *testing.T) {
	const servers, tries = 4, 40
	first := start(t, startOpts{})
	counter := filepath.Join(first.ws, "counter")
	mustWrite(t, counter, "n=0\n")
	all := []*server{first}
	for range servers - 1 {
		all = append(all, start(t, startOpts{dir: first.dir}))
	}
	var ok, stale atomic.Int64
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() {
			for range tries {
				txt, isErr := s.call("read_file", map[string]any{"path": "counter"})
				if isErr {
					t.Errorf("read_file: %s", txt)
					return
				}
				i := strings.Index(txt, "n=")
				if i < 0 {
					t.Errorf("read_file gave %q", txt)
					return
				}
				n, err := strconv.Atoi(strings.TrimSpace(txt[i+2:]))
				if err != nil {
					t.Errorf("read_file gave %q", txt)
					return
				}
				_, isErr = s.call("edit_file", map[string]any{"path": "counter", "edits": []map[string]any{
					{"oldText": fmt.Sprintf("n=%d\n", n), "newText": fmt.Sprintf("n=%d\n", n+1)},
				}})
				if isErr {
					stale.Add(1)
				} else {
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	final := readDisk(t, counter)
	t.Logf("%d servers x %d edits: %d succeeded, %d refused (stale text), counter %q", servers, tries, ok.Load(), stale.Load(), final)
	if want := fmt.Sprintf("n=%d\n", ok.Load()); final != want || ok.Load() == 0 {
		t.Fatalf("lost updates: %d successful edits, counter %q", ok.Load(), final)
	}
}
