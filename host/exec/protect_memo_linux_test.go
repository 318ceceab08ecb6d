package exec

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestProtectMemoSeesChanges plants protected paths in directories the
// protected-set memo knows and trusts (listed before, unchanged since,
// stamps past the racy window), so the baseline of each run replays the
// memo instead of listing: the plant must still be found and removed
// after the run. A memo that trusted a changed directory would miss it.
func TestProtectMemoSeesChanges(t *testing.T) {
	f := newSBFixture(t)
	var sfs unix.Statfs_t
	must(t, unix.Statfs(f.ws, &sfs))
	if !fineTimes(int64(sfs.Type)) {
		t.Skipf("skipped: the test directory's filesystem (type %#x) keeps no memo", sfs.Type)
	}
	for _, d := range []string{"src/pkg/leaf", "src/other", "docs/a/b"} {
		must(t, os.MkdirAll(filepath.Join(f.ws, d), 0o755))
		must(t, os.WriteFile(filepath.Join(f.ws, d, "file.txt"), []byte("x\n"), 0o644))
	}
	rows := []struct {
		name, cmd string
		known     string   // a directory the memo must trust before the run
		gone      []string // what the restore must have removed
	}{
		{"envrc in a leaf", "echo x > src/pkg/leaf/.envrc", "src/pkg/leaf", []string{"src/pkg/leaf/.envrc"}},
		{"mcp.json in a new directory", "mkdir -p src/new && echo '{}' > src/new/.mcp.json", "src", []string{"src/new/.mcp.json"}},
		{"hook of a new repository in a leaf", "mkdir -p docs/a/b/.git/hooks && " + plant("docs/a/b/.git/hooks/pre-commit"), "docs/a/b",
			[]string{"docs/a/b/.git/hooks/pre-commit"}},
		{"directory renamed in with a plant", `mkdir -p "$TMPDIR/x" && echo x > "$TMPDIR/x/.envrc" && mv "$TMPDIR/x" src/other/x`, "src/other",
			[]string{"src/other/x/.envrc"}},
		{"plant, then the directory's times set back", `echo x > docs/a/.envrc && touch -d 2001-01-01 docs/a docs`, "docs/a",
			[]string{"docs/a/.envrc"}},
		{"settings in a nested .claude", "mkdir -p src/pkg/.claude && echo '{}' > src/pkg/.claude/settings.json", "src/pkg",
			[]string{"src/pkg/.claude/settings.json"}},
	}
	sb := f.sandbox()
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			time.Sleep(120 * time.Millisecond) // the tree's stamps are past the racy window
			p, err := snapshotProtected(context.Background(), sb, 0)
			must(t, err)
			p.restore()
			p.release()
			m := memoFor(f.ws, protPatterns(sb.Protect))
			var st unix.Stat_t
			must(t, unix.Lstat(filepath.Join(f.ws, row.known), &st))
			if m == nil || !m.dirs[row.known].valid(&st) {
				t.Fatalf("the memo does not trust %s: the row would not test it", row.known)
			}
			out := f.run(t, row.cmd, "MARK="+f.mark())
			if out.ExitCode != 0 {
				t.Fatalf("the command failed: %+v", out)
			}
			for _, g := range row.gone {
				absent(t, filepath.Join(f.ws, g))
				if !slices.Contains(out.Sandbox.Restored, filepath.Join(f.ws, g)) {
					t.Errorf("Restored = %q, want %s in it", out.Sandbox.Restored, g)
				}
			}
			commitRunsNothing(t, f, filepath.Join(f.ws, "docs/a/b"))
		})
	}
}

// TestProtectMemoRacyWindow: stamps that lie less than a clock tick (or,
// without nanoseconds, less than two seconds and a margin) before the
// listing are not trusted, nor stamps after it, nor another inode. (On
// this kernel's filesystems a change right after a stat gets a
// fine-grained time, so the race itself cannot be staged.)
func TestProtectMemoRacyWindow(t *testing.T) {
	listed := time.Unix(1_000_000, 500_000_000)
	ts := func(d time.Duration) unix.Timespec { return unix.NsecToTimespec(listed.Add(d).UnixNano()) }
	for _, c := range []struct {
		name  string
		stamp unix.Timespec
		ino   uint64
		want  bool
	}{
		{"old", ts(-time.Second), 7, true},
		{"within a tick", ts(-10 * time.Millisecond), 7, false},
		{"after the listing", ts(time.Second), 7, false},
		{"whole seconds, 2 s before", unix.Timespec{Sec: listed.Unix() - 2}, 7, false},
		{"whole seconds, 10 s before", unix.Timespec{Sec: listed.Unix() - 10}, 7, true},
		{"another inode", ts(-time.Second), 8, false},
	} {
		m := &dirMemo{dev: 1, ino: 7, mtime: c.stamp, ctime: c.stamp, listed: listed}
		st := unix.Stat_t{Dev: 1, Ino: c.ino, Mode: unix.S_IFDIR | 0o755, Mtim: c.stamp, Ctim: c.stamp}
		if got := m.valid(&st); got != c.want {
			t.Errorf("%s: valid = %v, want %v", c.name, got, c.want)
		}
		st.Ino, st.Ctim.Nsec = 7, c.stamp.Nsec+1
		if c.ino == 7 && m.valid(&st) {
			t.Errorf("%s: a changed ctime is trusted", c.name)
		}
	}
}
