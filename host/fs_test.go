package host_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
)

func newHost(t *testing.T, cfg host.Config) *host.Host {
	t.Helper()
	h, err := host.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

var bg = context.Background()

func TestNewInvalidRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, root := range []string{"", filepath.Join(dir, "missing"), file, "a\x00b"} {
		if _, err := host.New(host.Config{WorkspaceRoot: root}); !errors.Is(err, host.ErrInvalidRoot) {
			t.Errorf("New(%q): got %v, want ErrInvalidRoot", root, err)
		}
	}
	if _, err := host.New(host.Config{WorkspaceRoot: dir, ExtraRoots: []string{file}}); !errors.Is(err, host.ErrInvalidRoot) {
		t.Errorf("extra root that is a file: got %v", err)
	}
}

func TestAddRoot(t *testing.T) {
	dir := t.TempDir()
	ws, extra := filepath.Join(dir, "ws"), filepath.Join(dir, "extra")
	os.Mkdir(ws, 0o755)
	os.Mkdir(extra, 0o755)
	os.WriteFile(filepath.Join(extra, "f"), []byte("x"), 0o644)
	os.Symlink(extra, filepath.Join(dir, "alias"))
	h := newHost(t, host.Config{WorkspaceRoot: ws})

	if _, err := h.ReadFile(bg, "", filepath.Join(extra, "f")); !errors.Is(err, host.ErrEscape) {
		t.Fatalf("before AddRoot: got %v, want ErrEscape", err)
	}
	if _, err := h.AddRoot(filepath.Join(dir, "missing")); !errors.Is(err, host.ErrInvalidRoot) {
		t.Fatalf("missing root: %v", err)
	}
	if _, err := h.AddRoot(filepath.Join(extra, "f")); !errors.Is(err, host.ErrInvalidRoot) {
		t.Fatalf("file root: %v", err)
	}
	if got := h.Roots(); len(got) != 1 {
		t.Fatalf("a failed AddRoot changed the roots: %v", got)
	}
	// Added through a symlinked alias: both forms are recognized.
	canon, err := h.AddRoot(filepath.Join(dir, "alias"))
	if err != nil || canon != extra {
		t.Fatalf("AddRoot(alias) = %q, %v; want %q", canon, err, extra)
	}
	for _, p := range []string{filepath.Join(extra, "f"), filepath.Join(dir, "alias", "f")} {
		r, err := h.ReadFile(bg, "", p)
		if err != nil || r.Path != filepath.Join(extra, "f") {
			t.Errorf("ReadFile(%s) = %q, %v", p, r.Path, err)
		}
	}
	again, err := h.AddRoot(extra)
	if err != nil || again != canon || len(h.Roots()) != 2 {
		t.Fatalf("AddRoot is not idempotent: %q %v %v", again, err, h.Roots())
	}
	if h.Roots()[0] != h.WorkspaceRoot() {
		t.Fatalf("workspace root is not first: %v", h.Roots())
	}
}

func TestAddRootTilde(t *testing.T) {
	home := t.TempDir()
	os.Mkdir(filepath.Join(home, "proj"), 0o755)
	h := newHost(t, host.Config{WorkspaceRoot: t.TempDir(), Home: home})
	got, err := h.AddRoot("~/proj")
	if err != nil || got != filepath.Join(home, "proj") {
		t.Fatalf("AddRoot(~/proj) = %q, %v", got, err)
	}
}

// TestAddRootConcurrent widens the jail while other goroutines resolve.
func TestAddRootConcurrent(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "f"), []byte("x"), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: ws})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := h.ReadFile(bg, "", "f"); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for i := range 50 {
		d := filepath.Join(dir, "r", strings.Repeat("x", i+1))
		os.MkdirAll(d, 0o755)
		if _, err := h.AddRoot(d); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if n := len(h.Roots()); n != 51 {
		t.Fatalf("%d roots, want 51", n)
	}
}

// TestSymlinkedWorkspaceRoot: a root reached through a symlink (macOS
// /tmp -> /private/tmp) matches in either form.
func TestSymlinkedWorkspaceRoot(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	os.WriteFile(filepath.Join(real, "f"), []byte("x"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(real, link)
	h := newHost(t, host.Config{WorkspaceRoot: link})
	if h.WorkspaceRoot() != real {
		t.Fatalf("WorkspaceRoot = %q, want %q", h.WorkspaceRoot(), real)
	}
	for _, p := range []string{"f", filepath.Join(link, "f"), filepath.Join(real, "f")} {
		got, err := h.ResolveInJail(bg, "", p)
		if err != nil || got != filepath.Join(real, "f") {
			t.Errorf("ResolveInJail(%q) = %q, %v", p, got, err)
		}
	}
	if _, err := h.ResolveInJail(bg, link, "f"); err != nil {
		t.Errorf("cwd in the given form: %v", err)
	}
}

func TestUnrestricted(t *testing.T) {
	dir := t.TempDir()
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.Mkdir(ws, 0o755)
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "f"), []byte("outside"), 0o644)
	os.Symlink(filepath.Join(out, "f"), filepath.Join(ws, "l"))
	h := newHost(t, host.Config{WorkspaceRoot: ws, PathPolicy: host.Unrestricted, Home: out})
	if got, err := h.ResolveInJail(bg, "", "../out/x/.."); err != nil || got != out {
		t.Fatalf("Unrestricted resolve = %q, %v; want %q", got, err, out)
	}
	if got, err := h.ResolveInJail(bg, "", "~/f"); err != nil || got != filepath.Join(out, "f") {
		t.Fatalf("~ under Unrestricted = %q, %v", got, err)
	}
	for _, p := range []string{"../out/f", "l", filepath.Join(out, "f")} {
		r, err := h.ReadFile(bg, "", p)
		if err != nil || r.Contents != "outside" {
			t.Errorf("ReadFile(%q) = %q, %v", p, r.Contents, err)
		}
	}
	if _, err := h.WriteFile(bg, "", "../out/g", []byte("w")); err != nil {
		t.Fatal(err)
	}
	if h.PathPolicy() != host.Unrestricted {
		t.Fatal("PathPolicy")
	}
}

func TestReadDevZeroThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	os.Symlink("/dev/zero", filepath.Join(dir, "z"))
	// Unrestricted: the link is followed, and the device refused.
	h := newHost(t, host.Config{WorkspaceRoot: dir, PathPolicy: host.Unrestricted})
	if _, err := h.ReadFile(bg, "", "z"); !errors.Is(err, host.ErrNotRegular) {
		t.Fatalf("unrestricted: got %v, want ErrNotRegular", err)
	}
	// Jailed: /dev is outside the jail.
	hj := newHost(t, host.Config{WorkspaceRoot: dir})
	if _, err := hj.ReadFile(bg, "", "z"); !errors.Is(err, host.ErrEscape) {
		t.Fatalf("jailed: got %v, want ErrEscape", err)
	}
}

func TestReadSocketAndDirectory(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	if _, err := h.ReadFile(bg, "", "d"); !errors.Is(err, host.ErrNotRegular) {
		t.Fatalf("directory: %v", err)
	}
	sock := filepath.Join(dir, "s")
	fd, _ := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Skip("bind:", err)
	}
	if _, err := h.ReadFile(bg, "", "s"); !errors.Is(err, host.ErrNotRegular) {
		t.Fatalf("socket: %v", err)
	}
}

func TestReadTooLarge(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big"), bytes.Repeat([]byte("x"), 2000), 0o644)
	os.WriteFile(filepath.Join(dir, "ok"), bytes.Repeat([]byte("x"), 1000), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: dir, MaxReadBytes: 1000})
	if _, err := h.ReadFile(bg, "", "big"); !errors.Is(err, host.ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if r, err := h.ReadFile(bg, "", "ok"); err != nil || len(r.Contents) != 1000 || r.Stat.Size != 1000 {
		t.Fatalf("at the limit: %v", err)
	}
}

func TestReadLossyUTF8(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("a\xffb\xc3"), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	r, err := h.ReadFile(bg, "", "f")
	if err != nil || r.Contents != "a\uFFFDb\uFFFD" {
		t.Fatalf("got %q, %v", r.Contents, err)
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	if _, err := h.WriteFile(bg, "", "d", []byte("x")); !errors.Is(err, host.ErrNotRegular) {
		t.Errorf("write to a directory: %v", err)
	}
	if _, err := h.WriteFile(bg, "", "d/", []byte("x")); err == nil {
		t.Errorf("write to dir/ succeeded")
	}
	if _, err := h.WriteFile(bg, "", "missing/f", []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing parent: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("WriteFile created a parent")
	}
	assertNoTemp(t, dir)
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if strings.HasPrefix(d.Name(), host.TempPrefix) || strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestWriteKeepsModeAndReturnsStat(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("old"), 0o640)
	os.Chmod(p, 0o751)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	st, err := h.WriteFile(bg, "", "f", []byte("new contents"))
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o751 || st.Mode.Perm() != 0o751 {
		t.Errorf("mode %v / %v, want 0751", fi.Mode(), st.Mode)
	}
	if st.Size != 12 || st.Path != p || st.IsDir {
		t.Errorf("stat %+v", st)
	}
	assertNoTemp(t, dir)
}

// TestWriteCrashSafety: while one goroutine rewrites a file over and over
// with alternating contents, readers only ever see one whole version.
func TestWriteCrashSafety(t *testing.T) {
	dir := t.TempDir()
	a := bytes.Repeat([]byte("A"), 256<<10)
	b := bytes.Repeat([]byte("B"), 300<<10)
	os.WriteFile(filepath.Join(dir, "f"), a, 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			data := a
			if i%2 == 1 {
				data = b
			}
			if _, err := h.WriteFile(bg, "", "f", data); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 300 {
		got, err := os.ReadFile(filepath.Join(dir, "f"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("torn read: %d bytes", len(got))
		}
	}
	close(stop)
	wg.Wait()
	assertNoTemp(t, dir)
}

// TestWriteKilledMidway kills a writer process mid-write: the target holds
// the old or the new contents, never a mix.
func TestWriteKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	dir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "agent-host")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/agenthost/agenthost/cmd/agent-host").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	old := []byte("old contents\n")
	os.WriteFile(filepath.Join(dir, "f"), old, 0o644)
	for i := range 5 {
		cmd := exec.Command(bin, "write", "--root", dir, "f")
		pr, pw, _ := os.Pipe()
		cmd.Stdin = pr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pr.Close()
		pw.Write(bytes.Repeat([]byte("N"), 1<<16)) // half of the new contents...
		time.Sleep(time.Duration(i) * 5 * time.Millisecond)
		cmd.Process.Kill() // ...and the writer dies
		pw.Close()
		cmd.Wait()
		got, _ := os.ReadFile(filepath.Join(dir, "f"))
		if !bytes.Equal(got, old) {
			t.Fatalf("after a killed write the file holds %d bytes, not the old contents", len(got))
		}
	}
}

func TestCreateDirAndRemove(t *testing.T) {
	dir := t.TempDir()
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	if err := h.CreateDir(bg, "", "a/b/c", false, false); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("without parents: %v", err)
	}
	if err := h.CreateDir(bg, "", "a/b/c", true, false); err != nil {
		t.Fatal(err)
	}
	if err := h.CreateDir(bg, "", "a/b/c", false, false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("existing without existOK: %v", err)
	}
	if err := h.CreateDir(bg, "", "a/b/c", false, true); err != nil {
		t.Fatalf("existing with existOK: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	if err := h.CreateDir(bg, "", "file", true, true); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a file in the way: %v", err)
	}
	if err := h.CreateDir(bg, "", "file/sub", true, true); err == nil {
		t.Fatalf("mkdir under a file succeeded")
	}
	if err := h.CreateDir(bg, "", "../x/y", true, true); !errors.Is(err, host.ErrEscape) {
		t.Fatalf("mkdir -p outside: %v", err)
	}
	if err := h.RemoveFile(bg, "", "a/b/c"); err == nil {
		t.Fatalf("RemoveFile removed a directory")
	}
	if err := h.RemoveFile(bg, "", "file"); err != nil {
		t.Fatal(err)
	}
	if err := h.RemoveFile(bg, "", "file"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("remove missing: %v", err)
	}
}

func TestContextCancelled(t *testing.T) {
	h := newHost(t, host.Config{WorkspaceRoot: t.TempDir()})
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := h.ReadFile(ctx, "", "f"); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

// TestUnrestrictedResolveMatchesOperations: under Unrestricted,
// ResolveInJail shows what the operations touch ("link/.." is the link
// target's parent, as for the kernel), not a lexical cleaning.
func TestUnrestrictedResolveMatchesOperations(t *testing.T) {
	dir := t.TempDir()
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(out, "sub"), 0o755)
	os.Mkdir(ws, 0o755)
	os.Symlink(filepath.Join(out, "sub"), filepath.Join(ws, "link"))
	h := newHost(t, host.Config{WorkspaceRoot: ws, PathPolicy: host.Unrestricted})
	got, err := h.ResolveInJail(bg, "", "link/../victim")
	if err != nil || got != filepath.Join(out, "victim") {
		t.Fatalf("ResolveInJail = %q, %v; want %q", got, err, filepath.Join(out, "victim"))
	}
	st, err := h.WriteFile(bg, "", "link/../victim", []byte("x"))
	if err != nil || st.Path != got {
		t.Fatalf("WriteFile wrote %q, %v; ResolveInJail said %q", st.Path, err, got)
	}
}

// TestTrailingDotIsADirectory: "f/." names a directory, so for a file it
// is ENOTDIR, as for the kernel, not the file f.
func TestTrailingDotIsADirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	if _, err := h.WriteFile(bg, "", "f/.", []byte("new")); err == nil {
		t.Fatal("WriteFile(f/.) succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "old" {
		t.Fatalf("f holds %q", b)
	}
	if _, err := h.ReadFile(bg, "", "f/."); err == nil {
		t.Fatal("ReadFile(f/.) succeeded")
	}
}
