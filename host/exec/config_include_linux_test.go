package exec

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestProtectConfigIncludesBounded: a repository config and a global one
// that each include themselves eight times (git refuses both: "exceeded
// maximum include depth") are read once each by the protected-set scan
// and the view's gitconfig, within a time and memory bound, and what the
// files name past the includes is still seen: the hooks directories of
// the config and of a file it includes are protected, and the alias of
// the global config reaches the view. Before, each was read 8^5 times
// (32 KiB of buffer each: a gigabyte allocated), and a hooksPath past
// the fifth level of includes was not protected.
func TestProtectConfigIncludesBounded(t *testing.T) {
	base := t.TempDir()
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	write := func(p, s string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(s), 0o644))
	}
	self := func(name string) string { return "[include]\n" + strings.Repeat("\tpath = "+name+"\n", 8) }
	write(filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(filepath.Join(ws, ".git", "config"), "[core]\n\tbare = false\n"+self("config")+"[include]\n\tpath = inc\n[core]\n\thooksPath = hk\n")
	write(filepath.Join(ws, ".git", "inc"), self("inc")+"[core]\n\thooksPath = hk2\n")
	write(filepath.Join(ws, "hk", "pre-commit"), "#!/bin/sh\n")
	write(filepath.Join(ws, "hk2", "pre-commit"), "#!/bin/sh\n")
	write(filepath.Join(home, ".gitconfig"), self("~/.gitconfig")+"[alias]\n\tst = status\n")
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	t0 := time.Now()
	p, err := snapshotProtected(context.Background(), &Sandbox{Roots: []string{ws}, Home: home}, 0)
	must(t, err)
	p.release()
	view := viewGitConfig(home)
	took := time.Since(t0)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; took > 3*time.Second || alloc > 64<<20 {
		t.Errorf("the scan and the view took %v and allocated %d MiB (bound 3 s, 64 MiB)", took, alloc>>20)
	}
	for _, rel := range []string{".git/config", ".git/inc", "hk", "hk/pre-commit", "hk2", "hk2/pre-commit"} {
		if _, ok := p.entries[protKey(0, rel)]; !ok {
			t.Errorf("%s is not protected", rel)
		}
	}
	if !strings.Contains(view, "st = \"status\"") {
		t.Errorf("the view's gitconfig lacks the alias: %q", view)
	}
}
