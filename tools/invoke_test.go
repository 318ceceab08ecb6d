package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/invalidation"
	"github.com/agenthost/agenthost/tools"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// recorder is a Sink that keeps every notice.
type recorder struct {
	mu  sync.Mutex
	got []invalidation.Notice
}

func (r *recorder) Notify(n invalidation.Notice) {
	r.mu.Lock()
	r.got = append(r.got, n)
	r.mu.Unlock()
}

// env is a workspace with a real Host, a publisher with one recorder, and a
// directory (outside the workspace) for hook scripts.
type env struct {
	t       *testing.T
	ws      string // canonical workspace root
	scripts string
	h       *host.Host
	pub     *invalidation.Publisher
	rec     *recorder
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Config{WorkspaceRoot: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	e := &env{t: t, ws: ws, scripts: t.TempDir(), h: h, pub: &invalidation.Publisher{}, rec: &recorder{}}
	if _, err := e.pub.Subscribe(e.rec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.pub.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return e
}

// script writes an executable shell script and returns a command running it.
func (e *env) script(name, body string) string {
	e.t.Helper()
	p := filepath.Join(e.scripts, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return "'" + p + "'"
}

func (e *env) invoker(hooks ...tools.Hook) *tools.Invoker {
	return &tools.Invoker{Host: e.h, Publisher: e.pub, Hooks: hooks, SessionID: "sess-1", TranscriptPath: "/tmp/t.jsonl"}
}

// notices flushes and returns every notice received so far.
func (e *env) notices() []invalidation.Notice {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.pub.Flush(ctx); err != nil {
		e.t.Fatal(err)
	}
	e.rec.mu.Lock()
	defer e.rec.mu.Unlock()
	return slices.Clone(e.rec.got)
}

func (e *env) one() invalidation.Notice {
	e.t.Helper()
	ns := e.notices()
	if len(ns) != 1 {
		e.t.Fatalf("got %d notices, want 1: %+v", len(ns), ns)
	}
	return ns[0]
}

func (e *env) path(rel string) string { return filepath.Join(e.ws, rel) }

// writeTool writes input.content to input.file_path through the Host; it
// names its path (PathTool). fail makes it return an error after writing,
// panic makes it panic after writing.
type writeTool struct {
	fail, panic bool
	ran         *bool
}

type writeInput struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

func (writeTool) Name() string { return "Write" }

func (w writeTool) Run(ctx context.Context, call tools.Call) (json.RawMessage, error) {
	if w.ran != nil {
		*w.ran = true
	}
	var in writeInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	st, err := call.Host.WriteFile(ctx, call.Cwd, in.FilePath, []byte(in.Content))
	if err != nil {
		return nil, err
	}
	if w.fail {
		return nil, errors.New("write tool failed after writing")
	}
	if w.panic {
		panic("write tool panicked")
	}
	return json.Marshal(map[string]any{"path": st.Path, "bytes": st.Size})
}

func (writeTool) Paths(ctx context.Context, call tools.Call) ([]string, error) {
	var in writeInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	p, err := call.Host.ResolveInJail(ctx, call.Cwd, in.FilePath)
	if err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// funcTool runs a func.
type funcTool struct {
	name string
	run  func(ctx context.Context, call tools.Call) (json.RawMessage, error)
}

func (f funcTool) Name() string { return f.name }
func (f funcTool) Run(ctx context.Context, call tools.Call) (json.RawMessage, error) {
	return f.run(ctx, call)
}

func readTool(path string) funcTool {
	return funcTool{"Read", func(ctx context.Context, call tools.Call) (json.RawMessage, error) {
		r, err := call.Host.ReadFile(ctx, call.Cwd, path)
		if err != nil {
			return nil, err
		}
		return json.Marshal(r.Contents)
	}}
}

func input(path, content string) json.RawMessage {
	b, _ := json.Marshal(writeInput{path, content})
	return b
}

const outsideWrite = `echo "hook was here" > "$CLAUDE_PROJECT_DIR/outside.txt"` + "\n"

// checkWholeWorkspace checks a notice that covers the whole workspace as a
// possible change.
func checkWholeWorkspace(t *testing.T, n invalidation.Notice, cause invalidation.Cause, executed bool, outcome invalidation.Outcome) {
	t.Helper()
	if !n.All || n.Scope != invalidation.ScopeAll || n.Confirmed || n.Cause != cause ||
		n.Executed != executed || n.Outcome != outcome || n.Tool == "" {
		t.Fatalf("notice %+v; want all paths, every scope, possible, cause %v, executed %v, outcome %v",
			n, cause, executed, outcome)
	}
}

// TestHookWritesThenTheCallEnds: a real hook process writes a file outside
// the tool's declared paths and then refuses the tool, fails or times out.
// The bytes are on disk and the notice covers the whole workspace as a
// possible change, with Executed telling whether the tool ran.
func TestHookWritesThenTheCallEnds(t *testing.T) {
	for _, c := range []struct {
		name     string
		body     string
		timeout  time.Duration
		executed bool
		check    func(t *testing.T, res tools.Result, err error)
	}{
		{"deny", outsideWrite + `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not today"}}'`,
			0, false, func(t *testing.T, res tools.Result, err error) {
				var re *tools.RefusedError
				if !errors.As(err, &re) || !errors.Is(err, tools.ErrRefused) || re.Reason != "not today" || res.Reason != "not today" || res.RefusedBy == "" {
					t.Fatalf("err %v, result %+v", err, res)
				}
			}},
		{"exit 2", outsideWrite + `echo "blocked by policy" >&2; exit 2`,
			0, false, func(t *testing.T, res tools.Result, err error) {
				if !errors.Is(err, tools.ErrRefused) || res.Reason != "blocked by policy" {
					t.Fatalf("err %v, reason %q", err, res.Reason)
				}
			}},
		{"fails", outsideWrite + `echo "hook broke" >&2; exit 1`,
			0, true, func(t *testing.T, res tools.Result, err error) {
				if err != nil || res.Hooks[0].Err == nil || res.Hooks[0].ExitCode != 1 {
					t.Fatalf("err %v, hook run %+v", err, res.Hooks[0])
				}
			}},
		{"times out", outsideWrite + `sleep 30`,
			300 * time.Millisecond, true, func(t *testing.T, res tools.Result, err error) {
				if err != nil || !res.Hooks[0].TimedOut || res.Hooks[0].Err == nil || res.Hooks[0].Duration > 10*time.Second {
					t.Fatalf("err %v, hook run %+v", err, res.Hooks[0])
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			ran := false
			iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Matcher: "Write", Command: e.script("hook", c.body), Timeout: c.timeout})
			res, err := iv.Invoke(context.Background(), writeTool{ran: &ran}, tools.Call{ID: "toolu_1", Input: input("declared.txt", "x")})
			c.check(t, res, err)
			if res.Executed != c.executed || ran != c.executed || res.Refused == c.executed {
				t.Fatalf("Executed %v, ran %v, Refused %v; want executed %v", res.Executed, ran, res.Refused, c.executed)
			}
			if b, err := os.ReadFile(e.path("outside.txt")); err != nil || string(b) != "hook was here\n" {
				t.Fatalf("the hook's bytes: %q, %v", b, err)
			}
			n := e.one()
			if c.executed {
				// The tool's confirmed write and the hook's possible one: all.
				checkWholeWorkspace(t, n, invalidation.CauseUnknown, true, invalidation.OutcomeReturned)
			} else {
				checkWholeWorkspace(t, n, invalidation.CauseHook, false, invalidation.OutcomeRefused)
				if _, err := os.Stat(e.path("declared.txt")); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("a refused tool wrote: %v", err)
				}
			}
			if n.Invocation != res.Invocation {
				t.Fatalf("notice invocation %d, result %d", n.Invocation, res.Invocation)
			}
		})
	}
}

func TestPostHookAfterReadOnlyTool(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(e.path("README"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	iv := e.invoker(tools.Hook{Event: tools.PostToolUse, Command: e.script("post", outsideWrite)})
	res, err := iv.Invoke(context.Background(), readTool("README"), tools.Call{Input: json.RawMessage(`{}`)})
	if err != nil || string(res.Output) != `"hello"` || len(res.Hooks) != 1 || !res.Hooks[0].Started {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if _, err := os.Stat(e.path("outside.txt")); err != nil {
		t.Fatal(err)
	}
	checkWholeWorkspace(t, e.one(), invalidation.CauseHook, true, invalidation.OutcomeReturned)
}

func TestReadOnlyToolWithoutHooksPublishesNothing(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(e.path("README"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	iv := e.invoker(tools.Hook{Event: tools.PostToolUse, Command: e.script("post", "exit 0"), Writes: tools.WritesNothing})
	if _, err := iv.Invoke(context.Background(), readTool("README"), tools.Call{}); err != nil {
		t.Fatal(err)
	}
	if ns := e.notices(); len(ns) != 0 {
		t.Fatalf("a read with a read-only hook published %+v", ns)
	}
}

func TestToolPanicsOrFails(t *testing.T) {
	for _, c := range []struct {
		name    string
		tool    writeTool
		outcome invalidation.Outcome
	}{
		{"panics", writeTool{panic: true}, invalidation.OutcomePanicked},
		{"fails", writeTool{fail: true}, invalidation.OutcomeFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Command: e.script("pre", "exit 0"), Writes: tools.WritesNothing})
			if err := os.Mkdir(e.path("sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			var err error
			recovered := func() (v any) {
				defer func() { v = recover() }()
				_, err = iv.Invoke(context.Background(), c.tool, tools.Call{Input: input("sub/../a.txt", "data")})
				return nil
			}()
			if c.tool.panic != (recovered == "write tool panicked") {
				t.Fatalf("recovered %v", recovered)
			}
			if c.tool.fail && (err == nil || errors.Is(err, tools.ErrRefused)) {
				t.Fatalf("err %v, want the tool's error", err)
			}
			n := e.one()
			if n.All || !n.Confirmed || !slices.Equal(n.Paths, []string{e.path("a.txt")}) ||
				n.Scope != invalidation.ScopeContent|invalidation.ScopeTree || n.Cause != invalidation.CauseTool ||
				!n.Executed || n.Outcome != c.outcome {
				t.Fatalf("notice %+v", n)
			}
		})
	}
}

func TestNestedInvocation(t *testing.T) {
	e := newEnv(t)
	iv := e.invoker()
	outer := funcTool{"Task", func(ctx context.Context, call tools.Call) (json.RawMessage, error) {
		res, err := iv.Invoke(ctx, writeTool{}, tools.Call{Input: input("inner.txt", "i")})
		if err != nil {
			return nil, err
		}
		if _, err := call.Host.WriteFile(ctx, call.Cwd, "outer.txt", []byte("o")); err != nil {
			return nil, err
		}
		return json.Marshal(res.Invocation)
	}}
	res, err := iv.Invoke(context.Background(), outer, tools.Call{})
	if err != nil {
		t.Fatal(err)
	}
	ns := e.notices()
	if len(ns) != 2 {
		t.Fatalf("got %d notices, want 2: %+v", len(ns), ns)
	}
	inner, out := ns[0], ns[1]
	if inner.Tool != "Write" || inner.Parent != res.Invocation || !slices.Equal(inner.Paths, []string{e.path("inner.txt")}) {
		t.Errorf("inner notice %+v (outer invocation %d)", inner, res.Invocation)
	}
	if out.Tool != "Task" || out.Parent != 0 || out.Invocation != res.Invocation || !slices.Equal(out.Paths, []string{e.path("outer.txt")}) {
		t.Errorf("outer notice %+v", out)
	}
}

// TestRefusedWithNoHookStarted: a refusal before any hook process started
// publishes nothing (no false notice).
func TestRefusedWithNoHookStarted(t *testing.T) {
	t.Run("permit", func(t *testing.T) {
		e := newEnv(t)
		iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Command: e.script("pre", outsideWrite)})
		iv.Permit = func(ctx context.Context, tool string, in json.RawMessage) error {
			return errors.New("Write is not allowed here")
		}
		res, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", "x")})
		if !errors.Is(err, tools.ErrRefused) || res.Executed || len(res.Hooks) != 0 || res.Reason != "Write is not allowed here" {
			t.Fatalf("err %v, result %+v", err, res)
		}
		if _, err := os.Stat(e.path("outside.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("the hook ran")
		}
		if ns := e.notices(); len(ns) != 0 {
			t.Fatalf("false notice: %+v", ns)
		}
	})
	t.Run("read-only hook denies", func(t *testing.T) {
		e := newEnv(t)
		iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Writes: tools.WritesNothing, Command: e.script("pre",
			`echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'`)})
		res, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", "x")})
		if !errors.Is(err, tools.ErrRefused) || res.Executed || !res.Hooks[0].Started {
			t.Fatalf("err %v, result %+v", err, res)
		}
		if ns := e.notices(); len(ns) != 0 {
			t.Fatalf("false notice: %+v", ns)
		}
	})
	t.Run("matcher skips the hook", func(t *testing.T) {
		e := newEnv(t)
		iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Matcher: "Bash", Command: e.script("pre", outsideWrite)})
		iv.Permit = func(context.Context, string, json.RawMessage) error { return errors.New("no") }
		if _, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", "x")}); !errors.Is(err, tools.ErrRefused) {
			t.Fatal(err)
		}
		if ns := e.notices(); len(ns) != 0 {
			t.Fatalf("false notice: %+v", ns)
		}
	})
}

// TestHookDeclaredToolPaths: a hook declared to write only the tool's paths
// widens the notice to those paths, not to the workspace.
func TestHookDeclaredToolPaths(t *testing.T) {
	e := newEnv(t)
	iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Writes: tools.WritesToolPaths, Command: e.script("pre", "exit 2")})
	if err := os.Mkdir(e.path("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input("dir/../declared.txt", "x")})
	if !errors.Is(err, tools.ErrRefused) {
		t.Fatal(err)
	}
	n := e.one()
	if n.All || n.Confirmed || n.Executed || n.Cause != invalidation.CauseHook || !slices.Equal(n.Paths, []string{e.path("declared.txt")}) {
		t.Fatalf("notice %+v", n)
	}
	// A tool that cannot name its paths: the hook counts as writing anywhere.
	e2 := newEnv(t)
	iv = e2.invoker(tools.Hook{Event: tools.PostToolUse, Writes: tools.WritesToolPaths, Command: e2.script("post", "exit 0")})
	if _, err := iv.Invoke(context.Background(), funcTool{"Bash", func(context.Context, tools.Call) (json.RawMessage, error) {
		return json.RawMessage(`""`), nil
	}}, tools.Call{}); err != nil {
		t.Fatal(err)
	}
	checkWholeWorkspace(t, e2.one(), invalidation.CauseHook, true, invalidation.OutcomeReturned)
}

// TestHookContract: what a hook reads on standard input and what its answers
// do: updatedInput, additionalContext, systemMessage, PostToolUse feedback.
func TestHookContract(t *testing.T) {
	e := newEnv(t)
	dump := t.TempDir()
	pre := e.script("pre", `cat > "`+dump+`/pre.json"
printf '%s' "$CLAUDE_PROJECT_DIR" > "`+dump+`/project_dir"
echo '{"systemMessage":"pre says hi","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"rewritten.txt","content":"new"},"additionalContext":"pre context"}}'`)
	post := e.script("post", `cat > "`+dump+`/post.json"
echo '{"decision":"block","reason":"lint failed","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"post context"}}'`)
	post2 := e.script("post2", `echo "formatter complained" >&2; exit 2`)
	// The hooks dump their input outside the workspace for the test to
	// read, which the sandbox would refuse: they are declared unsandboxed.
	iv := e.invoker(
		tools.Hook{Event: tools.PreToolUse, Matcher: "Edit|Write", Command: pre, Writes: tools.WritesNothing, Unsandboxed: true},
		tools.Hook{Event: tools.PostToolUse, Matcher: "*", Command: post, Writes: tools.WritesNothing, Unsandboxed: true},
		tools.Hook{Event: tools.PostToolUse, Matcher: "Write", Command: post2, Writes: tools.WritesNothing, Unsandboxed: true},
	)
	if err := os.Mkdir(e.path("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{ID: "toolu_42", Cwd: "sub", Input: input("orig.txt", "old")})
	if err != nil {
		t.Fatal(err)
	}

	var got map[string]json.RawMessage
	b, err := os.ReadFile(filepath.Join(dump, "pre.json"))
	if err != nil || json.Unmarshal(b, &got) != nil {
		t.Fatalf("pre hook input %q: %v", b, err)
	}
	want := map[string]string{
		"session_id":      `"sess-1"`,
		"transcript_path": `"/tmp/t.jsonl"`,
		"cwd":             strconvQuote(e.path("sub")),
		"hook_event_name": `"PreToolUse"`,
		"tool_name":       `"Write"`,
		"tool_input":      `{"file_path":"orig.txt","content":"old"}`,
		"tool_use_id":     `"toolu_42"`,
	}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("pre hook input %s = %s, want %s", k, got[k], v)
		}
	}
	if _, ok := got["tool_response"]; ok {
		t.Error("a PreToolUse hook got tool_response")
	}
	if b, _ := os.ReadFile(filepath.Join(dump, "project_dir")); string(b) != e.ws {
		t.Errorf("CLAUDE_PROJECT_DIR = %q, want %q", b, e.ws)
	}

	b, err = os.ReadFile(filepath.Join(dump, "post.json"))
	if err != nil || json.Unmarshal(b, &got) != nil {
		t.Fatalf("post hook input %q: %v", b, err)
	}
	if string(got["hook_event_name"]) != `"PostToolUse"` ||
		string(got["tool_input"]) != `{"file_path":"rewritten.txt","content":"new"}` ||
		!strings.Contains(string(got["tool_response"]), `rewritten.txt`) {
		t.Errorf("post hook input %s", b)
	}

	if b, err := os.ReadFile(e.path("sub/rewritten.txt")); err != nil || string(b) != "new" {
		t.Fatalf("updatedInput not applied: %q, %v", b, err)
	}
	if _, err := os.Stat(e.path("sub/orig.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the original input was written")
	}
	if string(res.Input) != `{"file_path":"rewritten.txt","content":"new"}` {
		t.Errorf("Result.Input %s", res.Input)
	}
	if !slices.Equal(res.AdditionalContext, []string{"pre context", "post context"}) ||
		!slices.Equal(res.SystemMessages, []string{"pre says hi"}) ||
		!slices.Equal(res.Feedback, []string{"lint failed", "formatter complained"}) {
		t.Errorf("context %q, messages %q, feedback %q", res.AdditionalContext, res.SystemMessages, res.Feedback)
	}
	n := e.one()
	if !n.Confirmed || !slices.Equal(n.Paths, []string{e.path("sub/rewritten.txt")}) {
		t.Errorf("notice %+v", n)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestAskAndContinueFalse(t *testing.T) {
	e := newEnv(t)
	ask := e.script("ask", `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`)
	hook := tools.Hook{Event: tools.PreToolUse, Command: ask, Writes: tools.WritesNothing}

	res, err := e.invoker(hook).Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", "x")})
	if !errors.Is(err, tools.ErrRefused) || res.Reason != "sure?" || res.Executed {
		t.Fatalf("ask with nobody to ask: err %v, result %+v", err, res)
	}

	iv := e.invoker(hook)
	var asked string
	iv.Ask = func(ctx context.Context, tool string, in json.RawMessage, reason string) bool {
		asked = tool + ": " + reason
		return true
	}
	if res, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", "x")}); err != nil || !res.Executed || asked != "Write: sure?" {
		t.Fatalf("ask answered yes: err %v, executed %v, asked %q", err, res.Executed, asked)
	}

	stop := e.script("stop", `echo '{"continue":false,"stopReason":"user pressed stop"}'`)
	res, err = e.invoker(tools.Hook{Event: tools.PreToolUse, Command: stop, Writes: tools.WritesNothing}).
		Invoke(context.Background(), writeTool{}, tools.Call{Input: input("b.txt", "x")})
	if !errors.Is(err, tools.ErrRefused) || !res.Stop || res.StopReason != "user pressed stop" || res.Executed {
		t.Fatalf("continue false: err %v, result %+v", err, res)
	}
	if _, err := os.Stat(e.path("b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("tool ran after continue:false")
	}
}

func TestMatcher(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		matcher string
		tool    string
		runs    bool
	}{
		{"", "Write", true},
		{"*", "mcp__fs__write", true},
		{"Write", "Write", true},
		{"Writ", "Write", false},
		{"Edit|Write", "Write", true},
		{"Edit|Write", "MultiEdit", false},
		{"mcp__.*", "mcp__fs__write", true},
		{"mcp__.*", "Write", false},
	} {
		iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Matcher: c.matcher, Command: "exit 0", Writes: tools.WritesNothing})
		tool := funcTool{c.tool, func(context.Context, tools.Call) (json.RawMessage, error) { return nil, nil }}
		res, err := iv.Invoke(context.Background(), tool, tools.Call{})
		if err != nil || (len(res.Hooks) == 1) != c.runs {
			t.Errorf("matcher %q, tool %q: err %v, ran %d hooks, want run %v", c.matcher, c.tool, err, len(res.Hooks), c.runs)
		}
	}
	iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Matcher: "(", Command: "exit 0"})
	if _, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", "x")}); err == nil {
		t.Fatal("a bad matcher was accepted")
	}
	iv = e.invoker(tools.Hook{Event: "Stop", Command: "exit 0"})
	if _, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input("a.txt", "x")}); err == nil {
		t.Fatal("an unknown event was accepted")
	}
	iv = e.invoker(tools.Hook{Event: tools.PreToolUse, Command: "exit 0"})
	if _, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: json.RawMessage(`{"file_path":`)}); err == nil {
		t.Fatal("input that is not JSON was accepted")
	}
	if _, err := os.Stat(e.path("a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a tool ran with a bad hook configuration")
	}
	if ns := e.notices(); len(ns) != 0 {
		t.Fatalf("a call refused for its configuration published %+v", ns)
	}
}

func TestCwdOutsideTheJail(t *testing.T) {
	e := newEnv(t)
	iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Command: e.script("pre", outsideWrite)})
	for _, cwd := range []string{t.TempDir(), "missing", "../.."} {
		if _, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Cwd: cwd, Input: input("a.txt", "x")}); err == nil || errors.Is(err, tools.ErrRefused) {
			t.Errorf("cwd %q: err %v", cwd, err)
		}
	}
	if ns := e.notices(); len(ns) != 0 {
		t.Fatalf("notices %+v", ns)
	}
}

// TestLargeHookInput: the hook's standard input is not bounded by the
// environment's size limits.
func TestLargeHookInput(t *testing.T) {
	e := newEnv(t)
	iv := e.invoker(tools.Hook{Event: tools.PreToolUse, Command: "wc -c", Writes: tools.WritesNothing})
	big := strings.Repeat("x", 1<<20)
	res, err := iv.Invoke(context.Background(), writeTool{}, tools.Call{Input: input("big.txt", big)})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscan(res.Hooks[0].Stdout, &n); err != nil || n < 1<<20 {
		t.Fatalf("hook read %q bytes", res.Hooks[0].Stdout)
	}
}
