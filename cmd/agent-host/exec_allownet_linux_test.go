package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestExecAllowNet: agent-host exec --allow-net sends the command's HTTP
// through the proxy and says, after the run, which hosts it refused: one
// line each on stderr, and the list in --json's sandbox report. The
// refused name is refused before any lookup, so nothing leaves the
// machine; an entry that names no host starts nothing.
func TestExecAllowNet(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("skipped: needs curl")
	}
	w := newWorld(t)
	probe := "curl -sS -m 10 -o /dev/null -w '%{http_code}\\n' http://denied.test/x; curl -sS -m 10 -o /dev/null -w '%{http_code}\\n' http://denied.test/y; true"
	r := w.run("", "exec", "--allow-net", "allowed.test", "--", probe)
	want := "agent-host exec: network: refused denied.test:80 (2 times); --allow-net denied.test allows it\n"
	if r.code != 0 || r.stdout != "403\n403\n" || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("exec --allow-net: code %d, stdout %q, stderr %q; want the line %q", r.code, r.stdout, r.stderr, want)
	}

	r = w.run("", "exec", "--json", "--allow-net", "allowed.test", "--", probe)
	var got struct {
		Sandbox struct {
			Enforced  []string `json:"enforced"`
			NetDenied []struct {
				Host    string `json:"host"`
				Port    int    `json:"port"`
				Count   int    `json:"count"`
				Reason  string `json:"reason"`
				Message string `json:"message"`
			} `json:"net_denied"`
		} `json:"sandbox"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("exec --json: %v: %q", err, r.stdout)
	}
	d := got.Sandbox.NetDenied
	if len(d) != 1 || d[0].Host != "denied.test" || d[0].Port != 80 || d[0].Count != 2 || d[0].Reason != "not allowed" || d[0].Message+"\n" != strings.TrimPrefix(want, "agent-host exec: ") {
		t.Errorf("exec --json: net_denied = %+v", d)
	}
	if !strings.Contains(strings.Join(got.Sandbox.Enforced, " "), "netproxy") {
		t.Errorf("exec --json: the report does not name the proxy: %v", got.Sandbox.Enforced)
	}

	r = w.run("", "exec", "--allow-net", "*.com", "--", "touch ran")
	if r.code == 0 || !strings.Contains(r.stderr, "*.com") {
		t.Errorf("exec --allow-net '*.com': code %d, stderr %q", r.code, r.stderr)
	}
	if r := w.run("", "exec", "--no-sandbox", "--", "test -e ran"); r.code == 0 {
		t.Error("a bad --allow-net entry still ran the command")
	}
}
