package host_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/escapetable"
)

// The escape table run against the operations of files_facade.go, with
// and without NoFollow: nothing outside the roots changes, no outside
// content comes back, an escape wraps ErrEscape (or, with NoFollow,
// ErrSymlink: a link on the way is refused before it can lead anywhere).
func TestFacadeEscapeTable(t *testing.T) {
	type op struct {
		name string
		run  func(h *host.Host, cwd, path string, o host.Options) (string, error)
	}
	ops := []op{
		{"OpenFile", func(h *host.Host, cwd, path string, o host.Options) (string, error) {
			f, st, err := h.OpenFile(bg, cwd, path)
			if err != nil {
				return st.Path, err
			}
			defer f.Close()
			b, _ := io.ReadAll(f)
			return st.Path + "\n" + string(b), nil
		}},
		{"WriteFrom", func(h *host.Host, cwd, path string, o host.Options) (string, error) {
			st, err := h.WriteFrom(bg, cwd, path, strings.NewReader("NEW"), o)
			return st.Path, err
		}},
		{"WriteFromExclusive", func(h *host.Host, cwd, path string, o host.Options) (string, error) {
			o.Exclusive = true
			st, err := h.WriteFrom(bg, cwd, path, strings.NewReader("NEW"), o)
			return st.Path, err
		}},
		{"StatWith", func(h *host.Host, cwd, path string, o host.Options) (string, error) {
			st, err := h.StatWith(bg, cwd, path, o)
			return st.Path, err
		}},
		{"MakeDir", func(h *host.Host, cwd, path string, o host.Options) (string, error) {
			_, err := h.MakeDir(bg, cwd, path, o)
			return "", err
		}},
		{"ReadDir", func(h *host.Host, cwd, path string, o host.Options) (string, error) {
			ents, err := h.ReadDir(bg, cwd, path, o)
			var b strings.Builder
			for _, e := range ents {
				b.WriteString(e.Path + "\n")
			}
			return b.String(), err
		}},
		{"Touch", func(h *host.Host, cwd, path string, o host.Options) (string, error) {
			return "", h.Touch(bg, cwd, path, time.Unix(1e9, 0), o)
		}},
		{"RemoveTree", func(h *host.Host, cwd, path string, o host.Options) (string, error) {
			return "", h.RemoveTree(bg, cwd, path, o)
		}},
	}
	for _, noFollow := range []bool{false, true} {
		for _, o := range ops {
			for _, c := range escapetable.Cases {
				name := o.name + "/" + c.Name
				if noFollow {
					name = o.name + "NoFollow/" + c.Name
				}
				t.Run(name, func(t *testing.T) {
					dir := escapetable.Build(t, c.FS)
					h := newCaseHost(t, dir)
					before := escapetable.Snapshot(t, dir)
					got, err := o.run(h, expandT(c.Cwd, dir), expandT(c.Path, dir), host.Options{NoFollow: noFollow})
					if after := escapetable.Snapshot(t, dir); after != before {
						t.Fatalf("changed something outside the jail:\nbefore:\n%s\nafter:\n%s", before, after)
					}
					if strings.Contains(got, "SECRET") || strings.Contains(got, "/out/") {
						t.Fatalf("returned outside content or path: %q", got)
					}
					switch {
					case o.name == "RemoveTree" && c.LinkFinal && !noFollow:
						// Like RemoveFile: the link goes, its target stays.
						if _, serr := os.Lstat(filepath.Join(expandT(cwdOf(escapeCase{Case: c}), dir), expandT(c.Path, dir))); err != nil || serr == nil {
							t.Fatalf("removing the link: %v (lstat %v)", err, serr)
						}
					case c.Escape && noFollow:
						if !errors.Is(err, host.ErrEscape) && !errors.Is(err, host.ErrSymlink) && !errors.Is(err, host.ErrInvalidPath) {
							t.Fatalf("got %v; want ErrEscape or ErrSymlink", err)
						}
					case c.Escape:
						if !errors.Is(err, host.ErrEscape) {
							t.Fatalf("got %q, %v; want ErrEscape", got, err)
						}
					case c.Err != nil && !noFollow:
						if !errors.Is(err, c.Err) {
							t.Fatalf("got %v; want %v", err, c.Err)
						}
					}
				})
			}
		}
	}
}

func TestNoFollowRefusesLinksOnTheWay(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(filepath.Join(ws, "real", "sub"), 0o755)
	os.WriteFile(filepath.Join(ws, "real", "sub", "f"), []byte("inside"), 0o644)
	os.Symlink("real", filepath.Join(ws, "link"))           // a link inside the jail
	os.Symlink("sub/f", filepath.Join(ws, "real", "flink")) // a final link
	h := newHost(t, host.Config{WorkspaceRoot: ws})
	nf := host.Options{NoFollow: true}

	for _, p := range []string{"link/sub/f", "real/flink"} {
		if _, err := h.StatWith(bg, "", p, nf); !errors.Is(err, host.ErrSymlink) {
			t.Errorf("StatWith %s: %v, want ErrSymlink", p, err)
		}
		if _, err := h.WriteFrom(bg, "", p, strings.NewReader("x"), nf); !errors.Is(err, host.ErrSymlink) {
			t.Errorf("WriteFrom %s: %v, want ErrSymlink", p, err)
		}
		if err := h.Touch(bg, "", p, time.Unix(1e9, 0), nf); !errors.Is(err, host.ErrSymlink) {
			t.Errorf("Touch %s: %v, want ErrSymlink", p, err)
		}
	}
	if _, err := h.MakeDir(bg, "", "link/new", nf); !errors.Is(err, host.ErrSymlink) {
		t.Errorf("MakeDir through a link: %v", err)
	}
	if _, err := h.MakeDir(bg, "", "link", nf); !errors.Is(err, host.ErrSymlink) {
		t.Errorf("MakeDir onto a link: %v", err)
	}
	if _, err := h.ReadDir(bg, "", "link", nf); !errors.Is(err, host.ErrSymlink) {
		t.Errorf("ReadDir of a link: %v", err)
	}
	if err := h.RemoveTree(bg, "", "link/sub", nf); !errors.Is(err, host.ErrSymlink) {
		t.Errorf("RemoveTree through a link: %v", err)
	}
	if _, err := h.WriteFrom(bg, "", "real/../real/x", strings.NewReader("x"), nf); !errors.Is(err, host.ErrInvalidPath) {
		t.Errorf("dotdot with NoFollow: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "real", "sub", "f")); string(b) != "inside" {
		t.Fatalf("file changed through a link: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "real", "sub")); err != nil {
		t.Fatal("removed through a link")
	}
	// Without links it all works.
	if _, err := h.WriteFrom(bg, "", "real/sub/g", strings.NewReader("g"), nf); err != nil {
		t.Fatal(err)
	}
	f, st, err := h.OpenFile(bg, "", "real/sub/g")
	if err != nil || st.Path != filepath.Join(ws, "real", "sub", "g") {
		t.Fatal(st, err)
	}
	f.Close()
	// Without NoFollow, links inside the jail are followed.
	if st, err := h.StatWith(bg, "", "link/sub/f", host.Options{}); err != nil || st.Path != filepath.Join(ws, "real", "sub", "f") {
		t.Fatal(st, err)
	}
}

func TestWriteFromExclusivePermVerify(t *testing.T) {
	dir := t.TempDir()
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	ex := host.Options{Exclusive: true, Perm: 0o600}
	if _, err := h.WriteFrom(bg, "", "f", strings.NewReader("one"), ex); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "f")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode())
	}
	if _, err := h.WriteFrom(bg, "", "f", strings.NewReader("two"), ex); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second exclusive create: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "one" {
		t.Fatalf("exclusive create replaced the file: %q", b)
	}
	// Perm is for new files; an existing one keeps its bits unless
	// ReplacePerm.
	os.Chmod(filepath.Join(dir, "f"), 0o644)
	if _, err := h.WriteFrom(bg, "", "f", strings.NewReader("kept mode"), host.Options{Perm: 0o600}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "f")); fi.Mode().Perm() != 0o644 {
		t.Fatalf("a rewrite gave mode %v, want the old 0644", fi.Mode())
	}
	if _, err := h.WriteFrom(bg, "", "f", strings.NewReader("new mode"), host.Options{Perm: 0o600, ReplacePerm: true}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "f")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("ReplacePerm gave mode %v, want 0600", fi.Mode())
	}
	boom := errors.New("boom")
	var seen int64
	_, err := h.WriteFrom(bg, "", "g", strings.NewReader("12345"), host.Options{Verify: func(n int64) error { seen = n; return boom }})
	if err != boom || seen != 5 {
		t.Fatalf("Verify: %v, saw %d", err, seen)
	}
	if _, err := os.Lstat(filepath.Join(dir, "g")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("written despite Verify's error")
	}
	assertNoTemp(t, dir)
	// A reader's error: nothing written.
	_, err = h.WriteFrom(bg, "", "h", io.MultiReader(strings.NewReader("part"), errReader{}), host.Options{})
	if err == nil {
		t.Fatal("reader's error not returned")
	}
	if _, err := os.Lstat(filepath.Join(dir, "h")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("written despite the reader's error")
	}
	assertNoTemp(t, dir)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("read failed") }

func TestRemoveTreeNeverFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	ws, out := filepath.Join(dir, "ws"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(ws, "tree", "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(ws, "keep"), 0o755)
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "secret"), []byte("SECRET"), 0o644)
	os.WriteFile(filepath.Join(ws, "keep", "k"), []byte("k"), 0o644)
	os.WriteFile(filepath.Join(ws, "tree", "a", "b", "f"), []byte("f"), 0o644)
	os.Symlink(out, filepath.Join(ws, "tree", "out"))
	os.Symlink("../../keep", filepath.Join(ws, "tree", "a", "keep"))
	os.Symlink(filepath.Join(out, "secret"), filepath.Join(ws, "tree", "a", "b", "s"))
	h := newHost(t, host.Config{WorkspaceRoot: ws, ExtraRoots: []string{filepath.Join(ws, "keep")}})
	if err := h.RemoveTree(bg, "", "keep", host.Options{}); err == nil {
		t.Fatal("removed a root")
	}
	if err := h.RemoveTree(bg, "", ".", host.Options{}); err == nil {
		t.Fatal("removed the workspace")
	}
	if err := h.RemoveTree(bg, "", "tree", host.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(ws, "tree")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("tree still there")
	}
	if b, _ := os.ReadFile(filepath.Join(out, "secret")); string(b) != "SECRET" {
		t.Fatal("outside file removed through a link")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "keep", "k")); string(b) != "k" {
		t.Fatal("file removed through a link")
	}
	if err := h.RemoveTree(bg, "", "tree", host.Options{}); err != nil {
		t.Fatalf("missing path: %v", err)
	}
}

func TestTouchAndReadDir(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "f"), []byte("f"), 0o644)
	os.Symlink("f", filepath.Join(dir, "d", "l"))
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	when := time.Unix(1234567890, 0)
	if err := h.Touch(bg, "", "d", when, host.Options{NoFollow: true}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "d")); !fi.ModTime().Equal(when) {
		t.Fatalf("mtime %v, want %v", fi.ModTime(), when)
	}
	ents, err := h.ReadDir(bg, "", "d", host.Options{NoFollow: true})
	if err != nil || len(ents) != 2 {
		t.Fatal(ents, err)
	}
	kinds := map[string]fs.FileMode{}
	for _, e := range ents {
		kinds[filepath.Base(e.Path)] = e.Mode.Type()
	}
	if kinds["f"] != 0 || kinds["l"] != fs.ModeSymlink {
		t.Fatalf("kinds %v", kinds)
	}
}

// TestWriteDropsPrivilegeBits is hole 7 of issue 10: a rewrite keeps the
// rwx bits for user, group and others and drops setuid, setgid and
// sticky, through WriteFile, WriteFrom and UpdateFile.
func TestWriteDropsPrivilegeBits(t *testing.T) {
	dir := t.TempDir()
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	writes := map[string]func(string) error{
		"WriteFile": func(p string) error { _, err := h.WriteFile(bg, "", p, []byte("new")); return err },
		"WriteFrom": func(p string) error {
			_, err := h.WriteFrom(bg, "", p, bytes.NewReader([]byte("new")), host.Options{})
			return err
		},
		"UpdateFile": func(p string) error {
			_, err := h.UpdateFile(bg, "", p, func(host.FileRead) ([]byte, error) { return []byte("new"), nil })
			return err
		},
	}
	for name, write := range writes {
		for _, mode := range []os.FileMode{0o4755, 0o2750, 0o1777, 0o7705, 0o0640, 0o0000} {
			p := filepath.Join(dir, "f")
			os.Remove(p)
			os.WriteFile(p, []byte("old"), 0o600)
			if err := syscall.Chmod(p, uint32(mode&0o777)|modeBits(mode)); err != nil {
				t.Fatal(err)
			}
			if mode.Perm()&0o400 == 0 && name == "UpdateFile" && os.Getuid() != 0 {
				continue // unreadable: UpdateFile cannot read it
			}
			if err := write("f"); err != nil {
				t.Fatalf("%s on %o: %v", name, mode, err)
			}
			fi, _ := os.Stat(p)
			if fi.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 || fi.Mode().Perm() != mode.Perm() {
				t.Errorf("%s on mode %o: got %v, want %v without setuid/setgid/sticky", name, mode, fi.Mode(), mode.Perm())
			}
		}
	}
}

// modeBits turns the setuid/setgid/sticky of an octal literal (as written
// above: 04000, 02000, 01000) into chmod(2)'s bits.
func modeBits(m os.FileMode) uint32 { return uint32(m) & 0o7000 }
