package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/invalidation"
	"github.com/agenthost/agenthost/tools/senduserfile"
)

// maxSendFiles is how many files one send_user_file call takes.
const maxSendFiles = 64

type sendIn struct {
	Files []string `json:"files" jsonschema:"the files to hand to the user; each must lie inside the roots"`
}

// SendOut is the structured output of send_user_file.
type SendOut struct {
	Files       []string `json:"files" jsonschema:"the paths to give the user, in order: the staged copy for a file outside the workspace, the file itself otherwise"`
	Staged      int      `json:"staged"`
	Kept        int      `json:"kept" jsonschema:"files that should have been staged but could not be"`
	BytesStaged int64    `json:"bytesStaged"`
}

func (s *Server) addSendTool() {
	addTool(s, &mcp.Tool{
		Name: "send_user_file",
		Description: "Prepare files to be shown to the user (what SendUserFile sends): a file inside the workspace is used as it is; " +
			"a file in another root is copied into the workspace outbox (.agent-harness/outbox/, git-ignored) so that a remote client, " +
			"which is served only workspace files, can open it. Returns the path to give the user for each file, in order.",
	}, s.sendUserFile)
}

// sendUserFile stages files from the other roots into the workspace's
// outbox (package senduserfile). In Claude Code the staging reads any file
// the user can read; here it reads its sources only through the jail: each
// entry is opened once with Host.OpenFile (links followed only within the
// roots; a directory, FIFO or device refused without blocking), and the
// staging takes the size, times, type and bytes of the source from that
// descriptor alone, with the jail's canonical path as the
// digest's real path. No path is looked up again after the jail's check, so
// a directory swapped for a link to the outside while the call runs cannot
// bring an outside file into the workspace. An entry the jail refuses, a
// missing file or a directory is not staged and is explained (an escape
// names the roots); the call is an error result when no entry could be
// used.
func (s *Server) sendUserFile(ctx context.Context, in sendIn) (*mcp.CallToolResult, SendOut, error) {
	if len(in.Files) == 0 {
		return nil, SendOut{}, errors.New("files is empty: give at least one path")
	}
	if len(in.Files) > maxSendFiles {
		return nil, SendOut{}, fmt.Errorf("%d files is more than the %d one call may send: split the list", len(in.Files), maxSendFiles)
	}
	for i, f := range in.Files {
		if strings.TrimSpace(f) == "" {
			return nil, SendOut{}, fmt.Errorf("files[%d] is blank: give a path", i)
		}
	}
	res := senduserfile.Stage(ctx, s.h, s.h.WorkspaceRoot(), in.Files, senduserfile.Options{
		// Relative paths start at the workspace root, as in every tool.
		OpenSource: func(p string) (*os.File, string, error) {
			f, st, err := s.h.OpenFile(ctx, "", p)
			return f, st.Path, err
		},
	})
	invalidation.FromContext(ctx).Touch(invalidation.ScopeContent|invalidation.ScopeTree, res.Written...)

	out := SendOut{Files: make([]string, len(in.Files)), Staged: res.Staged, Kept: res.Kept, BytesStaged: res.BytesStaged}
	var b strings.Builder
	var kept []string
	for i, f := range res.Files {
		out.Files[i] = in.Files[i]
		if f.Source != "" {
			out.Files[i] = f.Source
		}
		switch f.Status {
		case senduserfile.Staged, senduserfile.Reused:
			out.Files[i] = f.Path
			fmt.Fprintf(&b, "%s: staged as %s\n", in.Files[i], f.Path)
		case senduserfile.Kept:
			kept = append(kept, s.explain(ctx, in.Files[i], f.Err).Error())
		default:
			fmt.Fprintf(&b, "%s: inside the workspace, sent as it is\n", out.Files[i])
		}
	}
	if len(kept) > 0 {
		fmt.Fprintf(&b, "could not stage: %s; the user may not be able to open these\n", strings.Join(kept, "; "))
	}
	r := text(b.String())
	r.IsError = len(kept) == len(in.Files)
	return r, out, nil
}
