package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agenthost/agenthost/internal/cli"
	"github.com/agenthost/agenthost/internal/testbin"
)

func init() { testbin.Spawner() }

// runBounded runs cmd for at most d, killed sooner above killAboveKiB of
// RSS, and returns how long it ran, its peak RSS in KiB and, as Run
// would, an *exec.ExitError for a non-zero exit (see testbin.Bounded).
func runBounded(t *testing.T, cmd *exec.Cmd, d time.Duration, killAboveKiB int64) (time.Duration, int64, error) {
	t.Helper()
	took, peak, code, err := testbin.Bounded(cmd, d, killAboveKiB)
	if err != nil {
		t.Fatalf("agent-host: %v", err)
	}
	if code != 0 {
		return took, peak, &exec.ExitError{ProcessState: cmd.ProcessState}
	}
	return took, peak, nil
}

// sparse makes a file of size zero bytes at path without writing them.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// TestReadJSONOfHugeFile (issue 23): read --json of a 2 GiB file is
// refused at once with an error that names the limit and says how to
// read it whole (without --json), in constant memory; the old code read
// it all and encoded its zero bytes as text, six bytes each (10.5 GiB of
// RSS, 206 s). A file of zero bytes just within the limit comes back in
// base64 (a NUL byte makes it binary, as git decides), the answer a
// third larger than the file, not six times, and the process under
// 40 MiB (the file held once, 16 MiB, and its encoding streamed).
func TestReadJSONOfHugeFile(t *testing.T) {
	w := newWorld(t)
	sparse(t, filepath.Join(w.ws, "huge.bin"), 2<<30)
	cmd := w.cmd("read", "--json", "huge.bin")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	took, peak, err := runBounded(t, cmd, 30*time.Second, 256<<10)
	var e cli.ErrorJSON
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || json.Unmarshal(errb.Bytes(), &e) != nil ||
		!strings.Contains(e.Error, "2147483648 bytes is more than 16777216 bytes") || !strings.Contains(e.Error, "without --json") {
		t.Errorf("read --json of 2 GiB: %v, stdout %.300q, stderr %.300q; want exit 1 naming the limit", err, out.String(), errb.String())
	}
	if took > 2*time.Second || peak > 32<<10 {
		t.Errorf("read --json of 2 GiB: %v and %d KiB, want under 2 s and 32 MiB", took, peak)
	}

	const size = 16<<20 - 1
	sparse(t, filepath.Join(w.ws, "zeros.bin"), size)
	cmd = w.cmd("read", "--json", "zeros.bin")
	out.Reset()
	cmd.Stdout = &out
	took, peak, err = runBounded(t, cmd, 30*time.Second, 256<<10)
	var r readJSON
	if err != nil || json.Unmarshal(out.Bytes(), &r) != nil || r.Encoding != "base64" || r.Size != size {
		t.Fatalf("read --json of %d zero bytes: %v, %.300q; want base64", size, err, out.String())
	}
	if b, err := base64.StdEncoding.DecodeString(r.Contents); err != nil || len(b) != size || bytes.ContainsFunc(b, func(r rune) bool { return r != 0 }) {
		t.Errorf("read --json of %d zero bytes: contents decode to %d bytes (%v)", size, len(b), err)
	}
	// The time is lax (the old code took 9 s at a load of 15 on two
	// cores, and is stopped by its RSS first).
	if out.Len() > size*4/3+300 || took > 20*time.Second || peak > 40<<10 {
		t.Errorf("read --json of %d zero bytes: %d bytes of answer, %v, %d KiB; want at most 4/3 of the file, 20 s, 40 MiB", size, out.Len(), took, peak)
	}
}

// gitBinary reports whether git diffs the file at path as binary.
func gitBinary(t *testing.T, w *world, path string) bool {
	t.Helper()
	cmd := exec.Command("git", "diff", "--no-index", "--numstat", os.DevNull, path)
	cmd.Env = w.cmd().Env
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("git diff: %v", err)
	}
	return strings.HasPrefix(string(out), "-\t-\t")
}

// TestReadJSONEncoding: read --json's answer is, byte for byte, what
// encoding/json writes for the object (the oracle), its contents text
// when git calls the file text and it is UTF-8, base64 otherwise; text
// longer than the 64 KiB pieces it is encoded in, with characters of
// two to four bytes across each edge, included.
func TestReadJSONEncoding(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	w := newWorld(t)
	files := map[string][]byte{
		"plain.txt":  []byte("hello\n"),
		"escapes":    []byte("<a&b> \"q\" \\ \x01\x1f\t\r\n\b\f \u2028\u2029 \x7f end"),
		"latin1.txt": []byte("caf\xe9\n"),
		"nul.txt":    []byte("text\x00with a NUL\n"),
		"late nul":   append(bytes.Repeat([]byte("a"), 9000), 0),
		"empty":      nil,
		"long.txt":   []byte(strings.Repeat("é✓𝄞\"\n", 40000)),
	}
	for name, body := range files {
		path := w.file(name, body)
		r := w.run("", "read", "--json", name)
		if r.code != 0 {
			t.Fatalf("read --json %s: exit %d: %s", name, r.code, r.stderr)
		}
		want := readJSON{Path: path, Size: int64(len(body)), Encoding: "utf-8", Contents: string(body)}
		if gitBinary(t, w, path) || !utf8.Valid(body) {
			want.Encoding, want.Contents = "base64", base64.StdEncoding.EncodeToString(body)
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(want)
		if r.stdout != b.String() {
			t.Errorf("read --json %s:\n got %.200q\nwant %.200q", name, r.stdout, b.String())
		}
	}
}

// patternReader gives n bytes of a pattern that never repeats within a
// block, with no copy of them held.
type patternReader struct{ n, off int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), p.n-p.off)]
	for i := range b {
		x := p.off + int64(i)
		b[i] = byte(x ^ x>>8 ^ x>>16)
	}
	p.off += int64(len(b))
	return len(b), nil
}

// TestWriteStreamsStdin (issue 23): write takes 128 MiB from a pipe into
// the file with its peak RSS under 32 MiB (the old code read all of
// stdin first: 200 MiB took 417 MiB), and the file holds exactly what
// was sent.
func TestWriteStreamsStdin(t *testing.T) {
	w := newWorld(t)
	const size = 128 << 20
	cmd := w.cmd("write", "big.out")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.New()
	fed := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.MultiWriter(stdin, sum), &patternReader{n: size})
		stdin.Close()
		fed <- err
	}()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	took, peak, err := runBounded(t, cmd, 60*time.Second, 256<<10)
	if err != nil || <-fed != nil {
		t.Fatalf("write: %v, stderr %s", err, errb.String())
	}
	f, err := os.Open(filepath.Join(w.ws, "big.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := sha256.New()
	if n, err := io.Copy(got, f); err != nil || n != size || !bytes.Equal(got.Sum(nil), sum.Sum(nil)) {
		t.Fatalf("big.out: %d bytes (%v), want the %d bytes sent", n, err, size)
	}
	t.Logf("write of %d MiB: %v, peak RSS %.1f MiB", size>>20, took, float64(peak)/1024)
	if peak > 32<<10 {
		t.Errorf("write of %d MiB from a pipe: peak RSS %d KiB, want under 32 MiB", size>>20, peak)
	}
}

// TestWriteStdinFailureKeepsOldFile: when stdin fails midway (a socket
// reset by its peer after 1 MiB), write exits 1 naming standard input,
// and the old file is there as it was, with no temporary file left
// beside it: what was read was never put in place.
func TestWriteStdinFailureKeepsOldFile(t *testing.T) {
	w := newWorld(t)
	old := w.file("keep.txt", []byte("the old contents\n"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	sock, err := client.(*net.TCPConn).File()
	client.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	cmd := w.cmd("write", "keep.txt")
	cmd.Stdin = sock
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sock.Close()
	go func() {
		peer.Write(bytes.Repeat([]byte("new "), 1<<18))
		time.Sleep(300 * time.Millisecond) // the writer reads it
		peer.(*net.TCPConn).SetLinger(0)   // close with a reset
		peer.Close()
	}()
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "standard input") {
		t.Fatalf("write from a reset socket: %v, stderr %q; want exit 1 naming standard input", err, errb.String())
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != "the old contents\n" {
		t.Errorf("keep.txt after the failed write: %q (%v)", b, err)
	}
	ents, _ := os.ReadDir(w.ws)
	for _, e := range ents {
		if e.Name() != "keep.txt" {
			t.Errorf("left in the directory: %s", e.Name())
		}
	}
}
