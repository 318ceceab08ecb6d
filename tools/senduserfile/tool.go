package senduserfile

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"github.com/agenthost/agenthost/invalidation"
	"github.com/agenthost/agenthost/tools"
)

// Tool is SendUserFile's staging as a tool for tools.Invoker: it stages the
// files of its input into the outbox of the call's working directory
// through the call's Host. The zero value is ready to use.
//
// What it wrote (copies, folders, .gitignore, pruned folders) is recorded
// as a confirmed content and tree change of those canonical paths in the
// invalidation invocation ctx carries (the Invoker's); with none there and
// a Publisher set, Run begins and ends one of its own.
type Tool struct {
	// Options are the limits of each call.
	Options Options
	// Publisher is used only when Run's ctx carries no invocation.
	Publisher *invalidation.Publisher
}

var (
	_ tools.Tool     = (*Tool)(nil)
	_ tools.PathTool = (*Tool)(nil)
)

// Output is what Run returns, as JSON.
type Output struct {
	// Files is the input's files with the entries of staged files replaced
	// by their copies (the hook's updatedInput.files).
	Files json.RawMessage `json:"files"`
	// Message is the hook's systemMessage ("" when nothing was staged or
	// kept).
	Message string `json:"message,omitempty"`
	// Staged, Kept and BytesStaged are as in Result.
	Staged      int   `json:"staged"`
	Kept        int   `json:"kept"`
	BytesStaged int64 `json:"bytes_staged"`
}

// ErrInput is wrapped by Run's error for an input that is not an object
// with a files list.
var ErrInput = errors.New("senduserfile: input must be an object with a files list")

// Name returns ToolName.
func (t *Tool) Name() string { return ToolName }

// Paths returns the one directory a call may write under:
// <cwd>/.agent-harness.
func (t *Tool) Paths(ctx context.Context, call tools.Call) ([]string, error) {
	return []string{filepath.Join(call.Cwd, ".agent-harness")}, nil
}

// Run stages the files of call.Input (see Stage) and returns an Output.
// The error wraps ErrInput for an input without a files list; a file that
// cannot be staged is not an error (it is kept, and counted in Output).
// call.Cwd is the working directory, "" meaning the Host's workspace root.
func (t *Tool) Run(ctx context.Context, call tools.Call) (json.RawMessage, error) {
	if call.Host == nil {
		return nil, errors.New("senduserfile: Call.Host is nil")
	}
	ms, ok := objectMembers(call.Input)
	var files []byte
	for _, m := range ms {
		if m.key == "files" {
			files = m.val
		}
	}
	elems, ok2 := arrayElements(files)
	if !ok || !ok2 {
		return nil, ErrInput
	}
	paths := make([]string, len(elems))
	for i, e := range elems {
		if e[0] == '"' {
			json.Unmarshal(e, &paths[i])
		}
	}
	cwd, err := call.Host.ResolveInJail(ctx, call.Cwd, ".")
	if err != nil {
		return nil, err
	}

	inv := invalidation.FromContext(ctx)
	if inv == nil && t.Publisher != nil {
		ctx, inv = t.Publisher.Begin(ctx, ToolName)
		inv.SetExecuted()
		defer inv.End()
	}
	res := Stage(ctx, call.Host, cwd, paths, t.Options)
	inv.Touch(invalidation.ScopeContent|invalidation.ScopeTree, res.Written...)

	repl := map[int]string{}
	for i, f := range res.Files {
		if f.Status == Staged || f.Status == Reused {
			repl[i] = f.Path
		}
	}
	out := Output{Staged: res.Staged, Kept: res.Kept, BytesStaged: res.BytesStaged}
	out.Files = rewriteArray(elems, repl)
	if res.Staged+res.Kept > 0 {
		out.Message = Message(res)
	}
	return json.Marshal(out)
}
