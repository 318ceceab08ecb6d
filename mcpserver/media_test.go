package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenthost/agenthost/mcpserver"
)

// allContent is every block of a result as text: text as it is, the bytes
// of image, audio and blob content as a string, so that a leak shows
// whatever form it takes.
func allContent(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			b.WriteString(c.Text)
		case *mcp.ImageContent:
			b.Write(c.Data)
		case *mcp.AudioContent:
			b.Write(c.Data)
		case *mcp.EmbeddedResource:
			b.WriteString(c.Resource.Text)
			b.Write(c.Resource.Blob)
		}
	}
	return b.String()
}

// testPNG is a real PNG image: 3x2 pixels.
func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testWAV is a WAV file of 8 silent 8-bit samples.
func testWAV() []byte {
	var b bytes.Buffer
	data := make([]byte, 8)
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+len(data)))
	b.WriteString("WAVEfmt ")
	binary.Write(&b, binary.LittleEndian, []any{uint32(16), uint16(1), uint16(1), uint32(8000), uint32(8000), uint16(1), uint16(8)})
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}

// TestBinaryFiles: an image, an audio file and other bytes come back whole
// (not as text with U+FFFD): from read_media_file as image and audio
// content, from read_file and resources/read as a blob with the MIME type.
// Text that is not UTF-8 (Latin-1) stays text.
func TestBinaryFiles(t *testing.T) {
	s := start(t, startOpts{})
	pngBytes, wavBytes := testPNG(t), testWAV()
	bin := []byte{0, 1, 2, 0xff, 0xfe, 'x', 0}
	files := map[string][]byte{"shot.png": pngBytes, "beep.wav": wavBytes, "blob.dat": bin, "latin1.txt": []byte("caf\xe9 cr\xe8me\n"), "noext": pngBytes}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(s.ws, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	media := func(name string) mcp.Content {
		t.Helper()
		res, err := s.callRaw("read_media_file", map[string]any{"path": name})
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("read_media_file %s: %v %s", name, err, allContent(res))
		}
		return res.Content[0]
	}
	if c, ok := media("shot.png").(*mcp.ImageContent); !ok || c.MIMEType != "image/png" || !bytes.Equal(c.Data, pngBytes) {
		t.Errorf("read_media_file shot.png: %#v", media("shot.png"))
	}
	if c, ok := media("noext").(*mcp.ImageContent); !ok || c.MIMEType != "image/png" || !bytes.Equal(c.Data, pngBytes) {
		t.Errorf("read_media_file noext (sniffed): %#v", media("noext"))
	}
	if c, ok := media("beep.wav").(*mcp.AudioContent); !ok || c.MIMEType != "audio/wav" || !bytes.Equal(c.Data, wavBytes) {
		t.Errorf("read_media_file beep.wav: %#v", media("beep.wav"))
	}
	if c, ok := media("blob.dat").(*mcp.EmbeddedResource); !ok || !bytes.Equal(c.Resource.Blob, bin) || c.Resource.URI != mcpserver.FileURI(filepath.Join(s.ws, "blob.dat")) {
		t.Errorf("read_media_file blob.dat: %#v", media("blob.dat"))
	}
	s.fails("read_media_file", map[string]any{"path": "."}, "directory")
	s.fails("read_media_file", map[string]any{"path": "../out/secret"}, "outside")

	for name, mt := range map[string]string{"shot.png": "image/png", "blob.dat": "application/octet-stream"} {
		res, err := s.callRaw("read_file", map[string]any{"path": name})
		if err != nil || res.IsError || len(res.Content) != 2 {
			t.Fatalf("read_file %s: %v %+v", name, err, res)
		}
		r, ok := res.Content[1].(*mcp.EmbeddedResource)
		if !ok || r.Resource.MIMEType != mt || !bytes.Equal(r.Resource.Blob, files[name]) || !strings.Contains(resultText(res), "not text") {
			t.Errorf("read_file %s: %s %#v", name, resultText(res), res.Content[1])
		}
		rr, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.FileURI(filepath.Join(s.ws, name))})
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != mt || !bytes.Equal(rr.Contents[0].Blob, files[name]) || rr.Contents[0].Text != "" {
			t.Errorf("resources/read %s: %v %+v", name, err, rr)
		}
	}
	if got := s.ok("read_file", map[string]any{"path": "latin1.txt"}); got != "caf\uFFFD cr\uFFFDme\n" {
		t.Errorf("read_file latin1.txt = %q", got)
	}
	rr, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.FileURI(filepath.Join(s.ws, "latin1.txt"))})
	if err != nil || rr.Contents[0].Text != "caf\uFFFD cr\uFFFDme\n" || rr.Contents[0].MIMEType != "text/plain; charset=utf-8" && rr.Contents[0].MIMEType != "text/plain" {
		t.Errorf("resources/read latin1.txt: %v %+v", err, rr.Contents)
	}
}
