package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	hostfs "github.com/agenthost/agenthost/host/fs"
	"github.com/agenthost/agenthost/invalidation"
)

// fileTemplate is the URI template of every file and directory inside the
// roots.
const fileTemplate = "file:///{+path}"

// FileURI returns the file:// URI of an absolute path ("file:///a/b%20c"),
// as resources and roots name files.
func FileURI(path string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" && !strings.HasPrefix(p, "/") {
		p = "/" + p // file:///C:/x
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// PathFromURI returns the local path a file:// URI names. The host part
// must be empty or "localhost"; anything else is an error.
func PathFromURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("%q is not a URI: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("%q is not a file:// URI", uri)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("%q names another host (%s)", uri, u.Host)
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	if p == "" {
		return "", fmt.Errorf("%q names no path", uri)
	}
	return filepath.FromSlash(p), nil
}

// addResources registers the file template and one resource per root.
func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "file",
		Title:       "A file or directory inside the roots",
		Description: "A file's contents, or a directory's entries one per line. Subscribe to be told when a tool call changes it (a directory: anything under it).",
		URITemplate: fileTemplate,
	}, s.readResource)
	for _, r := range s.h.Roots() {
		s.addRootResource(r)
	}
}

// addRootResource lists root among the resources (resources/list).
func (s *Server) addRootResource(root string) {
	s.mcp.AddResource(&mcp.Resource{
		URI:         FileURI(root),
		Name:        filepath.Base(root),
		Title:       root,
		Description: "a root directory: its entries, one per line",
		MIMEType:    "text/directory",
	}, s.readResource)
}

func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	p, err := PathFromURI(uri)
	if err != nil {
		return nil, err
	}
	st, err := s.h.Stat(ctx, "", p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, s.explain(ctx, p, err)
	}
	if st.IsDir {
		names, err := s.listNames(ctx, st.Path)
		if err != nil && !isPartial(err) {
			return nil, s.explain(ctx, p, err)
		}
		var b strings.Builder
		for _, n := range names {
			b.WriteString(n)
			b.WriteByte('\n')
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/directory", Text: b.String()}}}, nil
	}
	b, rst, err := s.readRaw(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, s.explain(ctx, p, err)
	}
	mt := mimeType(rst.Path, b)
	if !isText(b) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mt, Blob: b}}}, nil
	}
	if !strings.HasPrefix(mt, "text/") && !strings.Contains(mt, "json") && !strings.Contains(mt, "xml") && !strings.Contains(mt, "javascript") {
		mt = "text/plain" // text, whatever its name says (a .bin that holds text)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mt, Text: hostfs.Lossy(b)}}}, nil
}

// subscriptions are the session's resource subscriptions: the URI as the
// client wrote it (the SDK sends updates by exact URI) and the canonical
// path it names.
type subscriptions struct {
	mu    sync.Mutex
	paths map[string]string // URI -> canonical path
}

func (ss *subscriptions) init() { ss.paths = map[string]string{} }

// subscribe resolves the URI through the jail: a path outside the roots is
// refused, so a client learns nothing about it, not even when it changes.
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	p, err := PathFromURI(uri)
	if err != nil {
		return err
	}
	canon, err := s.h.ResolveInJail(ctx, "", p)
	if err != nil {
		return s.explain(ctx, p, err)
	}
	s.subs.mu.Lock()
	s.subs.paths[uri] = canon
	s.subs.mu.Unlock()
	return nil
}

func (s *Server) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	s.subs.mu.Lock()
	delete(s.subs.paths, req.Params.URI)
	s.subs.mu.Unlock()
	return nil
}

// covered returns the subscribed URIs that n covers: every one for a notice
// of all paths, else those whose path is a changed path, lies under one (a
// directory that was moved or removed) or holds one (a subscribed
// directory).
func (ss *subscriptions) covered(n *invalidation.Notice) []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var uris []string
	for uri, sp := range ss.paths {
		if n.All {
			uris = append(uris, uri)
			continue
		}
		for _, p := range n.Paths {
			if p == sp || within(p, sp) || within(sp, p) {
				uris = append(uris, uri)
				break
			}
		}
	}
	return uris
}

// within reports whether p lies strictly under dir.
func within(p, dir string) bool {
	if !strings.HasPrefix(p, dir) || len(p) == len(dir) {
		return false
	}
	return strings.HasSuffix(dir, string(filepath.Separator)) || p[len(dir)] == filepath.Separator
}

// notify is the server's invalidation sink: it runs on its own goroutine
// (never a tool call's) and sends notifications/resources/updated for each
// subscription the notice covers. A client that reads slowly blocks only
// this goroutine; the publisher merges what waits meanwhile.
func (s *Server) notify(n invalidation.Notice) {
	for _, uri := range s.subs.covered(&n) {
		if err := s.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			s.log.Printf("agent-host mcp: resources/updated %s: %v", uri, err)
		}
	}
}
