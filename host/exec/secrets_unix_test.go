//go:build linux || darwin

package exec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fillDir puts n empty files in dir.
func fillDir(t *testing.T, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckReadBudgetPerDirectory: each denied directory is searched for a
// hard link with a budget of its own, a denied file is found by its stat
// whatever the directories hold, and a search that reaches its bound
// answers ErrSecretUnchecked, naming the directory and the bound, never
// "no secret". (Before, one budget of maxSecretScan entries was shared,
// and a search past it answered false: with ~/.kube full, a hard link to
// ~/.git-credentials was no secret.)
func TestCheckReadBudgetPerDirectory(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(root, "home")
	out := filepath.Join(root, "out")
	os.MkdirAll(out, 0o755)
	fillDir(t, filepath.Join(home, ".kube", "cache"), maxSecretScan) // the bound, not past it
	creds := filepath.Join(home, ".git-credentials")
	key := filepath.Join(home, ".ssh", "id_ed25519")
	for _, p := range []string{creds, key} {
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("FAKE"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// .kube's own directory "cache" is one more entry: its search has
	// maxSecretScan+1 entries to look at, so fill to exactly the bound.
	os.Remove(filepath.Join(home, ".kube", "cache", "0"))
	link := func(target, name string) (string, os.FileInfo) {
		p := filepath.Join(out, name)
		if target == "" {
			os.WriteFile(p, []byte("plain"), 0o644)
			os.Link(p, p+".2")
		} else if err := os.Link(target, p); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return p, fi
	}
	credsLink, credsFi := link(creds, "notes.txt")
	keyLink, keyFi := link(key, "key.txt")
	plain, plainFi := link("", "plain.txt")
	single := filepath.Join(out, "single.txt")
	os.WriteFile(single, []byte("one link"), 0o644)
	singleFi, _ := os.Stat(single)
	sb := &Sandbox{Home: home}

	check := func(name, real string, fi os.FileInfo, want error, wantText string) {
		t.Helper()
		start := time.Now()
		err := sb.CheckRead(real, fi)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: CheckRead took %v", name, took)
		}
		switch {
		case want == nil && err != nil:
			t.Errorf("%s: %v, want nil", name, err)
		case want != nil && !errors.Is(err, want):
			t.Errorf("%s: %v, want %v", name, err, want)
		case wantText != "" && (err == nil || !strings.Contains(err.Error(), wantText)):
			t.Errorf("%s: %v, want it to say %q", name, err, wantText)
		}
		if (err != nil) != sb.DeniesRead(real, fi) {
			t.Errorf("%s: DeniesRead disagrees with CheckRead (%v)", name, err)
		}
	}

	t.Run("at the bound", func(t *testing.T) {
		check("a hard link to ~/.git-credentials", credsLink, credsFi, ErrSecretDenied, creds)
		check("a hard link to a key in ~/.ssh", keyLink, keyFi, ErrSecretDenied, key)
		check("a hard-linked file that is no secret", plain, plainFi, nil, "")
		check("a file with one link", single, singleFi, nil, "")
		check("a denied path", creds, credsFi, ErrSecretDenied, "")
	})
	fillDir(t, filepath.Join(home, ".kube", "more"), 1) // one past the bound
	t.Run("past the bound", func(t *testing.T) {
		check("a hard link to ~/.git-credentials", credsLink, credsFi, ErrSecretDenied, creds)
		check("a hard link to a key in ~/.ssh", keyLink, keyFi, ErrSecretDenied, key)
		check("a hard-linked file that is no secret", plain, plainFi, ErrSecretUnchecked,
			fmt.Sprintf("%s holds more than %d entries", filepath.Join(home, ".kube"), maxSecretScan))
		check("a file with one link", single, singleFi, nil, "")
	})
}
