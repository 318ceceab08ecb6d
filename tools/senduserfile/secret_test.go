//go:build linux

package senduserfile_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSecretsAreNotCopied: a file the sandbox denies commands (a key under
// the fake home's .ssh, a hard link to it elsewhere, a link to it, and
// .aws as a directory) is never copied into the outbox, where every
// sandboxed command and the jailed read_file could read it; an ordinary
// file sent in the same call still is. (The Python hook copies them all:
// this is where agent-host hook parts from it on purpose.)
func TestSecretsAreNotCopied(t *testing.T) {
	e := newEnv(t)
	key := e.file(filepath.Join(e.home, ".ssh", "id_rsa"), "FAKE-PRIVATE-KEY")
	aws := e.file(filepath.Join(e.home, ".aws", "credentials"), "FAKE-AWS")
	hard := filepath.Join(e.out, "innocent.txt")
	if err := os.Link(key, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(e.out, "report.txt")
	if err := os.Symlink(key, soft); err != nil {
		t.Fatal(err)
	}
	ok := e.file(filepath.Join(e.out, "ok.txt"), "fine")
	o := e.stage([]any{key, aws, hard, soft, ok})
	want := []any{key, aws, hard, soft, e.copyPath(ok)}
	if got := o.files(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	filepath.WalkDir(e.cwd, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.HasPrefix(string(b), "FAKE-") {
				t.Errorf("a secret was copied into the workspace: %s", p)
			}
		}
		return nil
	})
}

// TestSecretsBehindLinks: a denied path that is a link (~/.ssh pointing at
// a vault outside the home), or lies beneath one (~/.config a link, so
// ~/.config/gh is elsewhere), denies the files where the link leads; a
// denied path that is missing denies nothing, and a file beside the vault
// is still copied.
func TestSecretsBehindLinks(t *testing.T) {
	e := newEnv(t)
	vault := filepath.Join(e.root, "vault")
	key := e.file(filepath.Join(vault, "ssh", "id_ed25519"), "FAKE-KEY")
	gh := e.file(filepath.Join(vault, "config", "gh", "hosts.yml"), "FAKE-GH")
	ok := e.file(filepath.Join(vault, "config", "notes.txt"), "fine")
	for link, target := range map[string]string{".ssh": filepath.Join(vault, "ssh"), ".config": filepath.Join(vault, "config")} {
		if err := os.Symlink(target, filepath.Join(e.home, link)); err != nil {
			t.Fatal(err)
		}
	}
	o := e.stage([]any{key, gh, ok})
	want := []any{key, gh, e.copyPath(ok)}
	if got := o.files(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
}
