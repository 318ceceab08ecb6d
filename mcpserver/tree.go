package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
)

// DefaultTreeEntries is how many entries directory_tree returns when the
// call sets no limit: walk's default, for the same reason (a model's
// context). At most MaxWalkEntries.
const DefaultTreeEntries = DefaultWalkEntries

type treeIn struct {
	Path       string `json:"path,omitempty" jsonschema:"the directory to show (default: the workspace root)"`
	MaxDepth   int    `json:"maxDepth,omitempty" jsonschema:"how deep to go: 1 shows only the directory's children; 0 or absent is unlimited"`
	MaxEntries int    `json:"maxEntries,omitempty" jsonschema:"the most entries to return (default 2000, at most 50000)"`
	Hidden     *bool  `json:"hidden,omitempty" jsonschema:"dot-files (names starting with a dot): listed by default, as git lists them; false leaves them out, as rg --files does (.git itself is never shown)"`
	NoIgnore   bool   `json:"noIgnore,omitempty" jsonschema:"do not apply .gitignore, .git/info/exclude or the global excludes file"`
	// ExcludePatterns is the reference server's argument (reference.go).
	ExcludePatterns []string `json:"excludePatterns,omitempty" jsonschema:"globs of paths relative to the directory to leave out (an excluded directory is not entered); one without * also matches that name at any depth"`
}

// TreeNode is one entry of directory_tree: a file (a symbolic link is
// shown as a file, never followed) or a directory with its children. As
// the reference server's, an empty directory has "children": [] (decoded,
// an empty Children that is not nil); a directory not entered (at
// maxDepth, or the last entry of a cut tree) has no children field (nil).
type TreeNode struct {
	Name     string      `json:"name" jsonschema:"the entry's name (any bytes a file name may hold; JSON escapes control characters)"`
	NameB64  string      `json:"name_b64,omitempty" jsonschema:"only for a name that is not UTF-8: its exact bytes in standard base64"`
	Type     string      `json:"type" jsonschema:"file or directory"`
	Children []*TreeNode `json:"children,omitempty" jsonschema:"a directory's entries, in name order ([] for an empty one; absent for a file, and for a directory not entered: at maxDepth, or the last entry of a cut tree)"`
}

// TreeOut is directory_tree's structured output.
type TreeOut struct {
	Root      string      `json:"root" jsonschema:"the canonical path of the directory shown"`
	RootB64   string      `json:"root_b64,omitempty" jsonschema:"only for a root that is not UTF-8: its exact bytes in standard base64"`
	Entries   []*TreeNode `json:"entries" jsonschema:"its entries, in name order"`
	Truncated bool        `json:"truncated" jsonschema:"true when maxEntries cut the tree"`
	Unread    []string    `json:"unread,omitempty" jsonschema:"directories that could not be read, with why"`
}

func (s *Server) addTreeTools() {
	addEncodedTool[treeIn, TreeOut](s, &mcp.Tool{
		Name: "directory_tree",
		Description: "Show the tree under a directory as JSON, the way git sees it: each entry {name, type: file|directory, children}. " +
			"Files ignored by .gitignore, .git/info/exclude or the global excludes file are left out and ignored directories are not entered; " +
			"dot-files are shown as git lists them (hidden: false leaves them out). Limit it with maxDepth and maxEntries (default 2000); truncated says whether it was cut.",
		OutputSchema: treeOutSchema(),
	}, func(ctx context.Context, in treeIn) (*mcp.CallToolResult, json.RawMessage, error) {
		if err := checkExcludes(in.ExcludePatterns); err != nil {
			return nil, nil, err
		}
		return s.directoryTree(ctx, in)
	})
	addTool(s, &mcp.Tool{
		Name: "search_files",
		Description: "Find files and directories under a directory whose path matches a glob pattern (doublestar: *, ?, [a-z], {a,b}, ** for any depth), " +
			"over the same git-aware walk as walk (git ls-files -co --exclude-standard's set): ignored files are left out, dot-files are searched (hidden: false leaves them out). " +
			"A pattern without a slash matches the name at any depth (\"*.go\"); one with a slash matches the path relative to the directory (\"cmd/**/*_test.go\"). " +
			"One match per line, directories with a trailing /.",
	}, func(ctx context.Context, in searchIn) (*mcp.CallToolResult, SearchOut, error) {
		if err := checkExcludes(in.ExcludePatterns); err != nil {
			return nil, SearchOut{}, err
		}
		return s.searchFiles(ctx, in)
	})
}

// walkLimit is the entry limit of a listing tool's call: def when the call
// sets none, never more than MaxWalkEntries.
func walkLimit(n, def int) (int, error) {
	if n < 0 {
		return 0, errors.New(`argument "maxEntries" must not be negative`)
	}
	if n == 0 {
		n = def
	}
	return min(n, MaxWalkEntries), nil
}

func (s *Server) directoryTree(ctx context.Context, in treeIn) (*mcp.CallToolResult, json.RawMessage, error) {
	path := in.Path
	if path == "" {
		path = "."
	}
	if in.MaxDepth < 0 {
		return nil, nil, errors.New(`argument "maxDepth" must not be negative`)
	}
	limit, err := walkLimit(in.MaxEntries, DefaultTreeEntries)
	if err != nil {
		return nil, nil, err
	}
	st, err := s.h.Stat(ctx, "", path)
	if err != nil {
		return nil, nil, s.explain(ctx, path, err)
	}
	if !st.IsDir {
		return nil, nil, fmt.Errorf("%s is a file, not a directory: use stat or read_file", quote(path))
	}
	// The sorted walk (a limit makes it one) comes in path order, a
	// directory before what is in it, each run of entries written at once
	// to both forms: the indented text and the structured entries. Nothing
	// is kept per entry; a cut walk keeps the first entries in path order,
	// so every kept entry's parent is kept too.
	hint := min(int(s.treeHint.Load()), 16<<20)
	txt := treeWriter{indent: true, maxDepth: in.MaxDepth, b: make([]byte, 0, hint)}
	js := treeWriter{maxDepth: in.MaxDepth, b: make([]byte, 0, hint/2+len(st.Path)+128)}
	js.b = append(js.b, `{"root":`...)
	js.b = appendJSONString(js.b, st.Path)
	js.b = appendRawName(js.b, "root_b64", st.Path)
	js.b = append(js.b, `,"entries":`...)
	txt.b = append(txt.b, '[')
	js.b = append(js.b, '[')
	truncated := false
	var mu sync.Mutex
	batch := func(ents []host.WalkEntry) error {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range ents {
			if e.Depth == 0 {
				continue // the path became a file
			}
			name := e.Path[strings.LastIndexByte(e.Path, os.PathSeparator)+1:]
			txt.entry(name, e.IsDir, e.Depth)
			js.entry(name, e.IsDir, e.Depth)
		}
		return nil
	}
	werr := s.h.WalkFunc(ctx, "", st.Path, host.WalkOptions{
		Hidden: showDots(in.Hidden), NoIgnore: in.NoIgnore, MaxDepth: in.MaxDepth, MaxEntries: limit, Batch: batch,
		Filter: excludeFilter(in.ExcludePatterns, true), OnCut: func() { truncated = true },
	}, func(e host.WalkEntry) error { return batch([]host.WalkEntry{e}) })
	if werr != nil && !isPartial(werr) {
		return nil, nil, s.explain(ctx, path, werr)
	}
	mu.Lock()
	defer mu.Unlock()
	txt.finish(truncated)
	js.finish(truncated)
	s.treeHint.Store(int64(len(txt.b)))
	unread := unreadDirs(werr)
	js.b = append(js.b, `,"truncated":`...)
	js.b = strconv.AppendBool(js.b, truncated)
	if len(unread) > 0 {
		js.b = append(js.b, `,"unread":[`...)
		for i, u := range unread {
			if i > 0 {
				js.b = append(js.b, ',')
			}
			js.b = appendJSONString(js.b, u)
		}
		js.b = append(js.b, ']')
	}
	js.b = append(js.b, '}')
	if truncated {
		txt.b = fmt.Appendf(txt.b, "\n(cut at %d entries: narrow the path, lower maxDepth or raise maxEntries)", limit)
	}
	for _, u := range unread {
		txt.b = fmt.Appendf(txt.b, "\n(not read: %s)", u)
	}
	return text(unsafe.String(unsafe.SliceData(txt.b), len(txt.b))), js.b, nil
}

// unreadDirs lists the directories a partial walk could not read.
func unreadDirs(err error) []string {
	if err == nil {
		return nil
	}
	var pe *host.PartialError
	var out []string
	if errors.As(err, &pe) {
		for _, e := range pe.Errs {
			out = append(out, e.Error())
		}
	}
	if len(out) == 0 {
		out = append(out, err.Error())
	}
	return out
}

// listName is a path as a line of a listing: as it is, or quoted like a Go
// string when it could be misread (a line break that would make one name
// two lines, another control character, a byte that is not UTF-8, a
// leading quote or space). Structured content always has it exactly.
func listName(p string) string {
	if p == "" || !utf8.ValidString(p) || p[0] == '"' || p[0] == ' ' || strings.HasSuffix(p, " ") {
		return strconv.Quote(p)
	}
	for _, r := range p {
		if unicode.IsControl(r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return strconv.Quote(p)
		}
	}
	return p
}

// treeOutSchema is TreeOut's schema, written out because a TreeNode holds
// TreeNodes, a cycle schema inference refuses: each node is a $ref to
// $defs/node.
func treeOutSchema() *jsonschema.Schema {
	str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	// Schemas must form a tree: a new value at each place.
	closed := func() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }
	node := func() *jsonschema.Schema { return &jsonschema.Schema{Ref: "#/$defs/node"} }
	return &jsonschema.Schema{
		Type: "object",
		Defs: map[string]*jsonschema.Schema{"node": {
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"name":     str("the entry's name (any bytes a file name may hold; JSON escapes control characters; U+FFFD for each byte that is not UTF-8)"),
				"name_b64": str("only for a name that is not UTF-8: its exact bytes in standard base64 (join them to the parents' for a path_b64 argument)"),
				"type":     {Type: "string", Enum: []any{"file", "directory"}, Description: "file (a symbolic link too, never followed) or directory"},
				"children": {Type: "array", Items: node(), Description: "a directory's entries, in name order ([] for an empty one, as the reference server gives it); absent for a file, and for a directory not entered: at maxDepth, or the last entry of a cut tree"},
			},
			Required:             []string{"name", "type"},
			AdditionalProperties: closed(),
		}},
		Properties: map[string]*jsonschema.Schema{
			"root":      str("the canonical path of the directory shown"),
			"root_b64":  str("only for a root that is not UTF-8: its exact bytes in standard base64"),
			"entries":   {Type: "array", Items: node(), Description: "its entries, in name order"},
			"truncated": {Type: "boolean", Description: "true when maxEntries cut the tree"},
			"unread":    {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "directories that could not be read, with why"},
		},
		Required:             []string{"root", "entries", "truncated"},
		AdditionalProperties: closed(),
	}
}
