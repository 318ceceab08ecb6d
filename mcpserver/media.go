package mcpserver

import (
	"context"
	"fmt"
	"io"
	iofs "io/fs"
	"mime"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/host"
	hostfs "github.com/agenthost/agenthost/host/fs"
	"github.com/agenthost/agenthost/internal/sniff"
)

// maxRawRead is the largest file read as bytes (read_media_file, a binary
// read_file or resources/read): the Host's default read limit. A reply
// carries it base64-encoded, a third larger.
const maxRawRead = hostfs.DefaultMaxReadBytes

// mediaTypes names the image and audio types by extension, as the
// reference server's table does. They come before the system's table
// (mime.TypeByExtension reads /etc/mime.types, which differs from machine
// to machine and often lacks audio), so a file is typed the same anywhere.
var mediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".bmp": "image/bmp", ".svg": "image/svg+xml", ".ico": "image/x-icon",
	".tif": "image/tiff", ".tiff": "image/tiff", ".avif": "image/avif", ".heic": "image/heic",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".oga": "audio/ogg",
	".opus": "audio/opus", ".flac": "audio/flac", ".m4a": "audio/mp4", ".aac": "audio/aac",
	".weba": "audio/webm", ".mid": "audio/midi", ".midi": "audio/midi",
}

// mimeType is the type of a file named name that begins with head: by
// extension (mediaTypes, then the system's table), else sniffed from the
// bytes (http.DetectContentType: "application/octet-stream" when nothing
// fits).
func mimeType(name string, head []byte) string {
	ext := strings.ToLower(filepath.Ext(name))
	if t, ok := mediaTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return http.DetectContentType(head)
}

// isText reports whether b reads as text, as every front end of agenthost
// decides (sniff.IsText): no NUL byte in its first 8000 bytes, as git
// decides, and valid UTF-8 or bytes that sniff as text (Latin-1 prose,
// say, which read_file shows with U+FFFD for the bytes that are not
// UTF-8, rather than as a blob no model can read).
func isText(b []byte) bool { return sniff.IsText(b) }

// readRaw reads a regular file through the jail as bytes (Host.OpenFile:
// the descriptor the jail opened is the one checked and read, and the open
// never blocks on a FIFO), up to maxRawRead. Errors wrap those of
// Host.OpenFile (host.ErrEscape, fs.ErrNotExist, host.ErrNotRegular) or
// host.ErrTooLarge.
func (s *Server) readRaw(ctx context.Context, path string) ([]byte, host.FileStat, error) {
	f, st, err := s.h.OpenFile(ctx, "", path)
	if err != nil {
		return nil, st, err
	}
	defer f.Close()
	if st.Size > maxRawRead {
		return nil, st, &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes > %d", host.ErrTooLarge, st.Size, maxRawRead)}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxRawRead+1))
	if err != nil {
		return nil, st, err
	}
	if len(b) > maxRawRead {
		return nil, st, &iofs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: it grew past %d bytes while read", host.ErrTooLarge, maxRawRead)}
	}
	return b, st, nil
}

type readMediaIn struct {
	Path string `json:"path" jsonschema:"the image or audio file to read: absolute, or relative to the workspace root"`
}

func (s *Server) addMediaTool() {
	addTool(s, &mcp.Tool{
		Name: "read_media_file",
		Description: "Read an image or audio file and return it as MCP image or audio content (base64 data with its MIME type), " +
			"which a client can show or pass to a model that sees images. Any other file comes back as a blob resource. " +
			"The type is taken from the extension, else from the bytes.",
	}, s.readMedia)
}

func (s *Server) readMedia(ctx context.Context, in readMediaIn) (*mcp.CallToolResult, any, error) {
	b, st, err := s.readRaw(ctx, in.Path)
	if err != nil {
		return nil, nil, s.explain(ctx, in.Path, err)
	}
	mt := mimeType(st.Path, b)
	var c mcp.Content
	switch {
	case strings.HasPrefix(mt, "image/"):
		c = &mcp.ImageContent{Data: b, MIMEType: mt}
	case strings.HasPrefix(mt, "audio/"):
		c = &mcp.AudioContent{Data: b, MIMEType: mt}
	default:
		c = &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: FileURI(st.Path), MIMEType: mt, Blob: b}}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{c}}, nil, nil
}

// binaryResult is read_file's result for a file that is not text: a line
// saying so and the bytes as a blob resource.
func binaryResult(st host.FileStat, b []byte) *mcp.CallToolResult {
	mt := mimeType(st.Path, b)
	note := fmt.Sprintf("%s is not text (%s, %d bytes): its bytes follow as a blob.", st.Path, mt, len(b))
	if strings.HasPrefix(mt, "image/") || strings.HasPrefix(mt, "audio/") {
		note += " read_media_file returns it as image or audio content."
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: note},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: FileURI(st.Path), MIMEType: mt, Blob: b}},
	}}
}
