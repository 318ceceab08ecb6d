package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxGitInitBareKeepsConfig: a bare repository made by a
// sandboxed `git init --bare` (under a name without ".git") keeps the
// config git wrote, which holds only harmless keys, and git outside takes
// it as a repository afterwards; a planted key in it is still undone.
func TestSandboxGitInitBareKeepsConfig(t *testing.T) {
	f := newSBFixture(t)
	out := f.run(t, "git init -q --bare store && git -C store config core.bare")
	if out.ExitCode != 0 || strings.TrimSpace(out.Stdout) != "true" {
		t.Fatalf("git init --bare in the sandbox: %+v", out)
	}
	cfg := filepath.Join(f.ws, "store", "config")
	if _, err := os.Stat(cfg); err != nil {
		t.Fatalf("the new bare repository lost its config: %v (restored: %q)", err, out.Sandbox.Restored)
	}
	if got := strings.TrimSpace(f.git(t, filepath.Join(f.ws, "store"), "rev-parse", "--is-bare-repository")); got != "true" {
		t.Errorf("git outside: is-bare-repository = %q, want true", got)
	}
	out = f.run(t, "git init -q --bare store2 && git -C store2 config core.fsmonitor 'touch \"$MARK\"'", "MARK="+f.mark())
	if out.ExitCode != 0 {
		t.Fatalf("%+v", out)
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "store2", "config")); err == nil && strings.Contains(string(b), "fsmonitor") {
		t.Errorf("a bare repository's planted fsmonitor stayed:\n%s", b)
	}
}
