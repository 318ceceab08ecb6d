package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestProtectKeepsBoundedMemory (issue 21): a repository that arrives
// with hundreds of large (sparse) files in .git/hooks costs the snapshot
// at most maxKeptBytes of contents, not their total size; a change to one
// kept by stamp only still undoes it (the file is removed).
func TestProtectKeepsBoundedMemory(t *testing.T) {
	ws := t.TempDir()
	hooks := filepath.Join(ws, ".git", "hooks")
	must(t, os.MkdirAll(hooks, 0o755))
	must(t, os.MkdirAll(filepath.Join(ws, ".git", "objects"), 0o755))
	must(t, os.MkdirAll(filepath.Join(ws, ".git", "refs"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\tbare = false\n"), 0o644))
	const n, size = 200, maxProtectedBytes
	for i := 0; i < n; i++ {
		f, err := os.Create(filepath.Join(hooks, fmt.Sprintf("big-%03d", i)))
		must(t, err)
		must(t, f.Truncate(size))
		must(t, f.Close())
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	p, err := snapshotProtected(context.Background(), &Sandbox{Roots: []string{ws}}, 0)
	must(t, err)
	defer p.release()
	runtime.ReadMemStats(&after)
	took := time.Since(start)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*maxKeptBytes {
		t.Errorf("the snapshot of %d files of %d bytes allocated %d MiB (bound %d MiB)", n, size, alloc>>20, 3*maxKeptBytes>>20)
	}
	if took > 20*time.Second {
		t.Errorf("the snapshot took %v", took)
	}
	if len(p.entries) < n {
		t.Fatalf("the snapshot lists %d paths, want at least %d", len(p.entries), n)
	}
	// One file past the budget, kept by stamp, and one kept whole, both
	// changed: the first goes, the second is written back; the others,
	// unchanged, are left alone.
	var stamped, whole string
	for k, e := range p.entries {
		_, rel := splitKey(k)
		if !strings.HasPrefix(filepath.Base(rel), "big-") {
			continue
		}
		if e.big && stamped == "" {
			stamped = filepath.Join(ws, rel)
		} else if !e.big && e.data != nil && whole == "" {
			whole = filepath.Join(ws, rel)
		}
	}
	if stamped == "" || whole == "" {
		t.Fatalf("want a file kept by stamp and one kept whole, got %q and %q", stamped, whole)
	}
	for _, f := range []string{stamped, whole} {
		must(t, os.WriteFile(f, []byte("#!/bin/sh\ntouch PWNED\n"), 0o755))
	}
	changed, failed := p.restoreAll()
	if len(failed) != 0 {
		t.Fatalf("restore failed: %v", failed)
	}
	if _, err := os.Lstat(stamped); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a changed file kept by stamp is still there (%v)", err)
	}
	if st, err := os.Stat(whole); err != nil || st.Size() != size {
		t.Errorf("a changed file kept whole was not written back: %v %v", st, err)
	}
	if len(changed) != 2 {
		t.Errorf("the restore changed %d paths, want the 2 changed files: %v", len(changed), changed)
	}
}

// TestRestoreOnFullDisk (issue 21): a command that plants a git config
// key and then fills the disk leaves no plant. The old contents cannot
// be written back; the config is emptied instead (git reads an empty one
// as defaults) and the run fails with ErrUnsafeWorkspace naming it.
func TestRestoreOnFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: mounting a small tmpfs needs root")
	}
	requireSandbox(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, "unshare", "--mount", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs -o size=4m none "$0" && exec "$@"`, dir,
		os.Args[0], "-test.run", "^TestRestoreOnFullDiskInner$", "-test.v", "-test.count", "1")
	cmd.Env = append(os.Environ(), "AGENTHOST_TEST_FULLDISK="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "mount:") {
		t.Skipf("skipped: cannot mount a tmpfs here: %s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestRestoreOnFullDiskInner") {
		t.Fatalf("on a full disk: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func TestRestoreOnFullDiskInner(t *testing.T) {
	dir := os.Getenv("AGENTHOST_TEST_FULLDISK")
	if dir == "" {
		t.Skip("run by TestRestoreOnFullDisk")
	}
	ws := filepath.Join(dir, "ws")
	must(t, os.Mkdir(ws, 0o755))
	home := t.TempDir()
	env := []string{"HOME=" + home, "GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM=1"}
	git := func(args ...string) {
		t.Helper()
		c := osexec.Command("git", args...)
		c.Dir, c.Env = ws, append(os.Environ(), env...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("config", "user.name", "Original Name")
	r := testRunner()
	defer r.Close()
	out, err := r.Exec(context.Background(), Request{Cwd: ws, Env: env,
		Command: `git config core.fsmonitor 'touch PWNED' && git config core.pager 'sh -c "touch PWNED2"' && cat /dev/zero > fill 2>/dev/null; df -k . | tail -1`,
		Sandbox: &Sandbox{Roots: []string{ws}, Home: home, BestEffort: true}})
	t.Logf("stdout %q stderr %q err %v", out.Stdout, out.Stderr, err)
	b, rerr := os.ReadFile(filepath.Join(ws, ".git", "config"))
	if strings.Contains(string(b), "fsmonitor") || strings.Contains(string(b), "PWNED") {
		t.Fatalf("the plant survived a full disk: .git/config is\n%s", b)
	}
	if rerr == nil && strings.Contains(string(b), "Original Name") {
		return // there was room after all: restored whole
	}
	if !errors.Is(err, ErrUnsafeWorkspace) || !strings.Contains(err.Error(), ".git/config") {
		t.Errorf("err = %v, want ErrUnsafeWorkspace naming .git/config", err)
	}
}
