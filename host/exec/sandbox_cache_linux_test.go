package exec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxCacheDirLasts: with Sandbox.CacheDir, what a sandboxed
// command leaves in XDG_CACHE_HOME (GOCACHE's default) is there for a
// command of another Runner (another agent-host process) on the same
// cache directory, which the sandbox lets it write and nothing around it;
// without it, a new Runner's commands start from an empty cache.
func TestSandboxCacheDirLasts(t *testing.T) {
	f := newSBFixture(t)
	cache := filepath.Join(f.base, "caches", "ws1")
	withCache := func() *Sandbox { sb := f.sandbox(); sb.CacheDir = cache; return sb }
	run := func(r *Runner, sb *Sandbox, command string) Output {
		t.Helper()
		req := f.request(command, sb)
		out, err := r.Exec(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	r1 := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace})
	out := run(r1, withCache(), `mkdir -p "$XDG_CACHE_HOME" && echo warm > "$XDG_CACHE_HOME/m" && echo "$XDG_CACHE_HOME"`)
	r1.Close()
	if out.ExitCode != 0 || strings.TrimSpace(out.Stdout) != filepath.Join(cache, "xdg") {
		t.Fatalf("first run: %+v", out)
	}
	if fi, err := os.Stat(cache); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache directory: %v %v", fi, err)
	}
	r2 := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace})
	defer r2.Close()
	if out := run(r2, withCache(), `cat "$XDG_CACHE_HOME/m"`); strings.TrimSpace(out.Stdout) != "warm" {
		t.Errorf("another Runner on the same cache: %+v", out)
	}
	if out := run(r2, withCache(), `touch "$XDG_CACHE_HOME/../../beside" 2>/dev/null && echo wrote`); strings.Contains(out.Stdout, "wrote") {
		t.Errorf("the sandbox let a command write beside its cache directory")
	}
	if _, err := os.Lstat(filepath.Join(f.base, "caches", "beside")); err == nil {
		t.Errorf("a file was made beside the cache directory")
	}
	r3 := NewRunner(Limits{KillGrace: testKillGrace, DrainGrace: testDrainGrace})
	defer r3.Close()
	if out := run(r3, f.sandbox(), `cat "$XDG_CACHE_HOME/m" 2>/dev/null || echo cold`); strings.TrimSpace(out.Stdout) != "cold" {
		t.Errorf("without CacheDir a new Runner found a cache: %+v", out)
	}
}
