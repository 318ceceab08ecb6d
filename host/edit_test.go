package host_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/internal/gittest"
)

// gitDiffHunks is what git diff --no-index -U3 shows between a and b, from
// the first hunk header on (the file names are git's, not ours).
func gitDiffHunks(t *testing.T, a, b string) string {
	t.Helper()
	g := gittest.New(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte(a), 0o644)
	os.WriteFile(filepath.Join(dir, "b"), []byte(b), 0o644)
	out, code := g.Run(t, dir, "", "diff", "--no-index", "--no-color", "-U3", "a", "b")
	if code != 0 && code != 1 {
		t.Fatalf("git diff: exit %d: %s", code, out)
	}
	if i := strings.Index(out, "\n@@"); i >= 0 {
		return out[i+1:]
	}
	return ""
}

// hunks is a diff from its first hunk header on.
func hunks(d string) string {
	if i := strings.Index(d, "\n@@"); i >= 0 {
		return d[i+1:]
	}
	return ""
}

// TestEditFile: edits apply in order, each to the text the ones before
// left, atomically; the diff is git's; ReplaceAll and Expected replace
// every occurrence and count them; a dry run and an edit that changes
// nothing write nothing.
func TestEditFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.go")
	before := "package f\n\nfunc A() int { return 1 }\n\nfunc B() int { return 1 }\n\nvar x = 1\n"
	os.WriteFile(p, []byte(before), 0o640)
	h := newHost(t, host.Config{WorkspaceRoot: dir})

	edits := []host.Edit{
		{OldText: "func A() int { return 1 }", NewText: "func A() int { return 2 }"},
		{OldText: "return 1", NewText: "return 3"}, // one left after the first edit
		{OldText: "= 1", NewText: "= 4", ReplaceAll: true},
	}
	dry, err := h.EditFile(bg, "", "f.go", edits, host.EditOptions{DryRun: true})
	if err != nil || dry.Written || dry.Replacements != 3 || dry.Path != p {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	if b, _ := os.ReadFile(p); string(b) != before {
		t.Fatalf("the dry run wrote: %q", b)
	}
	res, err := h.EditFile(bg, "", "f.go", edits, host.EditOptions{})
	if err != nil || !res.Written || res.Replacements != 3 {
		t.Fatalf("EditFile: %+v %v", res, err)
	}
	after, _ := os.ReadFile(p)
	want := strings.Replace(strings.Replace(before, "return 1 }\n\nfunc B", "return 2 }\n\nfunc B", 1), "B() int { return 1 }", "B() int { return 3 }", 1)
	want = strings.Replace(want, "x = 1", "x = 4", 1)
	if string(after) != want {
		t.Fatalf("after the edit:\n%s\nwant\n%s", after, want)
	}
	if res.Diff != dry.Diff || !strings.HasPrefix(res.Diff, "--- "+p+"\n+++ "+p+"\n") {
		t.Errorf("diff header or dry-run diff differ:\n%s\n%s", res.Diff, dry.Diff)
	}
	if got, want := hunks(res.Diff), gitDiffHunks(t, before, string(after)); got != want {
		t.Errorf("diff:\n%s\ngit diff:\n%s", got, want)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 || res.Stat.Size != int64(len(after)) {
		t.Errorf("mode %v, stat %+v", fi.Mode(), res.Stat)
	}

	// Expected: every occurrence, only if there are that many.
	os.WriteFile(p, []byte("a a a\n"), 0o644)
	if res, err := h.EditFile(bg, "", "f.go", []host.Edit{{OldText: "a", NewText: "b", Expected: 3}}, host.EditOptions{}); err != nil || res.Replacements != 3 {
		t.Fatalf("Expected 3: %+v %v", res, err)
	}
	// No change: nothing written, no diff.
	fi0, _ := os.Stat(p)
	res, err = h.EditFile(bg, "", "f.go", []host.Edit{{OldText: "b", NewText: "b", ReplaceAll: true}}, host.EditOptions{})
	if fi1, _ := os.Stat(p); err != nil || res.Written || res.Diff != "" || !os.SameFile(fi0, fi1) {
		t.Errorf("an edit that changes nothing: %+v %v (file replaced: %v)", res, err, !os.SameFile(fi0, fi1))
	}
}

// TestEditFileRefusals: each refusal is an *EditError that errors.Is can
// tell, names the edit, and leaves the file as it was (the same inode, the
// same bytes): the first edits of a call that fails later are not written.
func TestEditFileRefusals(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	body := "x = 1\ny = 1\n  z  =  2\r\n"
	os.WriteFile(p, []byte(body), 0o644)
	os.WriteFile(filepath.Join(dir, "bin"), []byte("a\xffb"), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	ok := host.Edit{OldText: "x = 1", NewText: "x = 9"}
	for _, c := range []struct {
		name  string
		path  string
		edits []host.Edit
		want  error
		edit  int
		check func(*host.EditError) bool
	}{
		{"no edits", "f.txt", nil, host.ErrEditInvalid, 0, nil},
		{"empty oldText", "f.txt", []host.Edit{ok, {OldText: "", NewText: "a"}}, host.ErrEditInvalid, 2, nil},
		{"negative Expected", "f.txt", []host.Edit{{OldText: "= 1", Expected: -1}}, host.ErrEditInvalid, 1, nil},
		{"not found", "f.txt", []host.Edit{ok, {OldText: "w = 1"}}, host.ErrEditNotFound, 2, func(e *host.EditError) bool { return e.Hint == "" }},
		{"not found after the edit before", "f.txt", []host.Edit{ok, {OldText: "x = 1"}}, host.ErrEditNotFound, 2, nil},
		{"whitespace", "f.txt", []host.Edit{{OldText: "z = 2"}}, host.ErrEditNotFound, 1, func(e *host.EditError) bool { return strings.Contains(e.Hint, "whitespace") }},
		{"ambiguous", "f.txt", []host.Edit{{OldText: "= 1", NewText: "= 2"}}, host.ErrEditAmbiguous, 1, func(e *host.EditError) bool { return e.Count == 2 && slices.Equal(e.Lines, []int{1, 2}) }},
		{"count", "f.txt", []host.Edit{{OldText: "= 1", NewText: "= 2", Expected: 3}}, host.ErrEditCount, 1, func(e *host.EditError) bool { return e.Count == 2 && e.Expected == 3 }},
		{"count with ReplaceAll", "f.txt", []host.Edit{{OldText: "= 1", ReplaceAll: true, Expected: 1}}, host.ErrEditCount, 1, nil},
		{"not text", "bin", []host.Edit{{OldText: "a", NewText: "c"}}, host.ErrNotText, 0, nil},
	} {
		fi0, _ := os.Stat(filepath.Join(dir, c.path))
		_, err := h.EditFile(bg, "", c.path, c.edits, host.EditOptions{})
		var ee *host.EditError
		if !errors.Is(err, c.want) || !errors.As(err, &ee) || ee.Edit != c.edit || (c.check != nil && !c.check(ee)) {
			t.Errorf("%s: %v (%+v), want %v at edit %d", c.name, err, ee, c.want, c.edit)
			continue
		}
		if !strings.Contains(err.Error(), "nothing was written") {
			t.Errorf("%s: %q", c.name, err)
		}
		if fi1, _ := os.Stat(filepath.Join(dir, c.path)); !os.SameFile(fi0, fi1) || fi1.ModTime() != fi0.ModTime() {
			t.Errorf("%s: the file was replaced", c.name)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != body {
		t.Fatalf("written: %q", b)
	}
	// The Host's own errors, as UpdateFile's.
	if _, err := h.EditFile(bg, "", "nope", []host.Edit{ok}, host.EditOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := h.EditFile(bg, "", "../x", []host.Edit{ok}, host.EditOptions{}); !errors.Is(err, host.ErrEscape) {
		t.Errorf("outside: %v", err)
	}
	if _, err := h.EditFile(bg, "", ".", []host.Edit{ok}, host.EditOptions{}); err == nil {
		t.Error("a directory was edited")
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := h.EditFile(ctx, "", "f.txt", []host.Edit{ok}, host.EditOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestEditFileConcurrent: edits through many Hosts at once, each putting
// its line before the same marker, are never lost: EditFile holds
// UpdateFile's lock from the read to the write, so each edit sees the
// ones before it (one that finds the file changed by a program outside
// agenthost would fail with ErrChanged; none does here).
func TestEditFileConcurrent(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "log"), []byte("END\n"), 0o644)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		h := newHost(t, host.Config{WorkspaceRoot: dir})
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := h.EditFile(bg, "", "log", []host.Edit{{OldText: "END\n", NewText: fmt.Sprintf("line %02d\nEND\n", i)}}, host.EditOptions{})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "log"))
	for i := range n {
		if !strings.Contains(string(b), fmt.Sprintf("line %02d\n", i)) {
			t.Errorf("line %02d lost:\n%s", i, b)
		}
	}
}

// TestEditFileLargeBounded: an edit of every line of a 1.4 MB file (a
// ReplaceAll that changes 100,000 lines) ends in bounded time and memory:
// the diff's search stops at its bound and shows the changed middle as one
// replacement.
func TestEditFileLargeBounded(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&b, "line %06d a\n", i) // 14 bytes
	}
	os.WriteFile(filepath.Join(dir, "big"), []byte(b.String()), 0o644)
	h := newHost(t, host.Config{WorkspaceRoot: dir})
	ctx, cancel := context.WithTimeout(bg, 60*time.Second)
	defer cancel()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	res, err := h.EditFile(ctx, "", "big", []host.Edit{{OldText: " a\n", NewText: " b\n", ReplaceAll: true}}, host.EditOptions{})
	d := time.Since(start)
	runtime.ReadMemStats(&m1)
	if err != nil || res.Replacements != 100_000 || !res.Written {
		t.Fatalf("EditFile: %v %d", err, res.Replacements)
	}
	alloc := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("edit of %d bytes: %v, %d MiB allocated, diff %d bytes", b.Len(), d, alloc>>20, len(res.Diff))
	// Without the diff's bound the search would be quadratic in the
	// lines changed: hours, and gigabytes of trace.
	if d > 60*time.Second || alloc > 200<<20 {
		t.Errorf("edit of %d bytes took %v and allocated %d MiB; want < 60 s and < 200 MiB", b.Len(), d, alloc>>20)
	}
}
