package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/gittest"
)

// TestHeavyCallBurst: 64 check_ignore calls written at once, each asking
// about 100 paths in five levels of a chain of 100 .gitignore files of
// 2,000 rules (more than the walk Cache's 32 MiB bound holds compiled),
// queue for their turn (two at a time) instead of running together, where
// each flushed what the others had loaded and loaded it again: every call
// gets git's answers, all within 60 s, and the server's peak RSS stays
// under the 64 MiB. Before, the burst took 87 s and peaked at
// 411 MB (53 MB one call at a time).
func TestHeavyCallBurst(t *testing.T) {
	r := startRaw(t)
	g := gittest.New(t)
	g.Init(t, r.ws)
	const levels, rules, perLevel, calls = 100, 2000, 20, 64
	var paths []string
	dir := r.ws
	for l := 1; l <= levels; l++ {
		dir = filepath.Join(dir, fmt.Sprintf("d%d", l))
		var b strings.Builder
		for i := range rules {
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, "name%d_%d\n", l, i)
			case 1:
				fmt.Fprintf(&b, "*.e%d_%d\n", l, i)
			case 2:
				fmt.Fprintf(&b, "/p%d_%d\n", l, i)
			default:
				fmt.Fprintf(&b, "g%d_%d*x\n", l, i)
			}
		}
		mustWrite(t, filepath.Join(dir, ".gitignore"), b.String())
		rel, _ := filepath.Rel(r.ws, dir)
		for q := range perLevel { // half matched by a rule, half by none
			paths = append(paths, fmt.Sprintf("%s/f%d.e%d_%d", rel, q, l, 4*q+1+q%2))
		}
	}
	// git is the oracle: which of the paths it ignores.
	out, code := g.Run(t, r.ws, strings.Join(paths, "\n")+"\n", "check-ignore", "--stdin")
	if code != 0 {
		t.Fatalf("git check-ignore: exit %d", code)
	}
	gitIgnored := map[string]bool{}
	for _, p := range strings.Fields(out) {
		gitIgnored[p] = true
	}
	if len(gitIgnored) == 0 || len(gitIgnored) == len(paths) {
		t.Fatalf("git ignores %d of the %d paths: the test means some of each", len(gitIgnored), len(paths))
	}

	// Call k asks about the paths of levels 5k+1 to 5k+5 (round the chain).
	asked := make([][]string, calls)
	lines := make([]string, calls)
	for k := range calls {
		from := (5 * k * perLevel) % len(paths)
		asked[k] = paths[from : from+5*perLevel]
		args, _ := json.Marshal(map[string]any{"paths": asked[k]})
		lines[k] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"check_ignore","arguments":%s}}`, k, args)
	}
	start := time.Now()
	go func() {
		for _, l := range lines {
			if _, err := fmt.Fprintln(r.stdin, l); err != nil {
				return
			}
		}
	}()
	replies := make(chan string, calls)
	go func() {
		for range calls {
			l, err := r.out.ReadString('\n')
			if err != nil {
				close(replies)
				return
			}
			replies <- l
		}
	}()
	deadline := time.After(60 * time.Second)
	for range calls {
		var l string
		select {
		case v, ok := <-replies:
			if !ok {
				t.Fatalf("the server closed stdout (stderr: %s)", r.stderr)
			}
			l = v
		case <-deadline:
			t.Fatalf("not every call answered within 60 s; the server's peak RSS %d KiB", vmKiB(t, r.cmd.Process.Pid, "VmHWM"))
		}
		var reply struct {
			ID     int `json:"id"`
			Result struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Results []struct {
						Path    string `json:"path"`
						Ignored bool   `json:"ignored"`
					} `json:"results"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &reply); err != nil || reply.Result.IsError || reply.ID < 0 || reply.ID >= calls {
			t.Fatalf("reply: %v: %.300s", err, l)
		}
		res := reply.Result.StructuredContent.Results
		if len(res) != len(asked[reply.ID]) {
			t.Fatalf("call %d: %d results for %d paths", reply.ID, len(res), len(asked[reply.ID]))
		}
		for i, m := range res {
			if p := asked[reply.ID][i]; m.Ignored != gitIgnored[p] {
				t.Fatalf("call %d: %s ignored: %v, git: %v", reply.ID, p, m.Ignored, gitIgnored[p])
			}
		}
	}
	took := time.Since(start)
	peak := vmKiB(t, r.cmd.Process.Pid, "VmHWM")
	t.Logf("%d calls in %v; the server's peak RSS %d KiB", calls, took, peak)
	if took > 60*time.Second || peak > 64<<10 {
		t.Errorf("%d calls took %v with a peak RSS of %d KiB; want under 60 s and 64 MiB", calls, took, peak)
	}
}
