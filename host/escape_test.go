package host_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/agenthost/agenthost/host"
)

// The escape table: each case is a tiny filesystem, a cwd and a path, run
// against every path-taking operation of the Host. The shape follows
// rootTestCases in $GOROOT/src/os/root_test.go, widened to several roots.
//
// Every tree has:
//
//	ws/          the workspace root
//	ws2/         a second root
//	wsabc/       a sibling that shares the workspace root's prefix (not a root)
//	out/         outside every root
//	home/        $HOME for ~ expansion (outside every root)
//
// Entries are "dir/", "file" (contents are the file's own path) or
// "link => target" ($T expands to the temp dir).
type escapeCase struct {
	name string
	fs   []string
	cwd  string // relative to ws unless absolute after $T expansion
	path string
	// Exactly one of these:
	target string // the file or directory the path names, relative to $T
	escape bool   // the path leaves every root
	err    error  // another error every operation returns

	linkFinal bool // the path's last component is a link inside the jail

	// Filled in by the table loop before the operation runs.
	existed, wasDir bool
}

var escapeCases = []escapeCase{
	{name: "plain file", fs: []string{"ws/f"}, path: "f", target: "ws/f"},
	{name: "nested file", fs: []string{"ws/a/b/f"}, path: "a/b/f", target: "ws/a/b/f"},
	{name: "dot", path: ".", target: "ws"},
	{name: "dir then dotdot", fs: []string{"ws/a/"}, path: "a/..", target: "ws"},
	{name: "trailing slash dir", fs: []string{"ws/a/"}, path: "a/", target: "ws/a"},
	{name: "new file", path: "new", target: "ws/new"},
	{name: "dotdot", path: "..", escape: true},
	{name: "dotdot outside file", path: "../out/secret", escape: true},
	{name: "deep dotdot outside", fs: []string{"ws/a/b/"}, path: "a/b/../../../out/secret", escape: true},
	{name: "dotdot new file outside", path: "../out/new", escape: true},
	{name: "absolute inside", fs: []string{"ws/f"}, path: "$T/ws/f", target: "ws/f"},
	{name: "absolute outside", path: "$T/out/secret", escape: true},
	{name: "absolute etc passwd", path: "/etc/passwd", escape: true},
	{name: "absolute slash", path: "/", escape: true},
	{name: "link to file inside", fs: []string{"ws/f", "ws/lf => f"}, path: "lf", target: "ws/f", linkFinal: true},
	{name: "relative link out", fs: []string{"ws/lo => ../out/secret"}, path: "lo", escape: true, linkFinal: true},
	{name: "absolute link out", fs: []string{"ws/la => $T/out/secret"}, path: "la", escape: true, linkFinal: true},
	{name: "link to dir inside", fs: []string{"ws/a/b/f", "ws/ld => a"}, path: "ld/b/f", target: "ws/a/b/f"},
	{name: "link to dir outside", fs: []string{"ws/lod => ../out"}, path: "lod/secret", escape: true},
	{name: "link to dir outside new file", fs: []string{"ws/lod => ../out"}, path: "lod/new", escape: true},
	{name: "dotdot after link", fs: []string{"ws/a/b/", "ws/a/f2", "ws/lb => a/b"}, path: "lb/../f2", target: "ws/a/f2"},
	{name: "dotdot after link as dir", fs: []string{"ws/a/b/", "ws/lb => a/b"}, path: "lb/..", target: "ws/a"},
	{name: "link loop", fs: []string{"ws/l1 => l2", "ws/l2 => l1"}, path: "l1", err: syscall.ELOOP, linkFinal: true},
	{name: "self loop in the middle", fs: []string{"ws/self => self"}, path: "self/x", err: syscall.ELOOP},
	{name: "chain then out", fs: []string{"ws/c1 => c2", "ws/c2 => ../out/secret"}, path: "c1", escape: true, linkFinal: true},
	{name: "link into second root", fs: []string{"ws2/g", "ws/to2 => $T/ws2"}, path: "to2/g", target: "ws2/g"},
	{name: "relative link into second root", fs: []string{"ws2/g", "ws/rel2 => ../ws2/g"}, path: "rel2", target: "ws2/g", linkFinal: true},
	{name: "dotdot into sibling root", fs: []string{"ws2/g"}, path: "../ws2/g", target: "ws2/g"},
	{name: "absolute under second root", fs: []string{"ws2/g"}, path: "$T/ws2/g", target: "ws2/g"},
	{name: "second root link back out", fs: []string{"ws2/back => ../out/secret"}, path: "$T/ws2/back", escape: true, linkFinal: true},
	{name: "sibling prefix absolute", path: "$T/wsabc/x", escape: true},
	{name: "sibling prefix relative", path: "../wsabc/x", escape: true},
	{name: "sibling prefix link", fs: []string{"ws/sp => ../wsabc/x"}, path: "sp", escape: true, linkFinal: true},
	{name: "tilde ssh keys", path: "~/.ssh/authorized_keys", escape: true},
	{name: "tilde alone", path: "~", escape: true},
	{name: "tilde user stays literal", path: "~user/f", fs: []string{"ws/~user/f"}, target: "ws/~user/f"},
	{name: "tilde in the middle stays literal", path: "a/~/b", fs: []string{"ws/a/~/b"}, target: "ws/a/~/b"},
	{name: "link to authorized_keys", fs: []string{"ws/keys => $T/home/.ssh/authorized_keys"}, path: "keys", escape: true, linkFinal: true},
	{name: "dangling link outside", fs: []string{"ws/dang => $T/out/created"}, path: "dang", escape: true, linkFinal: true},
	{name: "dangling link inside", fs: []string{"ws/dangin => made"}, path: "dangin", target: "ws/made", linkFinal: true},
	{name: "link to root slash", fs: []string{"ws/root => /"}, path: "root/etc/passwd", escape: true},
	{name: "link up and back in", fs: []string{"ws/f", "ws/up => .."}, path: "up/ws/f", target: "ws/f"},
	{name: "link up and out", fs: []string{"ws/up => .."}, path: "up/out/secret", escape: true},
	{name: "link to sibling root via dotdot", fs: []string{"ws2/g", "ws/dd => ../ws2"}, path: "dd/g", target: "ws2/g"},
	{name: "file as directory", fs: []string{"ws/f"}, path: "f/x", err: syscall.ENOTDIR},
	{name: "NUL byte", path: "f\x00../../out/secret", err: host.ErrInvalidPath},
	{name: "empty path", path: "", err: host.ErrInvalidPath},
	{name: "over-long path", path: strings.Repeat("a/", 2100) + "f", err: host.ErrInvalidPath},
	{name: "invalid UTF-8 name", fs: []string{"ws/bad\xff\xfe"}, path: "bad\xff\xfe", target: "ws/bad\xff\xfe"},
	{name: "cwd inside", fs: []string{"ws/a/b/f"}, cwd: "a", path: "b/f", target: "ws/a/b/f"},
	{name: "cwd through link", fs: []string{"ws/f", "ws/a/", "ws/ld => a"}, cwd: "ld", path: "../f", target: "ws/f"},
	{name: "cwd in second root", fs: []string{"ws2/g"}, cwd: "$T/ws2", path: "g", target: "ws2/g"},
	{name: "cwd outside", cwd: "$T/out", path: "secret", escape: true},
	{name: "cwd dotdot", cwd: "..", path: "ws/f", escape: true},
	{name: "cwd link outside", fs: []string{"ws/lod => ../out"}, cwd: "lod", path: "secret", escape: true},
}

// buildTree makes the case's filesystem and returns the temp dir.
func buildTree(t *testing.T, entries []string) string {
	t.Helper()
	dir := t.TempDir()
	base := []string{"ws/", "ws2/", "wsabc/x", "out/secret", "home/.ssh/authorized_keys"}
	for _, e := range append(base, entries...) {
		e = strings.ReplaceAll(e, "$T", dir)
		if name, target, ok := strings.Cut(e, " => "); ok {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		p := filepath.Join(dir, e)
		if strings.HasSuffix(e, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(e), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// snapshot hashes everything under the non-root parts of the tree, so a
// test can prove nothing outside the jail changed.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	for _, top := range []string{"out", "wsabc", "home"} {
		filepath.WalkDir(filepath.Join(dir, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				lines = append(lines, p+" ERR "+err.Error())
				return nil
			}
			fi, _ := os.Lstat(p)
			line := fmt.Sprintf("%s %v %d", p, fi.Mode(), fi.Size())
			if fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				line += fmt.Sprintf(" %x", sha256.Sum256(b))
			}
			lines = append(lines, line)
			return nil
		})
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func newCaseHost(t *testing.T, dir string) *host.Host {
	t.Helper()
	h, err := host.New(host.Config{
		WorkspaceRoot: filepath.Join(dir, "ws"),
		ExtraRoots:    []string{filepath.Join(dir, "ws2")},
		Home:          filepath.Join(dir, "home"),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

type escapeOp struct {
	name string
	run  func(h *host.Host, cwd, path string) (string, error) // returns what it touched or read
	// check judges the result of a case that did not escape or fail.
	check func(t *testing.T, dir string, c escapeCase, got string, err error)
}

func expandT(s, dir string) string { return strings.ReplaceAll(s, "$T", dir) }

func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

var escapeOps = []escapeOp{
	{
		name: "ResolveInJail",
		run: func(h *host.Host, cwd, path string) (string, error) {
			return h.ResolveInJail(context.Background(), cwd, path)
		},
		check: func(t *testing.T, dir string, c escapeCase, got string, err error) {
			if want := filepath.Join(dir, c.target); err != nil || got != want {
				t.Errorf("got %q, %v; want %q", got, err, want)
			}
		},
	},
	{
		name: "ReadFile",
		run: func(h *host.Host, cwd, path string) (string, error) {
			r, err := h.ReadFile(context.Background(), cwd, path)
			return r.Contents, err
		},
		check: func(t *testing.T, dir string, c escapeCase, got string, err error) {
			want := filepath.Join(dir, c.target)
			switch {
			case !c.existed:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("missing target: got %q, %v; want fs.ErrNotExist", got, err)
				}
			case c.wasDir:
				if !errors.Is(err, host.ErrNotRegular) {
					t.Errorf("directory: got %v; want ErrNotRegular", err)
				}
			default:
				b, _ := os.ReadFile(want)
				if err != nil || got != strings.ToValidUTF8(string(b), "\uFFFD\uFFFD") && got != string(b) {
					t.Errorf("got %q, %v; want %q", got, err, b)
				}
			}
		},
	},
	{
		name: "Stat",
		run: func(h *host.Host, cwd, path string) (string, error) {
			st, err := h.Stat(context.Background(), cwd, path)
			return st.Path, err
		},
		check: func(t *testing.T, dir string, c escapeCase, got string, err error) {
			want := filepath.Join(dir, c.target)
			if !c.existed {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("missing target: got %q, %v; want fs.ErrNotExist", got, err)
				}
				return
			}
			if err != nil || got != want {
				t.Errorf("got %q, %v; want %q", got, err, want)
			}
		},
	},
	{
		name: "WriteFile",
		run: func(h *host.Host, cwd, path string) (string, error) {
			st, err := h.WriteFile(context.Background(), cwd, path, []byte("NEW"))
			return st.Path, err
		},
		check: func(t *testing.T, dir string, c escapeCase, got string, err error) {
			want := filepath.Join(dir, c.target)
			if c.wasDir {
				if !errors.Is(err, host.ErrNotRegular) {
					t.Errorf("directory: got %v; want ErrNotRegular", err)
				}
				return
			}
			if err != nil || got != want {
				t.Fatalf("got %q, %v; want %q", got, err, want)
			}
			if b, _ := os.ReadFile(want); string(b) != "NEW" {
				t.Errorf("target holds %q, want NEW", b)
			}
			if c.linkFinal && !isLink(filepath.Join(expandT(cwdOf(c), dir), expandT(c.path, dir))) {
				t.Errorf("the link was replaced; it must stay a link")
			}
		},
	},
	{
		name: "UpdateFile",
		run: func(h *host.Host, cwd, path string) (string, error) {
			st, err := h.UpdateFile(context.Background(), cwd, path, func(host.FileRead) ([]byte, error) {
				return []byte("NEW"), nil
			})
			return st.Path, err
		},
		check: func(t *testing.T, dir string, c escapeCase, got string, err error) {
			want := filepath.Join(dir, c.target)
			switch {
			case !c.existed:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("missing target: got %v; want fs.ErrNotExist", err)
				}
			case c.wasDir:
				if !errors.Is(err, host.ErrNotRegular) {
					t.Errorf("directory: got %v; want ErrNotRegular", err)
				}
			default:
				if err != nil || got != want {
					t.Fatalf("got %q, %v; want %q", got, err, want)
				}
				if b, _ := os.ReadFile(want); string(b) != "NEW" {
					t.Errorf("target holds %q, want NEW", b)
				}
			}
		},
	},
	{
		// Rename from the case's path: a final link is moved as the link.
		name: "RenameFrom",
		run: func(h *host.Host, cwd, path string) (string, error) {
			_, to, err := h.Rename(context.Background(), cwd, path, filepath.Join(h.WorkspaceRoot(), "moved-here"))
			return to, err
		},
		check: func(t *testing.T, dir string, c escapeCase, got string, err error) {
			if !c.existed {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("missing source: got %v; want fs.ErrNotExist", err)
				}
				return
			}
			if err == nil && got != filepath.Join(dir, "ws", "moved-here") {
				t.Errorf("moved to %q", got)
			}
		},
	},
	{
		// Rename onto the case's path: never replaces, never lands outside.
		name: "RenameTo",
		run: func(h *host.Host, cwd, path string) (string, error) {
			_, to, err := h.Rename(context.Background(), cwd, filepath.Join(h.WorkspaceRoot(), "mvsrc"), path)
			return to, err
		},
		check: func(t *testing.T, dir string, c escapeCase, got string, err error) {
			if c.existed {
				if !errors.Is(err, fs.ErrExist) {
					t.Errorf("existing destination: got %v; want fs.ErrExist", err)
				}
				return
			}
			if want := filepath.Join(dir, c.target); err != nil || got != want {
				t.Errorf("got %q, %v; want %q", got, err, want)
			}
		},
	},
	{
		name: "CreateDir",
		run: func(h *host.Host, cwd, path string) (string, error) {
			return "", h.CreateDir(context.Background(), cwd, path, false, false)
		},
		check: func(t *testing.T, dir string, c escapeCase, got string, err error) {
			want := filepath.Join(dir, c.target)
			if c.linkFinal {
				if !errors.Is(err, fs.ErrExist) {
					t.Errorf("on a link: got %v; want fs.ErrExist", err)
				}
				return
			}
			if c.existed {
				if !errors.Is(err, fs.ErrExist) {
					t.Errorf("existing: got %v; want fs.ErrExist", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v", err)
			}
			if fi, serr := os.Stat(want); serr != nil || !fi.IsDir() {
				t.Errorf("no directory at %s", want)
			}
		},
	},
	{
		name: "RemoveFile",
		run: func(h *host.Host, cwd, path string) (string, error) {
			return "", h.RemoveFile(context.Background(), cwd, path)
		},
		check: func(t *testing.T, dir string, c escapeCase, got string, err error) {
			want := filepath.Join(dir, c.target)
			if c.linkFinal {
				return // judged in the table loop: the link goes, the target stays
			}
			switch {
			case !c.existed:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("missing: got %v; want fs.ErrNotExist", err)
				}
			case c.wasDir:
				if err == nil {
					t.Errorf("removed a directory")
				}
			default:
				if err != nil {
					t.Fatalf("got %v", err)
				}
				if _, serr := os.Lstat(want); serr == nil {
					t.Errorf("%s still exists", want)
				}
			}
		},
	},
}

func cwdOf(c escapeCase) string {
	if c.cwd == "" {
		return "$T/ws"
	}
	if filepath.IsAbs(c.cwd) || strings.HasPrefix(c.cwd, "$T") {
		return c.cwd
	}
	return "$T/ws/" + c.cwd
}

func TestEscapeTable(t *testing.T) {
	for _, op := range escapeOps {
		for _, c := range escapeCases {
			t.Run(op.name+"/"+c.name, func(t *testing.T) {
				dir := buildTree(t, c.fs)
				h := newCaseHost(t, dir)
				before := snapshot(t, dir)
				cwd := expandT(c.cwd, dir)
				path := expandT(c.path, dir)
				linkPath := filepath.Join(expandT(cwdOf(c), dir), path)
				var linkTarget string
				if c.linkFinal {
					linkTarget, _ = os.Readlink(linkPath)
				}
				if c.target != "" {
					fi, serr := os.Stat(filepath.Join(dir, c.target))
					c.existed, c.wasDir = serr == nil, serr == nil && fi.IsDir()
				}
				os.WriteFile(filepath.Join(dir, "ws", "mvsrc"), []byte("mv"), 0o644)
				got, err := op.run(h, cwd, path)
				if after := snapshot(t, dir); after != before {
					t.Fatalf("%s changed something outside the jail:\nbefore:\n%s\nafter:\n%s", op.name, before, after)
				}
				if strings.Contains(got, "out/secret") || strings.Contains(got, "authorized_keys") && !c.linkFinal {
					t.Fatalf("%s returned outside content or path: %q", op.name, got)
				}
				// Operations that do not follow a final link act on the link.
				if c.linkFinal && (op.name == "RemoveFile" || op.name == "CreateDir" || op.name == "RenameFrom" || op.name == "RenameTo") {
					if op.name == "RemoveFile" || op.name == "RenameFrom" {
						if err != nil {
							t.Fatalf("removing the link: %v", err)
						}
						if _, serr := os.Lstat(linkPath); serr == nil {
							t.Fatalf("link %s still there", linkPath)
						}
						_ = linkTarget
						return
					}
					if !errors.Is(err, fs.ErrExist) {
						t.Fatalf("%s onto a link: got %v, want fs.ErrExist", op.name, err)
					}
					return
				}
				switch {
				case c.escape:
					if !errors.Is(err, host.ErrEscape) {
						t.Fatalf("got %q, %v; want ErrEscape", got, err)
					}
				case c.err != nil:
					if !errors.Is(err, c.err) {
						t.Fatalf("got %q, %v; want %v", got, err, c.err)
					}
				default:
					op.check(t, dir, c, got, err)
				}
			})
		}
	}
}
