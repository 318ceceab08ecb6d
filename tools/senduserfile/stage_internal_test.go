//go:build linux

package senduserfile

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenthost/agenthost/host"
	"github.com/agenthost/agenthost/invalidation"
	"github.com/agenthost/agenthost/tools"
	"go.uber.org/goleak"
)

// world is a working directory with a Host on it and a file outside.
func world(t *testing.T) (h *host.Host, cwd, src string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cwd = filepath.Join(root, "ws")
	src = filepath.Join(root, "outside.txt")
	os.Mkdir(cwd, 0o755)
	if err := os.WriteFile(src, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err = host.New(host.Config{WorkspaceRoot: cwd})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, cwd, src
}

// TestLinkSwappedInAfterSetup: the outbox was checked, then .agent-harness
// became a link to a look-alike inside the working directory. The walk to
// the digest folder follows it (it stays inside the jail), and the
// canonical-path check must refuse it.
func TestLinkSwappedInAfterSetup(t *testing.T) {
	h, cwd, src := world(t)
	s := &stager{cwd: cwd, real: cwd, ctx: context.Background(), h: h, left: DefaultMaxBytes}
	if err := s.ensureOutbox(); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(cwd, "moved")
	if err := os.Rename(filepath.Join(cwd, ".agent-harness"), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("moved", filepath.Join(cwd, ".agent-harness")); err != nil {
		t.Fatal(err)
	}
	f, err := openSource(src)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = s.stage(f, src)
	if !errors.Is(err, ErrSymlink) {
		t.Fatalf("stage through a swapped-in link: %v, want ErrSymlink", err)
	}
	if names, _ := os.ReadDir(filepath.Join(moved, "outbox")); len(names) != 1 {
		t.Errorf("written through the link: %v", names)
	}
}

// TestTornCopy: a source that changed between the stat and the end of the
// copy is reported torn, and no file is left (no copy, no temporary file).
func TestTornCopy(t *testing.T) {
	h, cwd, src := world(t)
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, change := range []func(){
		func() { os.WriteFile(src, []byte("outside, longer"), 0o644) }, // size
		func() { os.WriteFile(src, []byte("OUTSIDE"), 0o644) },         // same size: mtime and ctime
		func() { os.Chmod(src, 0o600) },                                // ctime alone
	} {
		os.WriteFile(src, []byte("outside"), 0o644)
		f.Seek(0, 0)
		s := &stager{cwd: cwd, real: cwd, ctx: context.Background(), h: h, left: DefaultMaxBytes}
		afterCopy = change
		_, _, _, torn, err := s.stageFrom(f, src)
		afterCopy = nil
		if err != nil || !torn {
			t.Errorf("a changed source was not seen: torn %v, %v", torn, err)
		}
		filepath.Walk(cwd, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && fi.Name() != ".gitignore" {
				t.Errorf("left behind: %s", p)
			}
			return nil
		})
	}
}

// TestStageFigures: the Result of Stage, and the paths it reports written.
func TestStageFigures(t *testing.T) {
	h, cwd, src := world(t)
	res := Stage(context.Background(), h, cwd, []string{src, "", filepath.Join(cwd, "x")}, Options{})
	if res.Staged != 1 || res.Kept != 0 || res.BytesStaged != 7 || res.Files[0].Status != Staged || res.Files[1].Status != Untouched {
		t.Fatalf("%+v", res)
	}
	copyPath := res.Files[0].Path
	outbox := filepath.Join(cwd, OutboxDir)
	want := []string{filepath.Join(cwd, ".agent-harness"), outbox, filepath.Join(outbox, ".gitignore"), filepath.Dir(copyPath), copyPath}
	if !slices.Equal(res.Written, want) {
		t.Errorf("Written %v\nwant %v", res.Written, want)
	}
	again := Stage(context.Background(), h, cwd, []string{src}, Options{})
	if again.Files[0].Status != Reused || again.BytesStaged != 0 || !slices.Equal(again.Written, []string{filepath.Dir(copyPath)}) {
		t.Errorf("%+v", again)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := Stage(ctx, h, cwd, []string{src}, Options{}); r.Files[0].Status != Kept || !errors.Is(r.Files[0].Err, ErrDeadline) {
		t.Errorf("cancelled: %+v", r)
	}
	if r := Stage(context.Background(), h, cwd, []string{src}, Options{MaxBytes: -1}); !errors.Is(r.Files[0].Err, ErrBudget) {
		t.Errorf("no budget: %+v", r)
	}
}

// TestToolPublishes: the tool, run by an Invoker, publishes a confirmed
// content and tree notice of what it wrote.
func TestToolPublishes(t *testing.T) {
	defer goleak.VerifyNone(t)
	h, cwd, src := world(t)
	pub := &invalidation.Publisher{}
	var mu sync.Mutex
	var got []invalidation.Notice
	if _, err := pub.Subscribe(invalidation.SinkFunc(func(n invalidation.Notice) {
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
	})); err != nil {
		t.Fatal(err)
	}
	defer pub.Close(context.Background())
	iv := &tools.Invoker{Host: h, Publisher: pub}
	input, _ := json.Marshal(map[string]any{"files": []any{src, 3}, "caption": "c"})
	res, err := iv.Invoke(context.Background(), &Tool{}, tools.Call{Input: input, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	var out Output
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	var files []any
	json.Unmarshal(out.Files, &files)
	if out.Staged != 1 || len(files) != 2 || files[1] != float64(3) || !strings.HasPrefix(files[0].(string), filepath.Join(cwd, OutboxDir)+"/") {
		t.Fatalf("output %s", res.Output)
	}
	if err := pub.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("notices %+v", got)
	}
	n := got[0]
	if !n.Confirmed || n.All || !n.Scope.Has(invalidation.ScopeContent|invalidation.ScopeTree) || !n.Covers(invalidation.ScopeContent, files[0].(string)) {
		t.Errorf("notice %+v", n)
	}

	if _, err := iv.Invoke(context.Background(), &Tool{}, tools.Call{Input: json.RawMessage(`{"files": "x"}`), Cwd: cwd}); !errors.Is(err, ErrInput) {
		t.Errorf("bad input: %v", err)
	}
}

// TestChangedSourceIsCopiedAgain: a source that changed during its copy is
// copied again under its new digest; one that changes during every copy is
// kept with ErrChanged. No temporary file remains either way.
func TestChangedSourceIsCopiedAgain(t *testing.T) {
	h, cwd, src := world(t)
	defer func() { afterCopy = nil }()
	calls := 0
	afterCopy = func() {
		if calls++; calls == 1 {
			os.WriteFile(src, []byte("changed"), 0o644)
		}
	}
	res := Stage(context.Background(), h, cwd, []string{src}, Options{})
	if f := res.Files[0]; f.Status != Staged || calls != 2 {
		t.Fatalf("%+v after %d copies", f, calls)
	}
	if b, _ := os.ReadFile(res.Files[0].Path); string(b) != "changed" {
		t.Errorf("copy holds %q", b)
	}
	fi, _ := os.Stat(src)
	if want := Digest(src, fi); filepath.Base(filepath.Dir(res.Files[0].Path)) != want {
		t.Errorf("copy in %s, want the new digest %s", res.Files[0].Path, want)
	}

	calls = 0
	os.WriteFile(src, []byte("a new version"), 0o644)
	afterCopy = func() {
		calls++
		os.WriteFile(src, []byte(strings.Repeat("x", calls)), 0o644)
	}
	res = Stage(context.Background(), h, cwd, []string{src}, Options{})
	if f := res.Files[0]; f.Status != Kept || !errors.Is(f.Err, ErrChanged) || calls != copyTries {
		t.Errorf("%+v after %d copies", f, calls)
	}
	filepath.Walk(cwd, func(p string, fi os.FileInfo, err error) error {
		if strings.HasSuffix(p, ".part") || strings.Contains(p, host.TempPrefix) {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

// jailOpener is an Options.OpenSource over h's jail (as the MCP server's),
// counting its calls.
func jailOpener(h *host.Host, calls *int) func(string) (*os.File, string, error) {
	return func(p string) (*os.File, string, error) {
		*calls++
		f, st, err := h.OpenFile(context.Background(), "", p)
		return f, st.Path, err
	}
}

// TestOpenSource: with Options.OpenSource, each entry is opened once, as
// given, and judged on the open file: a file in another root is staged
// under the digest of the opener's real path, one inside cwd is left alone,
// and what the opener refuses, a missing file and a directory are kept with
// their errors.
func TestOpenSource(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cwd, extra := filepath.Join(root, "ws"), filepath.Join(root, "extra")
	for _, d := range []string{cwd, extra, filepath.Join(extra, "dir")} {
		os.Mkdir(d, 0o755)
	}
	os.WriteFile(filepath.Join(extra, "f.txt"), []byte("extra"), 0o644)
	os.WriteFile(filepath.Join(cwd, "in.txt"), []byte("in"), 0o644)
	os.WriteFile(filepath.Join(root, "secret"), []byte("secret"), 0o644)
	os.Symlink(filepath.Join(root, "secret"), filepath.Join(extra, "out"))
	os.Symlink("f.txt", filepath.Join(extra, "alias"))
	h, err := host.New(host.Config{WorkspaceRoot: cwd, ExtraRoots: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	calls := 0
	files := []string{filepath.Join(extra, "alias"), "in.txt", filepath.Join(extra, "out"), filepath.Join(extra, "nope"), filepath.Join(extra, "dir"), " "}
	res := Stage(context.Background(), h, cwd, files, Options{OpenSource: jailOpener(h, &calls)})
	if calls != 5 {
		t.Errorf("opener called %d times, want 5 (not for a blank entry)", calls)
	}
	real := filepath.Join(extra, "f.txt")
	fi, _ := os.Stat(real)
	if f := res.Files[0]; f.Status != Staged || f.Source != real || filepath.Base(filepath.Dir(f.Path)) != Digest(real, fi) || filepath.Base(f.Path) != "f.txt" {
		t.Errorf("through an alias in another root: %+v", f)
	}
	if f := res.Files[1]; f.Status != Untouched || f.Source != filepath.Join(cwd, "in.txt") {
		t.Errorf("inside cwd: %+v", f)
	}
	for i, want := range []error{host.ErrEscape, os.ErrNotExist, host.ErrNotRegular} {
		if f := res.Files[2+i]; f.Status != Kept || !errors.Is(f.Err, want) {
			t.Errorf("%s: %+v, want kept with %v", f.Given, f, want)
		}
	}
	if f := res.Files[5]; f.Status != Untouched || f.Err != nil {
		t.Errorf("blank: %+v", f)
	}
	if res.Staged != 1 || res.Kept != 3 {
		t.Errorf("staged %d, kept %d", res.Staged, res.Kept)
	}

	// A torn copy is retried from the same descriptor, not reopened.
	os.WriteFile(real, []byte("a new version"), 0o644)
	defer func() { afterCopy = nil }()
	copies := 0
	afterCopy = func() {
		if copies++; copies == 1 {
			os.WriteFile(real, []byte("A NEW VERSION"), 0o644)
		}
	}
	calls = 0
	res = Stage(context.Background(), h, cwd, []string{real}, Options{OpenSource: jailOpener(h, &calls)})
	if f := res.Files[0]; f.Status != Staged || calls != 1 || copies != 2 {
		t.Fatalf("%+v after %d opens and %d copies", f, calls, copies)
	}
	if b, _ := os.ReadFile(res.Files[0].Path); string(b) != "A NEW VERSION" {
		t.Errorf("copy holds %q", b)
	}
}
