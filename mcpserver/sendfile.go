package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
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
// outbox (package senduserfile). The staging reads its sources by real
// path, outside the jail's descriptors, and in Claude Code it reads any
// file at all; here every entry is first resolved through the jail, so
// only files inside the roots are handed on, and a copy whose source turns
// out to lie outside them (a link swapped in after the check) is removed
// again before the result is returned.
func (s *Server) sendUserFile(ctx context.Context, in sendIn) (*mcp.CallToolResult, SendOut, error) {
	if len(in.Files) == 0 {
		return nil, SendOut{}, errors.New("files is empty: give at least one path")
	}
	if len(in.Files) > maxSendFiles {
		return nil, SendOut{}, fmt.Errorf("%d files is more than the %d one call may send: split the list", len(in.Files), maxSendFiles)
	}
	canon := make([]string, len(in.Files))
	for i, f := range in.Files {
		st, err := s.h.Stat(ctx, "", f)
		if err != nil {
			return nil, SendOut{}, s.explain(ctx, f, err)
		}
		if st.IsDir {
			return nil, SendOut{}, fmt.Errorf("%s is a directory: send_user_file sends files", quote(f))
		}
		canon[i] = st.Path
	}
	ws := s.h.WorkspaceRoot()
	res := senduserfile.Stage(ctx, s.h, ws, canon, senduserfile.Options{})
	inv := invalidation.FromContext(ctx)
	inv.Touch(invalidation.ScopeContent|invalidation.ScopeTree, res.Written...)

	out := SendOut{Files: make([]string, len(in.Files)), Staged: res.Staged, Kept: res.Kept, BytesStaged: res.BytesStaged}
	var b strings.Builder
	var kept []string
	for i, f := range res.Files {
		out.Files[i] = canon[i]
		switch f.Status {
		case senduserfile.Staged, senduserfile.Reused:
			if !s.insideRoots(f.Source) {
				// The source moved out of the roots between the check and
				// the copy: take the copy back.
				s.h.RemoveFile(ctx, "", f.Path)
				inv.Touch(invalidation.ScopeContent|invalidation.ScopeTree, f.Path)
				out.Staged--
				out.Kept++
				kept = append(kept, fmt.Sprintf("%s (it now leads outside the roots)", in.Files[i]))
				continue
			}
			out.Files[i] = f.Path
			fmt.Fprintf(&b, "%s: staged as %s\n", in.Files[i], f.Path)
		case senduserfile.Kept:
			kept = append(kept, fmt.Sprintf("%s (%v)", in.Files[i], f.Err))
		default:
			fmt.Fprintf(&b, "%s: inside the workspace, sent as it is\n", canon[i])
		}
	}
	if len(kept) > 0 {
		fmt.Fprintf(&b, "could not stage: %s; the user may not be able to open these\n", strings.Join(kept, "; "))
	}
	r := text(b.String())
	r.IsError = len(kept) == len(in.Files)
	return r, out, nil
}

// insideRoots reports whether the canonical path p lies in one of the
// Host's roots.
func (s *Server) insideRoots(p string) bool {
	if s.h.PathPolicy() == host.Unrestricted {
		return true
	}
	p = filepath.Clean(p)
	for _, r := range s.h.Roots() {
		if p == r || within(p, r) {
			return true
		}
	}
	return false
}
