package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
)

const (
	// DefaultWalkEntries is how many entries walk returns when the call
	// sets no limit: about 100 KB of paths, a large share of a model's
	// context already, and a tree bigger than that is better narrowed by
	// path or depth than read whole.
	DefaultWalkEntries = 2000
	// MaxWalkEntries is the most entries one walk call returns, whatever it
	// asks for.
	MaxWalkEntries = 50000
	// maxListEntries is the most entries one list_directory call returns
	// (its page size, and its default): a larger directory is listed in
	// pages, each call given the cursor the one before returned.
	maxListEntries = 5000
	// maxCheckIgnore is how many paths one check_ignore call takes.
	maxCheckIgnore = 1000
)

type listDirIn struct {
	Path       string `json:"path" jsonschema:"the directory to list; absolute, or relative to the workspace root"`
	MaxEntries int    `json:"maxEntries,omitempty" jsonschema:"the most entries to return (default and at most 5000)"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"where to go on: the nextCursor of the previous page of the same directory"`
}

type walkIn struct {
	Path       string `json:"path,omitempty" jsonschema:"the directory to walk (default: the workspace root)"`
	MaxDepth   int    `json:"maxDepth,omitempty" jsonschema:"how deep to go: 1 lists only the directory's children; 0 or absent is unlimited"`
	MaxEntries int    `json:"maxEntries,omitempty" jsonschema:"the most entries to return (default 2000, at most 50000)"`
	Hidden     *bool  `json:"hidden,omitempty" jsonschema:"dot-files (names starting with a dot): listed by default, as git lists them; false leaves them out, as rg --files does (.git itself is never listed)"`
	NoIgnore   bool   `json:"noIgnore,omitempty" jsonschema:"do not apply .gitignore, .git/info/exclude or the global excludes file"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"where to go on: the nextCursor of the previous page of the same walk"`
}

type checkIgnoreIn struct {
	Paths   []string `json:"paths" jsonschema:"the paths to check; they need not exist (end one with / to ask about a directory)"`
	NoIndex bool     `json:"noIndex,omitempty" jsonschema:"judge tracked files by the rules too (git check-ignore --no-index)"`
}

// ListEntry is one entry of a listing's structured content, its name or
// path exactly as the file system has it (the text form quotes a name that
// could be misread; see listName).
type ListEntry struct {
	Path string `json:"path" jsonschema:"the entry: its name (list_directory) or its path relative to the walked directory with / between names (walk)"`
	// PathB64 is Path's bytes when they are not UTF-8 (internal/rawname).
	PathB64 string `json:"path_b64,omitempty" jsonschema:"only for a name that is not UTF-8 (path then has U+FFFD for each bad byte): its exact bytes in standard base64; pass it as path_b64 to name the entry"`
	Type    string `json:"type" jsonschema:"file (a symbolic link too, never followed) or directory"`
}

// ListOut is the structured output of list_directory and walk.
type ListOut struct {
	Root      string      `json:"root" jsonschema:"the canonical path of the directory listed"`
	RootB64   string      `json:"root_b64,omitempty" jsonschema:"only for a root that is not UTF-8: its exact bytes in standard base64"`
	Entries   []ListEntry `json:"entries" jsonschema:"the entries, in the listing's order"`
	Truncated bool        `json:"truncated" jsonschema:"true when more entries follow this page (maxEntries, or list_directory's limit)"`
	// NextCursor resumes the listing after its last entry (see listCursor).
	NextCursor string   `json:"nextCursor,omitempty" jsonschema:"set when truncated: pass it as cursor, with the same path, for the next page"`
	Unread     []string `json:"unread,omitempty" jsonschema:"directories that could not be read, with why"`
}

// listCursor is what a nextCursor holds, opaque to the client: the tool,
// the canonical directory listed and the last entry returned (relative to
// it, names separated by /). A page lists the entries that sort after
// that entry (host.WalkOptions.After), so paging is stable whatever is
// created or removed between the calls: every entry present throughout is
// listed exactly once, in order.
type listCursor struct {
	Tool  string `json:"t"`
	Root  string `json:"r"`
	After string `json:"a"`
}

// cursorVersion starts every cursor, so that a later format can tell an
// old one.
const cursorVersion = "c1."

// encode is the cursor as a client carries it.
func (c listCursor) encode() string {
	b, _ := json.Marshal(c)
	return cursorVersion + base64.RawURLEncoding.EncodeToString(b)
}

// errBadCursor is a cursor that no page of this listing returned.
var errBadCursor = errors.New(`argument "cursor" is not a nextCursor of this listing: give the nextCursor of the previous page, with the same path (or no cursor for the first page)`)

// decodeCursor reads s ("" gives "": the first page) for tool on the
// directory root and returns the entry to resume after.
func decodeCursor(s, tool, root string) (string, error) {
	if s == "" {
		return "", nil
	}
	rest, ok := strings.CutPrefix(s, cursorVersion)
	if !ok || len(rest) > 64<<10 {
		return "", errBadCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return "", errBadCursor
	}
	var c listCursor
	if json.Unmarshal(b, &c) != nil || c.Tool != tool || c.After == "" {
		return "", errBadCursor
	}
	if c.Root != root {
		return "", fmt.Errorf("%w (it was for %s, not %s)", errBadCursor, quote(c.Root), quote(root))
	}
	return c.After, nil
}

// RootsOut is the structured output of list_roots.
type RootsOut struct {
	Roots []string `json:"roots" jsonschema:"canonical absolute roots; the first is the workspace root"`
}

func (s *Server) addWalkTools() {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	addTool(s, &mcp.Tool{
		Name: "list_directory",
		Description: "List the entries of one directory, each on its own line, directories with a trailing / (a name that could be misread, with a line break say, is quoted; the structured content has it exactly). " +
			"Every entry is shown, hidden and git-ignored ones included (use walk for a git-aware listing of a tree). " +
			"Entries come sorted by name (byte order), at most maxEntries (default and at most 5000) per call: when more follow, truncated is true and nextCursor is set; " +
			"call again with the same path and cursor set to it for the next page (stable when entries are created or removed meanwhile: every entry present throughout is listed exactly once).",
		Annotations: ro,
	}, s.listDirectory)
	addEncodedTool[walkIn, ListOut](s, &mcp.Tool{
		Name: "walk",
		Description: "List the files under a directory the way git sees them (like rg --files): paths relative to the walked directory, " +
			"one per line, directories with a trailing /. Files ignored by .gitignore, .git/info/exclude or the global excludes file " +
			"are left out and ignored directories are not entered; dot-files are listed, as git ls-files -co --exclude-standard lists them (hidden: false leaves them out). Limit the output with maxDepth and maxEntries. " +
			"Entries come in path order (depth first, each directory's names in byte order, a directory followed by what is in it); when more follow than maxEntries, " +
			"truncated is true and nextCursor is set: call again with the same arguments and cursor set to it for the next page (every entry present throughout is listed exactly once).",
		Annotations: ro,
	}, s.walk)
	addTool(s, &mcp.Tool{
		Name: "check_ignore",
		Description: "Tell which of the given paths git would ignore (like git check-ignore -v): " +
			"one line per path, \"ignored\" or \"not ignored\", with the rule that decided (file:line: pattern) on the next line. " +
			"Files git tracks are never ignored unless noIndex is set. Paths need not exist.",
		Annotations: ro,
	}, s.checkIgnore)
	addTool(s, &mcp.Tool{
		Name:        "list_roots",
		Description: "List the directories this server may touch: the workspace root first, then every other root. Every path a tool takes must lie inside one of them.",
		Annotations: ro,
	}, s.listRoots)
}

// listNames returns the first names in dir (maxListEntries of them and
// one more, to tell that there are more), directories with a trailing
// slash, sorted; every entry, hidden and ignored ones included.
func (s *Server) listNames(ctx context.Context, dir string) ([]string, error) {
	var names []string
	err := s.h.WalkFunc(ctx, "", dir, host.WalkOptions{Hidden: true, NoIgnore: true, MaxDepth: 1, MaxEntries: maxListEntries + 1}, func(e host.WalkEntry) error {
		if e.Depth == 1 {
			n := filepath.Base(e.Path)
			if e.IsDir {
				n += "/"
			}
			names = append(names, n)
		}
		return nil
	})
	if err != nil && !isPartial(err) {
		return nil, err
	}
	return names, err
}

// showDots is a listing's hidden argument: dot-files are listed unless the
// call says hidden: false (docs/adr/0027: git's view, the CLI's default).
func showDots(hidden *bool) bool { return hidden == nil || *hidden }

// leftOut is what an empty listing's text says the walk left out, so that
// "nothing" is not read as "nothing there": the files git ignores (unless
// noIgnore), and dot-files when the call said hidden: false.
func leftOut(hidden *bool, noIgnore bool) string {
	switch {
	case !showDots(hidden) && !noIgnore:
		return "; dot-files and files git ignores are left out: hidden: true and noIgnore: true include them"
	case !showDots(hidden):
		return "; dot-files are left out: hidden: true includes them"
	case !noIgnore:
		return "; files git ignores are left out: noIgnore: true includes them"
	}
	return ""
}

func isPartial(err error) bool {
	var pe *host.PartialError
	return errors.As(err, &pe)
}

func (s *Server) listDirectory(ctx context.Context, in listDirIn) (*mcp.CallToolResult, ListOut, error) {
	if in.MaxEntries < 0 {
		return nil, ListOut{}, errors.New(`argument "maxEntries" must not be negative`)
	}
	limit := maxListEntries
	if in.MaxEntries > 0 {
		limit = min(in.MaxEntries, maxListEntries)
	}
	st, err := s.h.Stat(ctx, "", in.Path)
	if err != nil {
		return nil, ListOut{}, s.explain(ctx, in.Path, err)
	}
	if !st.IsDir {
		return nil, ListOut{}, fmt.Errorf("%s is a file, not a directory: use read_file or stat", quote(in.Path))
	}
	after, err := decodeCursor(in.Cursor, "list_directory", st.Path)
	if err != nil {
		return nil, ListOut{}, err
	}
	out := ListOut{Root: st.Path, Entries: []ListEntry{}}
	// One page: the sorted walk of the directory's children after the
	// cursor, holding no more than the page (not the directory).
	err = s.h.WalkFunc(ctx, "", st.Path, host.WalkOptions{
		Hidden: true, NoIgnore: true, MaxDepth: 1, MaxEntries: limit, After: after,
		OnCut: func() { out.Truncated = true },
	}, func(e host.WalkEntry) error {
		if e.Depth == 1 {
			t := "file"
			if e.IsDir {
				t = "directory"
			}
			out.Entries = append(out.Entries, ListEntry{Path: filepath.Base(e.Path), Type: t})
		}
		return nil
	})
	if err != nil && !isPartial(err) {
		return nil, ListOut{}, s.explain(ctx, in.Path, err)
	}
	out.Unread = unreadDirs(err)
	var b strings.Builder
	if len(out.Entries) == 0 {
		if after != "" {
			fmt.Fprintf(&b, "%s has no entries after %s\n", st.Path, listName(after))
		} else {
			fmt.Fprintf(&b, "%s is empty\n", st.Path)
		}
	}
	for _, e := range out.Entries {
		b.WriteString(listName(e.Path))
		if e.Type == "directory" {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	if out.Truncated && len(out.Entries) > 0 {
		out.NextCursor = listCursor{Tool: "list_directory", Root: st.Path, After: out.Entries[len(out.Entries)-1].Path}.encode()
		fmt.Fprintf(&b, "... (%d entries; more follow: call again with cursor %q)\n", len(out.Entries), out.NextCursor)
	}
	if err != nil {
		fmt.Fprintf(&b, "(some entries could not be read: %v)\n", err)
	}
	return text(b.String()), out, nil
}

// walkFound is one entry a walk found: its path relative to the walked
// directory, at names[off:off+n] once the walk is over.
type walkFound struct {
	off, n int
	dir    bool
}

func (s *Server) walk(ctx context.Context, in walkIn) (*mcp.CallToolResult, json.RawMessage, error) {
	path := in.Path
	if path == "" {
		path = "."
	}
	if in.MaxDepth < 0 || in.MaxEntries < 0 {
		return nil, nil, errors.New("maxDepth and maxEntries must not be negative")
	}
	limit := in.MaxEntries
	if limit == 0 {
		limit = DefaultWalkEntries
	}
	limit = min(limit, MaxWalkEntries)
	top, err := s.h.ResolveInJail(ctx, "", path)
	if err != nil {
		return nil, nil, s.explain(ctx, path, err)
	}
	after, err := decodeCursor(in.Cursor, "walk", top)
	if err != nil {
		return nil, nil, err
	}
	// The sorted walk (a limit makes it one): exactly the first limit
	// entries in path order after the cursor, never more of a directory
	// in memory than the page. The entries come in runs (Batch), their
	// paths lent: the part below top is copied into one buffer.
	truncated := false
	var mu sync.Mutex
	// Sized as the last walk's (up to the limit): a walk of the same tree
	// again grows nothing.
	hint := min(int(s.walkHint.Load()), limit+1)
	found := make([]walkFound, 0, hint)
	arena := make([]byte, 0, hint*48)
	batch := func(ents []host.WalkEntry) error {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range ents {
			rel := e.Path
			if e.Depth > 0 {
				rel = strings.TrimLeft(strings.TrimPrefix(e.Path, top), string(os.PathSeparator))
			}
			found = append(found, walkFound{off: len(arena), n: len(rel), dir: e.IsDir})
			arena = append(arena, rel...)
		}
		return nil
	}
	err = s.h.WalkFunc(ctx, "", top, host.WalkOptions{
		Hidden: showDots(in.Hidden), NoIgnore: in.NoIgnore, MaxDepth: in.MaxDepth, Batch: batch,
		MaxEntries: limit, After: after, OnCut: func() { truncated = true },
	}, func(e host.WalkEntry) error { return batch([]host.WalkEntry{e}) }) // a file
	if err != nil && !isPartial(err) {
		return nil, nil, s.explain(ctx, path, err)
	}
	mu.Lock()
	defer mu.Unlock()
	s.walkHint.Store(int64(len(found)))
	// Every path at once, the entries' names slices of it: the arena is
	// not written again.
	names := filepath.ToSlash(unsafe.String(unsafe.SliceData(arena), len(arena)))
	type named struct {
		name string
		dir  bool
	}
	list := make([]named, len(found))
	for i, f := range found {
		list[i] = named{names[f.off : f.off+f.n], f.dir}
	}
	unread := unreadDirs(err)
	next := ""
	if truncated && len(list) > 0 {
		next = listCursor{Tool: "walk", Root: top, After: list[len(list)-1].name}.encode()
	}

	// The text and the structured content (ListOut), each written once.
	var b strings.Builder
	b.Grow(len(names) + 2*len(list) + 128)
	js := make([]byte, 0, len(names)+40*len(list)+len(top)+128)
	js = append(js, `{"root":`...)
	js = appendJSONString(js, top)
	js = appendRawName(js, "root_b64", top)
	js = append(js, `,"entries":[`...)
	for i, f := range list {
		n := f.name
		if i > 0 {
			js = append(js, ',')
		}
		js = append(js, `{"path":`...)
		js = appendJSONString(js, n)
		js = appendRawName(js, "path_b64", n)
		if f.dir {
			js = append(js, `,"type":"directory"}`...)
		} else {
			js = append(js, `,"type":"file"}`...)
		}
		b.WriteString(listName(n))
		if f.dir {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	js = append(js, `],"truncated":`...)
	js = strconv.AppendBool(js, truncated)
	if next != "" {
		js = append(js, `,"nextCursor":`...)
		js = appendJSONString(js, next)
	}
	if len(unread) > 0 {
		js = append(js, `,"unread":[`...)
		for i, u := range unread {
			if i > 0 {
				js = append(js, ',')
			}
			js = appendJSONString(js, u)
		}
		js = append(js, ']')
	}
	js = append(js, '}')
	if len(list) == 0 {
		fmt.Fprintf(&b, "(nothing under %s%s)\n", top, leftOut(in.Hidden, in.NoIgnore))
	}
	if truncated {
		fmt.Fprintf(&b, "... (%d entries; more follow: call again with cursor %q, or narrow the path, lower maxDepth or raise maxEntries)\n", len(list), next)
	}
	if err != nil {
		fmt.Fprintf(&b, "(some directories could not be read: %v)\n", err)
	}
	return text(b.String()), js, nil
}

// CheckIgnoreOut is the structured output of check_ignore: one result per
// path, in order.
type CheckIgnoreOut struct {
	Results []CheckIgnoreResult `json:"results"`
}

// CheckIgnoreResult is check_ignore's answer for one path, with the rule
// that decided as git check-ignore -v names it.
type CheckIgnoreResult struct {
	Path    string `json:"path"`
	PathB64 string `json:"path_b64,omitempty" jsonschema:"only for a path that is not UTF-8: its exact bytes in standard base64"`
	Ignored bool   `json:"ignored"`
	Tracked bool   `json:"tracked,omitempty" jsonschema:"the index tracks the path: ignore rules do not apply to it"`
	Source  string `json:"source,omitempty" jsonschema:"the ignore file holding the deciding rule"`
	// SourceB64 is Source's bytes when they are not UTF-8.
	SourceB64 string `json:"source_b64,omitempty" jsonschema:"only for a source that is not UTF-8: its exact bytes in standard base64"`
	Line      int    `json:"line,omitempty"`
	Pattern   string `json:"pattern,omitempty" jsonschema:"the deciding rule as written; one starting with ! re-includes the path"`
	Error     string `json:"error,omitempty"`
}

func (s *Server) checkIgnore(ctx context.Context, in checkIgnoreIn) (*mcp.CallToolResult, CheckIgnoreOut, error) {
	var out CheckIgnoreOut
	if len(in.Paths) == 0 {
		return nil, out, errors.New("paths is empty: give at least one path")
	}
	if len(in.Paths) > maxCheckIgnore {
		return nil, out, fmt.Errorf("%d paths is more than the %d one call may check: split the list", len(in.Paths), maxCheckIgnore)
	}
	res, err := s.h.CheckIgnore(ctx, "", in.Paths, host.CheckIgnoreOptions{NoIndex: in.NoIndex})
	if err != nil {
		return nil, out, err
	}
	var b strings.Builder
	failed := 0
	for i, r := range res {
		o := CheckIgnoreResult{Path: in.Paths[i], Ignored: r.Ignored, Tracked: r.Tracked}
		p := rawText(in.Paths[i])
		if r.Rule != nil {
			o.Source, o.Line, o.Pattern = r.Rule.Source, r.Rule.Line, r.Rule.Pattern
		}
		switch {
		case r.Err != nil:
			failed++
			e := s.explain(ctx, in.Paths[i], r.Err)
			o.Error = e.Error()
			fmt.Fprintf(&b, "%s: error: %v\n", p, e)
		case r.Ignored:
			fmt.Fprintf(&b, "%s: ignored\n", p)
		case r.Tracked:
			fmt.Fprintf(&b, "%s: not ignored\n  (tracked by git: ignore rules do not apply)\n", p)
		default:
			fmt.Fprintf(&b, "%s: not ignored\n", p)
		}
		if r.Err == nil && r.Rule != nil {
			fmt.Fprintf(&b, "  (%s:%d: %s)\n", r.Rule.Source, r.Rule.Line, r.Rule.Pattern)
		}
		out.Results = append(out.Results, o)
	}
	tr := text(b.String())
	tr.IsError = failed == len(in.Paths)
	return tr, out, nil
}

func (s *Server) listRoots(ctx context.Context, _ struct{}) (*mcp.CallToolResult, RootsOut, error) {
	roots := s.h.Roots()
	var b strings.Builder
	for i, r := range roots {
		b.WriteString(r)
		if i == 0 {
			b.WriteString(" (workspace root)")
		}
		b.WriteByte('\n')
	}
	return text(b.String()), RootsOut{Roots: roots}, nil
}
