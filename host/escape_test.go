package host_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/escapetable"
)

// The escape table (internal/escapetable) run against every path-taking
// operation of the Host.

// escapeCase is a row of the shared table plus what the table loop learns
// about its target before the operation runs.
type escapeCase struct {
	escapetable.Case
	existed, wasDir bool
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
			if want := filepath.Join(dir, c.Target); err != nil || got != want {
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
			want := filepath.Join(dir, c.Target)
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
			want := filepath.Join(dir, c.Target)
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
			want := filepath.Join(dir, c.Target)
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
			if c.LinkFinal && !isLink(filepath.Join(expandT(cwdOf(c), dir), expandT(c.Path, dir))) {
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
			want := filepath.Join(dir, c.Target)
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
			if want := filepath.Join(dir, c.Target); err != nil || got != want {
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
			want := filepath.Join(dir, c.Target)
			if c.LinkFinal {
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
			want := filepath.Join(dir, c.Target)
			if c.LinkFinal {
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
	if c.Cwd == "" {
		return "$T/ws"
	}
	if filepath.IsAbs(c.Cwd) || strings.HasPrefix(c.Cwd, "$T") {
		return c.Cwd
	}
	return "$T/ws/" + c.Cwd
}

func TestEscapeTable(t *testing.T) {
	for _, op := range escapeOps {
		for _, tc := range escapetable.Cases {
			c := escapeCase{Case: tc}
			t.Run(op.name+"/"+c.Name, func(t *testing.T) {
				dir := escapetable.Build(t, c.FS)
				h := newCaseHost(t, dir)
				before := escapetable.Snapshot(t, dir)
				cwd := expandT(c.Cwd, dir)
				path := expandT(c.Path, dir)
				linkPath := filepath.Join(expandT(cwdOf(c), dir), path)
				var linkTarget string
				if c.LinkFinal {
					linkTarget, _ = os.Readlink(linkPath)
				}
				if c.Target != "" {
					fi, serr := os.Stat(filepath.Join(dir, c.Target))
					c.existed, c.wasDir = serr == nil, serr == nil && fi.IsDir()
				}
				os.WriteFile(filepath.Join(dir, "ws", "mvsrc"), []byte("mv"), 0o644)
				got, err := op.run(h, cwd, path)
				if after := escapetable.Snapshot(t, dir); after != before {
					t.Fatalf("%s changed something outside the jail:\nbefore:\n%s\nafter:\n%s", op.name, before, after)
				}
				if strings.Contains(got, "out/secret") || strings.Contains(got, "authorized_keys") && !c.LinkFinal {
					t.Fatalf("%s returned outside content or path: %q", op.name, got)
				}
				// Operations that do not follow a final link act on the link.
				if c.LinkFinal && (op.name == "RemoveFile" || op.name == "CreateDir" || op.name == "RenameFrom" || op.name == "RenameTo") {
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
				case c.Escape:
					if !errors.Is(err, host.ErrEscape) {
						t.Fatalf("got %q, %v; want ErrEscape", got, err)
					}
				case c.Err != nil:
					if !errors.Is(err, c.Err) {
						t.Fatalf("got %q, %v; want %v", got, err, c.Err)
					}
				default:
					op.check(t, dir, c, got, err)
				}
			})
		}
	}
}

// TestWithoutOpenat2 runs the escape table, the race tests and the jail's
// other guarantees again with openat2 switched off: the descriptor walk
// alone must keep every promise.
func TestWithoutOpenat2(t *testing.T) {
	escapetable.RerunWithoutOpenat2(t, "^(TestEscapeTable|TestRaceSwapDirWithSymlink|TestRaceAddRoot|TestDeepPathDescriptors|TestRenameRootByIdentity|TestResolveCanonical|TestCreateDirParentsDotDotAfterLink|TestHostRemoveRoot|TestNearestDir)$")
}
