package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
)

// The tools of this file carry the names, arguments and answers of the
// reference filesystem server (@modelcontextprotocol/server-filesystem),
// beside ours, so that a model used to that server finds what it knows
// (docs/adr/0005, "Reference names"). Each runs on the same Host calls as
// ours: the same jail, the same limits.

// RefText is the structured output of the reference-named tools: the
// reference server's {content}, the same text as the text block.
type RefText struct {
	Content string `json:"content" jsonschema:"the answer, as in the text block"`
}

type readTextIn struct {
	Path string `json:"path" jsonschema:"the file to read: absolute, or relative to the workspace root"`
	Tail int    `json:"tail,omitempty" jsonschema:"If provided, returns only the last N lines of the file"`
	Head int    `json:"head,omitempty" jsonschema:"If provided, returns only the first N lines of the file"`
}

type refPathIn struct {
	Path string `json:"path" jsonschema:"a file or directory: absolute, or relative to the workspace root"`
}

type listSizesIn struct {
	Path   string `json:"path" jsonschema:"the directory to list"`
	SortBy string `json:"sortBy,omitempty" jsonschema:"Sort entries by name or size (name when absent; size: largest first)"`
}

type noArgs struct{}

// referenceHints are the annotations of this file's tools (see hints):
// all read-only.
var referenceHints = map[string]hint{
	"read_text_file":            readOnly,
	"get_file_info":             readOnly,
	"list_allowed_directories":  readOnly,
	"list_directory_with_sizes": readOnly,
}

func (s *Server) addReferenceTools() {
	addTool(s, &mcp.Tool{
		Name: "read_text_file",
		Description: "Read a file as text (the reference server's name; read_file does the same and also returns non-text files as blobs). " +
			"Use head or tail to read only the first or last N lines. Bytes that are not valid UTF-8 are shown as U+FFFD.",
	}, s.readTextFile)
	addTool(s, &mcp.Tool{
		Name: "get_file_info",
		Description: "Describe a file or directory, one \"key: value\" a line as the reference server does: " +
			"size, created, modified, accessed, isDirectory, isFile, permissions (the last three octal digits). stat gives the same as JSON.",
	}, s.getFileInfo)
	addTool(s, &mcp.Tool{
		Name:        "list_allowed_directories",
		Description: "List the directories this server may touch, one a line after \"Allowed directories:\" (the reference server's name for list_roots).",
	}, s.listAllowed)
	addTool(s, &mcp.Tool{
		Name: "list_directory_with_sizes",
		Description: "List a directory's entries with [FILE] or [DIR] and each file's size, then the totals, as the reference server does. " +
			"sortBy is name (the default) or size (largest first). Every entry is listed (dot-files and ignored files too).",
	}, s.listWithSizes)
}

func (s *Server) readTextFile(ctx context.Context, in readTextIn) (*mcp.CallToolResult, RefText, error) {
	if in.Head < 0 || in.Tail < 0 {
		return nil, RefText{}, errors.New("head and tail must not be negative")
	}
	if in.Head > 0 && in.Tail > 0 {
		return nil, RefText{}, errors.New("give head or tail, not both")
	}
	if in.Head > 0 || in.Tail > 0 {
		res, _, err := s.readLines(ctx, readFileIn{Path: in.Path, Head: in.Head, Tail: in.Tail})
		if err != nil {
			return nil, RefText{}, err
		}
		// The reference joins the lines with "\n" and ends with none;
		// unlike it, tail counts the lines before a final newline, not
		// the empty string after it.
		if _, ok := res.Content[0].(*mcp.TextContent); !ok || len(res.Content) != 1 {
			return res, RefText{}, nil // not text: the blob read_file gives
		}
		c := strings.TrimSuffix(textOf(res), "\n")
		return text(c), RefText{Content: c}, nil
	}
	r, err := s.h.ReadFile(ctx, "", in.Path)
	if err != nil {
		return nil, RefText{}, s.explain(ctx, in.Path, err)
	}
	return text(r.Contents), RefText{Content: r.Contents}, nil
}

// textOf is the text of a result's text blocks.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func refText(s string) (*mcp.CallToolResult, RefText, error) {
	return text(s), RefText{Content: s}, nil
}

func (s *Server) getFileInfo(ctx context.Context, in refPathIn) (*mcp.CallToolResult, RefText, error) {
	st, err := s.h.Stat(ctx, "", in.Path)
	if err != nil {
		return nil, RefText{}, s.explain(ctx, in.Path, err)
	}
	// Birth and access times are not in the Host's stat: they are read
	// from a descriptor the jail opened, for a regular file; where that
	// is not to be had (a directory, a platform without them) both are
	// the modification time.
	created, accessed := st.ModTime, st.ModTime
	if !st.IsDir {
		if f, _, err := s.h.OpenFile(ctx, "", st.Path); err == nil {
			if b, a, ok := fileTimes(f); ok {
				if !b.IsZero() {
					created = b
				}
				accessed = a
			}
			f.Close()
		}
	}
	return refText(fmt.Sprintf("size: %d\ncreated: %s\nmodified: %s\naccessed: %s\nisDirectory: %t\nisFile: %t\npermissions: %03o",
		st.Size, jsDate(created), jsDate(st.ModTime), jsDate(accessed), st.IsDir, st.Mode.IsRegular(), st.Mode.Perm()))
}

// jsDate is t as JavaScript's Date.prototype.toString shows it in the
// server's time zone, as the reference's answers carry dates:
// "Wed Dec 02 2026 02:07:23 GMT+0000 (Coordinated Universal Time)". The
// zone's long name is JavaScript's for UTC and the abbreviation elsewhere.
func jsDate(t time.Time) string {
	t = t.Local()
	zone := t.Format("MST")
	if _, off := t.Zone(); off == 0 && (zone == "UTC" || zone == "GMT") {
		zone = "Coordinated Universal Time"
	}
	return t.Format("Mon Jan 02 2006 15:04:05 GMT-0700") + " (" + zone + ")"
}

func (s *Server) listAllowed(ctx context.Context, _ noArgs) (*mcp.CallToolResult, RefText, error) {
	return refText("Allowed directories:\n" + strings.Join(s.h.Roots(), "\n"))
}

type sizedEntry struct {
	name, path string
	isDir      bool
	size       int64
}

func (s *Server) listWithSizes(ctx context.Context, in listSizesIn) (*mcp.CallToolResult, RefText, error) {
	if in.SortBy != "" && in.SortBy != "name" && in.SortBy != "size" {
		return nil, RefText{}, fmt.Errorf(`argument "sortBy" is %q: it must be "name" or "size"`, in.SortBy)
	}
	st, err := s.h.Stat(ctx, "", in.Path)
	if err != nil {
		return nil, RefText{}, s.explain(ctx, in.Path, err)
	}
	if !st.IsDir {
		return nil, RefText{}, fmt.Errorf("%s is a file, not a directory: use get_file_info or read_text_file", quote(in.Path))
	}
	// The names come from a walk of depth 1, which stops past the limit
	// (a huge directory is not read whole); each size from a stat that
	// follows a link inside the roots, as the reference's stat does (0
	// when it cannot be had: dangling, or leaving the roots).
	var ents []sizedEntry
	cut := false
	werr := s.h.WalkFunc(ctx, "", st.Path, host.WalkOptions{Hidden: true, NoIgnore: true, MaxDepth: 1, MaxEntries: maxListEntries,
		OnCut: func() { cut = true }}, func(e host.WalkEntry) error {
		if e.Depth == 1 {
			ents = append(ents, sizedEntry{name: filepath.Base(e.Path), isDir: e.IsDir, path: e.Path})
		}
		return nil
	})
	if werr != nil && !isPartial(werr) {
		return nil, RefText{}, s.explain(ctx, in.Path, werr)
	}
	if cut {
		return nil, RefText{}, fmt.Errorf("%s holds more than the %d entries this tool lists: use list_directory, which pages", quote(in.Path), maxListEntries)
	}
	for i := range ents {
		if t, err := s.h.Stat(ctx, "", ents[i].path); err == nil {
			ents[i].size = t.Size
		} else if ctx.Err() != nil {
			return nil, RefText{}, ctx.Err()
		}
	}
	// Directory order is the bytes' (as node's readdir gives it); size
	// sorts the largest first, ties in that order; name sorts as
	// JavaScript's localeCompare does for most names: case folded first.
	slices.SortFunc(ents, func(a, b sizedEntry) int { return strings.Compare(a.name, b.name) })
	if in.SortBy == "size" {
		slices.SortStableFunc(ents, func(a, b sizedEntry) int { return cmp.Compare(b.size, a.size) })
	} else {
		slices.SortStableFunc(ents, func(a, b sizedEntry) int { return localeCompare(a.name, b.name) })
	}
	var b strings.Builder
	files, dirs, total := 0, 0, int64(0)
	for _, e := range ents {
		if e.isDir {
			dirs++
			fmt.Fprintf(&b, "[DIR] %s \n", padEnd(e.name, 30))
			continue
		}
		files++
		total += e.size
		fmt.Fprintf(&b, "[FILE] %s %10s\n", padEnd(e.name, 30), formatSize(e.size))
	}
	fmt.Fprintf(&b, "\nTotal: %d files, %d directories\nCombined size: %s", files, dirs, formatSize(total))
	return refText(b.String())
}

// padEnd is JavaScript's s.padEnd(n) for names of one UTF-16 unit a
// character, which most are.
func padEnd(s string, n int) string {
	if c := utf8.RuneCountInString(s); c < n {
		return s + strings.Repeat(" ", n-c)
	}
	return s
}

// localeCompare orders names as JavaScript's localeCompare does for plain
// names: letters compared without case first, then lower case before
// upper, then by bytes.
func localeCompare(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	if c := strings.Compare(b, a); c != 0 { // "a" before "A": the larger bytes first
		return c
	}
	return 0
}

// formatSize is the reference's formatSize: bytes below 1 KB as they are,
// larger sizes in KB, MB, GB or TB with two decimals.
func formatSize(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	if n <= 0 {
		return fmt.Sprintf("%d B", n)
	}
	i := int(math.Floor(math.Log(float64(n)) / math.Log(1024)))
	if i <= 0 {
		return fmt.Sprintf("%d B", n)
	}
	i = min(i, len(units)-1)
	return toFixed2(float64(n)/math.Pow(1024, float64(i))) + " " + units[i]
}

// toFixed2 is JavaScript's x.toFixed(2) for x ≥ 0: the exact value of x
// rounded to two decimals, a tie going up (2.625 is "2.63", where Go's
// %.2f, rounding to even, gives "2.62").
func toFixed2(x float64) string {
	y := new(big.Float).SetPrec(256).SetFloat64(x)
	y.Mul(y, big.NewFloat(100))
	y.Add(y, big.NewFloat(0.5))
	n, _ := y.Int(nil) // truncates: floor, as y > 0
	c := n.Int64()
	return fmt.Sprintf("%d.%02d", c/100, c%100)
}

// maxExcludes and maxExcludeLen bound excludePatterns: every entry of a
// walk is matched against every pattern, so their number and length bound
// the work one call can ask for.
const (
	maxExcludes   = 64
	maxExcludeLen = 512
)

// checkExcludes refuses more excludePatterns, or longer ones, than the
// bounds.
func checkExcludes(patterns []string) error {
	if len(patterns) > maxExcludes {
		return fmt.Errorf(`argument "excludePatterns" has %d patterns, more than the %d one call takes: use broader globs`, len(patterns), maxExcludes)
	}
	for _, p := range patterns {
		if len(p) > maxExcludeLen {
			return fmt.Errorf(`argument "excludePatterns" has a pattern of %d bytes, longer than the %d one may be`, len(p), maxExcludeLen)
		}
	}
	return nil
}

// excludeFilter is a walk Filter that leaves out what one of the
// reference server's excludePatterns matches (nil when there are none):
// each a glob on the path relative to the walked directory, dot-files
// matched like any name. With nameToo, as the reference's directory_tree
// has it, a pattern without a * also matches that name at any depth. An
// excluded directory is not entered. A pattern that is not a valid glob
// matches nothing, as in the reference.
func excludeFilter(patterns []string, nameToo bool) func(rel string, isDir bool) bool {
	if len(patterns) == 0 {
		return nil
	}
	type pat struct {
		glob    string
		anyName bool
	}
	ps := make([]pat, 0, len(patterns))
	for _, p := range patterns {
		p = strings.TrimPrefix(filepath.ToSlash(p), "./")
		ps = append(ps, pat{glob: p, anyName: nameToo && !strings.Contains(p, "*")})
	}
	return func(rel string, _ bool) bool {
		for _, p := range ps {
			if ok, _ := doublestar.Match(p.glob, rel); ok {
				return false
			}
			if p.anyName {
				if ok, _ := doublestar.Match("**/"+p.glob, rel); ok {
					return false
				}
			}
		}
		return true
	}
}
