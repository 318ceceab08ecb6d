package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/sniff"
)

// maxMultiRead is how many files one read_multiple_files call takes. Each
// file may be up to the Host's read limit, so the number bounds one reply.
const maxMultiRead = 64

type readFileIn struct {
	Path string `json:"path" jsonschema:"the file to read: absolute, or relative to the workspace root"`
	Head int    `json:"head,omitempty" jsonschema:"if set, return only the first N lines"`
	Tail int    `json:"tail,omitempty" jsonschema:"if set, return only the last N lines (not with head)"`
}

type readMultipleIn struct {
	Paths []string `json:"paths" jsonschema:"the files to read, each absolute or relative to the workspace root"`
}

type writeFileIn struct {
	Path    string `json:"path" jsonschema:"the file to create or replace; its directory must exist"`
	Content string `json:"content" jsonschema:"the complete new contents of the file"`
}

// FileInfo is the structured output of stat and write_file.
type FileInfo struct {
	Path    string `json:"path" jsonschema:"canonical absolute path"`
	PathB64 string `json:"path_b64,omitempty" jsonschema:"only for a path that is not UTF-8: its exact bytes in standard base64"`
	Size    int64  `json:"size" jsonschema:"size in bytes"`
	Mode    string `json:"mode" jsonschema:"permission bits and type, as ls shows them"`
	ModTime string `json:"modTime" jsonschema:"last modification time, RFC 3339"`
	IsDir   bool   `json:"isDir"`
}

type editFileIn struct {
	Path   string     `json:"path" jsonschema:"the file to edit"`
	Edits  []editSpec `json:"edits" jsonschema:"replacements applied in order, each to the result of the ones before"`
	DryRun bool       `json:"dryRun,omitempty" jsonschema:"if true, change nothing and return the unified diff the edits would make"`
}

type editSpec struct {
	OldText    string `json:"oldText" jsonschema:"text to find, exactly as in the file (whitespace and line breaks included); it must occur exactly once unless replace_all or expected_replacements is set"`
	NewText    string `json:"newText" jsonschema:"text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence (at least one) instead of requiring exactly one"`
	// ReplaceAllOld is replaceAll, the spelling of earlier versions.
	ReplaceAllOld bool `json:"replaceAll,omitempty" jsonschema:"the same as replace_all (kept for existing clients)"`
	Expected      int  `json:"expected_replacements,omitempty" jsonschema:"replace every occurrence, and only if there are exactly this many (absent or 0: exactly one, unless replace_all)"`
}

type createDirIn struct {
	Path string `json:"path" jsonschema:"the directory to create; missing parents are created too, and an existing directory is not an error"`
}

type removeFileIn struct {
	Path string `json:"path" jsonschema:"the file or symbolic link to remove (not a directory; a link is removed, not its target)"`
}

type moveFileIn struct {
	Source      string `json:"source" jsonschema:"the file or directory to move"`
	Destination string `json:"destination" jsonschema:"its new path (not an existing file: the move fails rather than replace anything)"`
}

type statIn struct {
	Path string `json:"path" jsonschema:"the file or directory to describe"`
}

func (s *Server) addFileTools() {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	addTool(s, &mcp.Tool{
		Name: "read_file",
		Description: "Read a text file inside the allowed roots and return its contents. " +
			"Use head or tail to read only the first or last N lines of a long file. " +
			"A file that is not text (an image, an archive) comes back as a blob resource with its MIME type; " +
			"in text, bytes that are not valid UTF-8 are shown as U+FFFD.",
		Annotations: ro,
	}, s.readFile)
	addTool(s, &mcp.Tool{
		Name: "read_multiple_files",
		Description: "Read several text files at once. Each file's contents follow a line \"==> PATH <==\"; " +
			"a file that cannot be read shows its error instead and does not stop the others.",
		Annotations: ro,
	}, s.readMultiple)
	addTool(s, &mcp.Tool{
		Name: "write_file",
		Description: "Create a file or replace its whole contents, atomically (a reader sees the old or the new file, never a mix). " +
			"The directory must exist (create_directory makes it). Prefer edit_file to change part of an existing file.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)},
	}, s.writeFile)
	addTool(s, &mcp.Tool{
		Name: "edit_file",
		Description: "Edit a text file by exact string replacement and return the unified diff of the change. " +
			"Each oldText must match the file exactly, including indentation and line breaks (a match that differs only in whitespace is refused, not guessed at), " +
			"and occur exactly once; to replace several occurrences set replace_all, or expected_replacements to the number there must be. " +
			"Otherwise nothing is written and the error says why (how many occurrences, at which lines). Use dryRun to preview the diff.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)},
	}, s.editFile)
	addTool(s, &mcp.Tool{
		Name:        "create_directory",
		Description: "Create a directory and any missing parents. An existing directory is not an error.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(false)},
	}, s.createDir)
	addTool(s, &mcp.Tool{
		Name:        "remove_file",
		Description: "Remove one file or symbolic link (the link itself, never its target). Directories are not removed.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)},
	}, s.removeFile)
	addTool(s, &mcp.Tool{
		Name: "move_file",
		Description: "Move or rename a file or directory. Both paths must lie inside the allowed roots; " +
			"the destination must not exist (nothing is ever replaced) and its directory must.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)},
	}, s.moveFile)
	addTool(s, &mcp.Tool{
		Name:        "stat",
		Description: "Describe a file or directory: canonical path, size, mode, modification time, whether it is a directory.",
		Annotations: ro,
	}, s.stat)
}

func (s *Server) readFile(ctx context.Context, in readFileIn) (*mcp.CallToolResult, any, error) {
	if in.Head < 0 || in.Tail < 0 {
		return nil, nil, errors.New("head and tail must not be negative")
	}
	if in.Head > 0 && in.Tail > 0 {
		return nil, nil, errors.New("give head or tail, not both")
	}
	if in.Head > 0 || in.Tail > 0 {
		return s.readLines(ctx, in)
	}
	r, err := s.h.ReadFile(ctx, "", in.Path)
	if err != nil {
		return nil, nil, s.explain(ctx, in.Path, err)
	}
	c := r.Contents
	if strings.ContainsRune(c, utf8.RuneError) || strings.IndexByte(c[:min(len(c), sniff.NULWindow)], 0) >= 0 {
		// Perhaps not text: look at the bytes themselves.
		if b, st, err := s.readRaw(ctx, r.Path); err == nil && !isText(b) {
			return binaryResult(st, b), nil, nil
		}
	}
	return text(c), nil, nil
}

func (s *Server) readMultiple(ctx context.Context, in readMultipleIn) (*mcp.CallToolResult, any, error) {
	if len(in.Paths) == 0 {
		return nil, nil, errors.New("paths is empty: give at least one file")
	}
	if len(in.Paths) > maxMultiRead {
		return nil, nil, fmt.Errorf("%d paths is more than the %d one call may read: split the list", len(in.Paths), maxMultiRead)
	}
	var b strings.Builder
	failed := 0
	for i, p := range in.Paths {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "==> %s <==\n", p)
		r, err := s.h.ReadFile(ctx, "", p)
		if err != nil {
			failed++
			fmt.Fprintf(&b, "error: %v\n", s.explain(ctx, p, err))
			continue
		}
		b.WriteString(r.Contents)
		if r.Contents != "" && !strings.HasSuffix(r.Contents, "\n") {
			b.WriteString("\n")
		}
	}
	res := text(b.String())
	res.IsError = failed == len(in.Paths)
	return res, nil, nil
}

func (s *Server) writeFile(ctx context.Context, in writeFileIn) (*mcp.CallToolResult, FileInfo, error) {
	st, err := s.h.WriteFile(ctx, "", in.Path, []byte(in.Content))
	if err != nil {
		if m := s.missingParent(ctx, in.Path, err); m != nil {
			return nil, FileInfo{}, m
		}
		return nil, FileInfo{}, s.explain(ctx, in.Path, err)
	}
	fi := toFileInfo(st.Path, st.Size, st.Mode.String(), st.ModTime, st.IsDir)
	return text(fmt.Sprintf("wrote %d bytes to %s", st.Size, rawText(st.Path))), fi, nil
}

func toFileInfo(path string, size int64, mode string, mtime time.Time, isDir bool) FileInfo {
	return FileInfo{Path: path, Size: size, Mode: mode, ModTime: mtime.UTC().Format(time.RFC3339Nano), IsDir: isDir}
}

func (s *Server) editFile(ctx context.Context, in editFileIn) (*mcp.CallToolResult, any, error) {
	if len(in.Edits) == 0 {
		return nil, nil, errors.New("edits is empty: give at least one {oldText, newText}")
	}
	edits := make([]host.Edit, len(in.Edits))
	for i, e := range in.Edits {
		edits[i] = host.Edit{OldText: e.OldText, NewText: e.NewText, ReplaceAll: e.ReplaceAll || e.ReplaceAllOld, Expected: e.Expected}
	}
	// Host.EditFile: the read, the edit and the write happen on one open
	// directory and under the file's lock, so the file replaced is the
	// file that was read, and another agenthost write (this server's or
	// another process's) waits for this edit or is read by it, never lost.
	// A write by a program outside agenthost that raced with the edit
	// makes it fail (ErrChanged) rather than be lost.
	res, err := s.h.EditFile(ctx, "", in.Path, edits, host.EditOptions{DryRun: in.DryRun})
	var ee *host.EditError
	switch {
	case err == nil:
		if res.Diff == "" {
			return text("(no change)\n"), nil, nil
		}
		return text(res.Diff), nil, nil
	case errors.Is(err, host.ErrChanged):
		return nil, nil, fmt.Errorf("%s changed while it was being edited (a program outside agenthost wrote it in between); nothing was written. Read it again and retry", in.Path)
	case errors.As(err, &ee):
		return nil, nil, editMessage(ee)
	}
	return nil, nil, s.explain(ctx, in.Path, err)
}

// editMessage is a refusal of Host.EditFile worded for the model, with
// edit_file's argument names.
func editMessage(e *host.EditError) error {
	lines := func() string {
		l := make([]string, len(e.Lines))
		for i, n := range e.Lines {
			l[i] = strconv.Itoa(n)
		}
		return strings.Join(l, ", ")
	}
	switch e.Err {
	case host.ErrNotText:
		return fmt.Errorf("%s is not valid UTF-8 text: editing it through text would change bytes the edit does not name, so nothing was written", e.Path)
	case host.ErrEditNotFound:
		hint := ""
		if e.Hint != "" {
			hint = " (" + strings.ReplaceAll(e.Hint, "in the text", "in oldText") + ")"
		}
		return fmt.Errorf("edit %d: oldText was not found in %s%s; nothing was written. Read the file again and copy the text exactly", e.Edit, e.Path, hint)
	case host.ErrEditCount:
		return fmt.Errorf("edit %d: oldText occurs %d times in %s (at lines %s), not the %d that expected_replacements says; nothing was written", e.Edit, e.Count, e.Path, lines(), e.Expected)
	case host.ErrEditAmbiguous:
		return fmt.Errorf("edit %d: oldText occurs %d times in %s (at lines %s); nothing was written. Add surrounding lines to make it unique, "+
			"set replace_all to replace every occurrence, or set expected_replacements to %d", e.Edit, e.Count, e.Path, lines(), e.Count)
	case host.ErrEditInvalid:
		if e.Expected < 0 {
			return fmt.Errorf("edit %d: expected_replacements is %d; it must be a positive count (or absent)", e.Edit, e.Expected)
		}
		return fmt.Errorf("edit %d: oldText is empty; to replace the whole file use write_file", e.Edit)
	}
	return e
}

func (s *Server) createDir(ctx context.Context, in createDirIn) (*mcp.CallToolResult, any, error) {
	if err := s.h.CreateDir(ctx, "", in.Path, true, true); err != nil {
		return nil, nil, s.explain(ctx, in.Path, err)
	}
	p, err := s.h.ResolveInJail(ctx, "", in.Path)
	if err != nil {
		p = in.Path
	}
	return text("directory " + p + " exists"), nil, nil
}

func (s *Server) removeFile(ctx context.Context, in removeFileIn) (*mcp.CallToolResult, any, error) {
	if err := s.h.RemoveFile(ctx, "", in.Path); err != nil {
		return nil, nil, s.explain(ctx, in.Path, err)
	}
	return text("removed " + in.Path), nil, nil
}

func (s *Server) moveFile(ctx context.Context, in moveFileIn) (*mcp.CallToolResult, any, error) {
	from, to, err := s.h.Rename(ctx, "", in.Source, in.Destination)
	if err != nil {
		var re *host.RenameError
		if errors.As(err, &re) {
			return nil, nil, s.explain(ctx, re.Path, re.Err)
		}
		return nil, nil, err
	}
	return text(fmt.Sprintf("moved %s to %s", from, to)), nil, nil
}

func (s *Server) stat(ctx context.Context, in statIn) (*mcp.CallToolResult, FileInfo, error) {
	st, err := s.h.Stat(ctx, "", in.Path)
	if err != nil {
		return nil, FileInfo{}, s.explain(ctx, in.Path, err)
	}
	fi := toFileInfo(st.Path, st.Size, st.Mode.String(), st.ModTime, st.IsDir)
	kind := "file"
	if st.IsDir {
		kind = "directory"
	}
	return text(fmt.Sprintf("%s: %s, %d bytes, mode %s, modified %s", rawText(st.Path), kind, st.Size, fi.Mode, fi.ModTime)), fi, nil
}
