package senduserfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenSourceFollowsNoLink: the source is opened by its real path and
// no link on the way is followed, so a directory swapped for a link to a
// secret after the resolution gives ELOOP, not the secret.
func TestOpenSourceFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.MkdirAll(secret, 0o755)
	os.WriteFile(filepath.Join(secret, "f"), []byte("SECRET"), 0o600)
	os.Symlink(secret, filepath.Join(dir, "swapped"))
	os.Symlink(filepath.Join(secret, "f"), filepath.Join(dir, "final"))
	for _, p := range []string{filepath.Join(dir, "swapped", "f"), filepath.Join(dir, "final")} {
		if f, err := openSource(p); !errors.Is(err, syscall.ELOOP) {
			if f != nil {
				f.Close()
			}
			t.Errorf("openSource(%s): %v, want ELOOP", p, err)
		}
	}
	f, err := openSource(filepath.Join(secret, "f"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
