// Package escapetable is the escape table shared by the path-jail tests:
// each case is a tiny filesystem, a working directory and a path, and every
// path-taking operation (the Host's methods in host, the MCP tools and
// resource requests in mcpserver) is run against every case. One table,
// every operation. The shape follows rootTestCases in
// $GOROOT/src/os/root_test.go, widened to several roots.
//
// It is test support only: a normal package so that tests in several
// packages can share it, imported by _test.go files and nothing else.
package escapetable

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/agenthost/agenthost/host/jail"
)

// Case is one row of the table.
//
// Every tree has:
//
//	ws/          the workspace root
//	ws2/         a second root
//	wsabc/       a sibling that shares the workspace root's prefix (not a root)
//	out/         outside every root
//	home/        $HOME for ~ expansion (outside every root)
//
// FS entries are "dir/", "file" or "link => target" ($T expands to the
// temp dir); see Build for the files' contents.
type Case struct {
	Name string
	FS   []string
	// Cwd is the working directory, relative to ws unless absolute after
	// $T expansion. The host resolves Path against it; over MCP a case
	// with a Cwd is about exec's working directory and Path is not used.
	Cwd  string
	Path string
	// Exactly one of these:
	Target string // the file or directory the path names, relative to $T
	Escape bool   // the path (or the Cwd) leaves every root
	Err    error  // another error every operation returns

	LinkFinal bool // the path's last component is a link inside the jail
}

// Cases is the table.
var Cases = []Case{
	{Name: "plain file", FS: []string{"ws/f"}, Path: "f", Target: "ws/f"},
	{Name: "nested file", FS: []string{"ws/a/b/f"}, Path: "a/b/f", Target: "ws/a/b/f"},
	{Name: "dot", Path: ".", Target: "ws"},
	{Name: "dir then dotdot", FS: []string{"ws/a/"}, Path: "a/..", Target: "ws"},
	{Name: "trailing slash dir", FS: []string{"ws/a/"}, Path: "a/", Target: "ws/a"},
	{Name: "new file", Path: "new", Target: "ws/new"},
	{Name: "dotdot", Path: "..", Escape: true},
	{Name: "dotdot outside file", Path: "../out/secret", Escape: true},
	{Name: "deep dotdot outside", FS: []string{"ws/a/b/"}, Path: "a/b/../../../out/secret", Escape: true},
	{Name: "dotdot new file outside", Path: "../out/new", Escape: true},
	{Name: "absolute inside", FS: []string{"ws/f"}, Path: "$T/ws/f", Target: "ws/f"},
	// Spellings: every result is canonical (no "//", ".", trailing "/").
	{Name: "double slash absolute", FS: []string{"ws/f"}, Path: "$T/ws//f", Target: "ws/f"},
	{Name: "double slash relative", FS: []string{"ws/a/f"}, Path: "a//f", Target: "ws/a/f"},
	{Name: "dot in the middle", FS: []string{"ws/a/f"}, Path: "a/./f", Target: "ws/a/f"},
	{Name: "double slash dir", FS: []string{"ws/a/"}, Path: "$T/ws//a//", Target: "ws/a"},
	{Name: "double slash new file", FS: []string{"ws/a/"}, Path: "a//new", Target: "ws/a/new"},
	{Name: "double slash second root", FS: []string{"ws2/g"}, Path: "$T/ws2//g", Target: "ws2/g"},
	{Name: "absolute outside", Path: "$T/out/secret", Escape: true},
	{Name: "absolute etc passwd", Path: "/etc/passwd", Escape: true},
	{Name: "absolute slash", Path: "/", Escape: true},
	{Name: "link to file inside", FS: []string{"ws/f", "ws/lf => f"}, Path: "lf", Target: "ws/f", LinkFinal: true},
	{Name: "relative link out", FS: []string{"ws/lo => ../out/secret"}, Path: "lo", Escape: true, LinkFinal: true},
	{Name: "absolute link out", FS: []string{"ws/la => $T/out/secret"}, Path: "la", Escape: true, LinkFinal: true},
	{Name: "link to dir inside", FS: []string{"ws/a/b/f", "ws/ld => a"}, Path: "ld/b/f", Target: "ws/a/b/f"},
	{Name: "link to dir outside", FS: []string{"ws/lod => ../out"}, Path: "lod/secret", Escape: true},
	{Name: "link to dir outside itself", FS: []string{"ws/lod => ../out"}, Path: "lod", Escape: true, LinkFinal: true},
	{Name: "link to dir outside new file", FS: []string{"ws/lod => ../out"}, Path: "lod/new", Escape: true},
	{Name: "dotdot after link", FS: []string{"ws/a/b/", "ws/a/f2", "ws/lb => a/b"}, Path: "lb/../f2", Target: "ws/a/f2"},
	{Name: "dotdot after link as dir", FS: []string{"ws/a/b/", "ws/lb => a/b"}, Path: "lb/..", Target: "ws/a"},
	{Name: "link loop", FS: []string{"ws/l1 => l2", "ws/l2 => l1"}, Path: "l1", Err: syscall.ELOOP, LinkFinal: true},
	{Name: "self loop in the middle", FS: []string{"ws/self => self"}, Path: "self/x", Err: syscall.ELOOP},
	{Name: "chain then out", FS: []string{"ws/c1 => c2", "ws/c2 => ../out/secret"}, Path: "c1", Escape: true, LinkFinal: true},
	{Name: "link into second root", FS: []string{"ws2/g", "ws/to2 => $T/ws2"}, Path: "to2/g", Target: "ws2/g"},
	{Name: "relative link into second root", FS: []string{"ws2/g", "ws/rel2 => ../ws2/g"}, Path: "rel2", Target: "ws2/g", LinkFinal: true},
	{Name: "dotdot into sibling root", FS: []string{"ws2/g"}, Path: "../ws2/g", Target: "ws2/g"},
	{Name: "absolute under second root", FS: []string{"ws2/g"}, Path: "$T/ws2/g", Target: "ws2/g"},
	{Name: "second root link back out", FS: []string{"ws2/back => ../out/secret"}, Path: "$T/ws2/back", Escape: true, LinkFinal: true},
	{Name: "sibling prefix absolute", Path: "$T/wsabc/x", Escape: true},
	{Name: "sibling prefix relative", Path: "../wsabc/x", Escape: true},
	{Name: "sibling prefix link", FS: []string{"ws/sp => ../wsabc/x"}, Path: "sp", Escape: true, LinkFinal: true},
	{Name: "tilde ssh keys", Path: "~/.ssh/authorized_keys", Escape: true},
	{Name: "tilde alone", Path: "~", Escape: true},
	{Name: "tilde user stays literal", Path: "~user/f", FS: []string{"ws/~user/f"}, Target: "ws/~user/f"},
	{Name: "tilde in the middle stays literal", Path: "a/~/b", FS: []string{"ws/a/~/b"}, Target: "ws/a/~/b"},
	{Name: "link to authorized_keys", FS: []string{"ws/keys => $T/home/.ssh/authorized_keys"}, Path: "keys", Escape: true, LinkFinal: true},
	{Name: "dangling link outside", FS: []string{"ws/dang => $T/out/created"}, Path: "dang", Escape: true, LinkFinal: true},
	{Name: "dangling link inside", FS: []string{"ws/dangin => made"}, Path: "dangin", Target: "ws/made", LinkFinal: true},
	{Name: "link to root slash", FS: []string{"ws/root => /"}, Path: "root/etc/passwd", Escape: true},
	{Name: "link up and back in", FS: []string{"ws/f", "ws/up => .."}, Path: "up/ws/f", Target: "ws/f"},
	{Name: "link up and out", FS: []string{"ws/up => .."}, Path: "up/out/secret", Escape: true},
	{Name: "link up and list out", FS: []string{"ws/up => .."}, Path: "up/out", Escape: true},
	{Name: "link to sibling root via dotdot", FS: []string{"ws2/g", "ws/dd => ../ws2"}, Path: "dd/g", Target: "ws2/g"},
	{Name: "file as directory", FS: []string{"ws/f"}, Path: "f/x", Err: syscall.ENOTDIR},
	{Name: "NUL byte", Path: "f\x00../../out/secret", Err: jail.ErrInvalidPath},
	{Name: "empty path", Path: "", Err: jail.ErrInvalidPath},
	{Name: "over-long path", Path: strings.Repeat("a/", 2100) + "f", Err: jail.ErrInvalidPath},
	// Over MCP, JSON strings are UTF-8: the name reaches the server with
	// U+FFFD in place of the bad bytes, which names nothing; still no escape.
	{Name: "invalid UTF-8 name", FS: []string{"ws/bad\xff\xfe"}, Path: "bad\xff\xfe", Target: "ws/bad\xff\xfe"},
	{Name: "cwd inside", FS: []string{"ws/a/b/f"}, Cwd: "a", Path: "b/f", Target: "ws/a/b/f"},
	{Name: "cwd through link", FS: []string{"ws/f", "ws/a/", "ws/ld => a"}, Cwd: "ld", Path: "../f", Target: "ws/f"},
	{Name: "cwd in second root", FS: []string{"ws2/g"}, Cwd: "$T/ws2", Path: "g", Target: "ws2/g"},
	{Name: "cwd outside", Cwd: "$T/out", Path: "secret", Escape: true},
	{Name: "cwd dotdot", Cwd: "..", Path: "ws/f", Escape: true},
	{Name: "cwd link outside", FS: []string{"ws/lod => ../out"}, Cwd: "lod", Path: "secret", Escape: true},
	{Name: "cwd tilde", Cwd: "~", Path: "f", Escape: true},
}

// Build makes a new temp dir (symbolic links in its name resolved), builds
// the tree of entries in it with Reset and returns it.
func Build(t testing.TB, entries []string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	Reset(t, dir, entries)
	return dir
}

// Reset empties ws/ and ws2/ under dir (keeping the directories
// themselves: a server may hold them open as roots), removes the rest and
// builds the base tree plus entries: "dir/", "file" or "link => target"
// ($T expands to dir).
//
// A file inside the roots holds "S:" and its entry ("S:ws/f"); outside the
// roots it holds "SECRET-CONTENT " and its entry ("SECRET-CONTENT
// out/secret"), and each outside directory holds a LISTME file that no case
// names, so a leak of contents, of an outside path or of a listing shows in
// an operation's output.
func Reset(t testing.TB, dir string, entries []string) {
	t.Helper()
	for _, top := range []string{"ws", "ws2", "wsabc", "out", "home"} {
		p := filepath.Join(dir, top)
		if top == "ws" || top == "ws2" {
			ents, _ := os.ReadDir(p)
			for _, e := range ents {
				if err := os.RemoveAll(filepath.Join(p, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"ws/", "ws2/", "wsabc/x", "wsabc/LISTME", "out/secret", "out/LISTME", "home/.ssh/authorized_keys", "home/LISTME"}
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
		contents := "S:" + e
		if !strings.HasPrefix(e, "ws/") && !strings.HasPrefix(e, "ws2/") {
			contents = "SECRET-CONTENT " + e
		}
		if err := os.WriteFile(p, []byte(contents), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Snapshot describes everything outside the roots (out/, wsabc/, home/):
// names, modes, sizes and content hashes, so a test can prove nothing
// outside the jail changed.
func Snapshot(t testing.TB, dir string) string {
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
