//go:build !linux

package exec

import (
	"context"
	"fmt"
	osexec "os/exec"
	"runtime"
)

// sandboxRun is the parent's side of a sandboxed run; outside Linux it
// only carries the report.
type sandboxRun struct {
	report *Report
	usedNS bool
}

// wrap applies what can be applied outside Linux: the environment is
// scrubbed; nothing confines the command (on macOS the Seatbelt profile
// of SeatbeltProfile is built but not applied: it is not tested on a
// real Mac yet). A sandbox that is not BestEffort fails with ErrNoSandbox.
func (r *Runner) wrap(_ context.Context, cmd *osexec.Cmd, s spec) (*sandboxRun, error) {
	if s.sandbox == nil {
		return nil, nil
	}
	if _, err := allowList(s.sandbox); err != nil {
		return nil, err
	}
	missing := []string{fmt.Sprintf("sandbox: no command sandbox on %s yet (Landlock and namespaces are Linux only)", runtime.GOOS)}
	if s.sandbox.strict() {
		return nil, missingError(missing)
	}
	base, _ := s.sandbox.scrubEnv(cmd.Env[:len(cmd.Env)-len(s.env)])
	cmd.Env = append(base, s.env...)
	return &sandboxRun{report: &Report{Enforced: []string{"env"}, Missing: missing}}, nil
}

func startRefused(error) bool { return false }

var nsBroken struct{ Store func(bool) }

func init() { nsBroken.Store = func(bool) {} }

func (sr *sandboxRun) finish(out *Output) error         { out.Sandbox = sr.report; return nil }
func (sr *sandboxRun) close()                           {}
func (sr *sandboxRun) confined() bool                   { return false }
func (sr *sandboxRun) start(*osexec.Cmd) (*proc, error) { return nil, nil }

// Missing returns the parts of a sandbox this system will not give: on
// this platform, the confinement itself.
func Missing() []string {
	return []string{"sandbox: commands are not confined on this operating system yet (only the environment is scrubbed)"}
}
