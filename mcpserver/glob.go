package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
)

const (
	// DefaultSearchMatches is how many matches search_files returns when
	// the call sets no limit: walk's default entries.
	DefaultSearchMatches = DefaultWalkEntries
	// maxSearchScan bounds the entries one search_files call walks: a
	// pattern that matches little in a huge tree stops there and says so,
	// rather than walk millions of files. Half a million entries is a
	// large monorepo's whole tree, walked in about a second.
	maxSearchScan = 500_000
)

type searchIn struct {
	Pattern    string `json:"pattern" jsonschema:"the glob: *, ?, [a-z], {a,b} and ** (any number of directories); without a slash it matches names at any depth"`
	Path       string `json:"path,omitempty" jsonschema:"the directory to search (default: the workspace root)"`
	MaxEntries int    `json:"maxEntries,omitempty" jsonschema:"the most matches to return (default 2000, at most 50000)"`
	Hidden     *bool  `json:"hidden,omitempty" jsonschema:"dot-files (names starting with a dot): listed by default, as git lists them; false leaves them out, as rg --files does (.git itself is never searched)"`
	NoIgnore   bool   `json:"noIgnore,omitempty" jsonschema:"do not apply .gitignore, .git/info/exclude or the global excludes file"`
	// ExcludePatterns is the reference server's argument (reference.go).
	ExcludePatterns []string `json:"excludePatterns,omitempty" jsonschema:"globs of paths relative to the directory to leave out (an excluded directory is not searched)"`
}

// SearchMatch is one match of search_files.
type SearchMatch struct {
	Path string `json:"path" jsonschema:"the match, relative to the searched directory, with / between names"`
	// PathB64 is Path's bytes when they are not UTF-8 (internal/rawname).
	PathB64 string `json:"path_b64,omitempty" jsonschema:"only for a path that is not UTF-8 (path then has U+FFFD for each bad byte): its exact bytes in standard base64"`
	Type    string `json:"type" jsonschema:"file or directory"`
}

// SearchOut is search_files's structured output.
type SearchOut struct {
	Root      string        `json:"root" jsonschema:"the canonical path of the directory searched"`
	RootB64   string        `json:"root_b64,omitempty" jsonschema:"only for a root that is not UTF-8: its exact bytes in standard base64"`
	Matches   []SearchMatch `json:"matches" jsonschema:"the matches, in the walk's order (a directory's entries, in name order, before its subdirectories')"`
	Truncated bool          `json:"truncated" jsonschema:"true when maxEntries cut the matches or the walk stopped at its scan limit"`
	Unread    []string      `json:"unread,omitempty" jsonschema:"directories that could not be read, with why"`
}

// errEnough stops the walk once there are more matches than asked for.
var errEnough = errors.New("enough matches")

func (s *Server) searchFiles(ctx context.Context, in searchIn) (*mcp.CallToolResult, SearchOut, error) {
	if in.Pattern == "" {
		return nil, SearchOut{}, errors.New(`argument "pattern" is empty: give a glob such as "*.go" or "src/**/*.ts"`)
	}
	pattern := filepath.ToSlash(in.Pattern)
	if !doublestar.ValidatePattern(pattern) {
		return nil, SearchOut{}, fmt.Errorf(`argument "pattern" is not a valid glob: %s (an unclosed [ or {?)`, quote(in.Pattern))
	}
	pattern = strings.TrimPrefix(pattern, "./")
	byName := !strings.Contains(strings.TrimSuffix(pattern, "/"), "/")
	dirsOnly := strings.HasSuffix(pattern, "/")
	pattern = strings.TrimSuffix(pattern, "/")
	limit, err := walkLimit(in.MaxEntries, DefaultSearchMatches)
	if err != nil {
		return nil, SearchOut{}, err
	}
	path := in.Path
	if path == "" {
		path = "."
	}
	st, err := s.h.Stat(ctx, "", path)
	if err != nil {
		return nil, SearchOut{}, s.explain(ctx, path, err)
	}
	if !st.IsDir {
		return nil, SearchOut{}, fmt.Errorf("%s is a file, not a directory to search", quote(path))
	}
	out := SearchOut{Root: st.Path, Matches: []SearchMatch{}}
	scanned := 0
	// A limit makes the walk run in one goroutine, in a fixed order, so the
	// same call finds the same first matches.
	werr := s.h.WalkFunc(ctx, "", st.Path, host.WalkOptions{Hidden: showDots(in.Hidden), NoIgnore: in.NoIgnore, MaxEntries: maxSearchScan, Filter: excludeFilter(in.ExcludePatterns, false)}, func(e host.WalkEntry) error {
		scanned++
		rel, err := filepath.Rel(st.Path, e.Path)
		if err != nil || e.Depth == 0 || (dirsOnly && !e.IsDir) {
			return nil
		}
		rel = filepath.ToSlash(rel)
		subject := rel
		if byName {
			subject = filepath.Base(e.Path)
		}
		if ok, _ := doublestar.Match(pattern, subject); !ok {
			return nil
		}
		if len(out.Matches) == limit {
			out.Truncated = true
			return errEnough
		}
		m := SearchMatch{Path: rel, Type: "file"}
		if e.IsDir {
			m.Type = "directory"
		}
		out.Matches = append(out.Matches, m)
		return nil
	})
	if errors.Is(werr, errEnough) {
		werr = nil
	}
	if werr != nil && !isPartial(werr) {
		return nil, SearchOut{}, s.explain(ctx, path, werr)
	}
	out.Unread = unreadDirs(werr)
	scanCut := scanned >= maxSearchScan
	out.Truncated = out.Truncated || scanCut
	var b strings.Builder
	for _, m := range out.Matches {
		b.WriteString(listName(m.Path))
		if m.Type == "directory" {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	if len(out.Matches) == 0 {
		fmt.Fprintf(&b, "(nothing under %s matches %s%s)\n", st.Path, quote(in.Pattern), leftOut(in.Hidden, in.NoIgnore))
	}
	if out.Truncated && !scanCut {
		fmt.Fprintf(&b, "... (cut at %d matches: narrow the pattern or the path, or raise maxEntries)\n", limit)
	}
	if scanCut {
		fmt.Fprintf(&b, "... (the walk stopped after %d entries: search a smaller directory)\n", maxSearchScan)
	}
	for _, u := range out.Unread {
		fmt.Fprintf(&b, "(not read: %s)\n", u)
	}
	return text(b.String()), out, nil
}
