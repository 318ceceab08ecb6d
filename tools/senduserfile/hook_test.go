//go:build linux

package senduserfile_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestOutsideFileKeepsOtherKeys(t *testing.T) {
	e := newEnv(t)
	src := e.file(filepath.Join(e.out, "report.md"), "# report\n")
	in := fmt.Sprintf(`{"session_id": "s", "tool_name": "SendUserFile", "cwd": %q, "tool_input": {"caption":  "see \u00e9", "files": [%q, 1.50], "display": {"a": [1e3, true]}}}`, e.cwd, src)
	out := e.run([]byte(in))
	want := e.copyPath(src)
	o := e.decode(out)
	if o.SystemMessage != message(fmt.Sprintf(copiedNote, 1)) {
		t.Errorf("systemMessage %q", o.SystemMessage)
	}
	// What was not replaced is as the script re-encoded it (json.dumps of
	// json.loads: 1.50 is 1.5, 1e3 is 1000.0), in its order.
	wantInput := fmt.Sprintf(`{"caption": "see \u00e9", "files": [%q, 1.5], "display": {"a": [1000.0, true]}}`, want)
	if !bytes.Contains(out, []byte(`"updatedInput": `+wantInput)) {
		t.Errorf("updatedInput not as the script prints it:\n got %s\nwant %s", out, wantInput)
	}
	got, err := os.ReadFile(want)
	if err != nil || string(got) != "# report\n" {
		t.Fatalf("copy: %q, %v", got, err)
	}
	fi, _ := os.Lstat(want)
	if fi.Mode() != 0o600 {
		t.Errorf("copy mode %v, want 0600", fi.Mode())
	}
	if gi, err := os.ReadFile(filepath.Join(e.cwd, ".agent-harness", "outbox", ".gitignore")); err != nil || strings.TrimSpace(string(gi)) != "*" {
		t.Errorf(".gitignore %q, %v", gi, err)
	}
	noTemp(t, e.cwd)
}

func TestLeftAlone(t *testing.T) {
	e := newEnv(t)
	inside := e.file(filepath.Join(e.cwd, "a.txt"), "a")
	e.file(filepath.Join(e.cwd, "sub", "b.txt"), "b")
	os.Mkdir(filepath.Join(e.out, "dir"), 0o755)
	for name, files := range map[string][]any{
		"inside absolute":  {inside},
		"inside relative":  {"sub/b.txt", "./a.txt", "sub/../a.txt"},
		"cwd itself":       {e.cwd, "."},
		"missing":          {filepath.Join(e.out, "nope.txt"), "nope.txt"},
		"directory":        {filepath.Join(e.out, "dir")},
		"not a file":       {"/dev/null"},
		"blank and others": {"", "   ", 7, nil, true, map[string]any{"p": "x"}},
	} {
		t.Run(name, func(t *testing.T) {
			if out := e.run(e.payload(files...)); len(out) != 0 {
				t.Errorf("output %q, want none", out)
			}
			e.noOutbox()
			if rows := e.logRows(); rows != nil {
				t.Errorf("logged %v", rows)
			}
		})
	}
}

func TestSymlinkedCwd(t *testing.T) {
	e := newEnv(t)
	a := e.file(filepath.Join(e.cwd, "a.txt"), "a")
	alias := filepath.Join(e.root, "alias")
	if err := os.Symlink(e.cwd, alias); err != nil {
		t.Fatal(err)
	}
	src := e.file(filepath.Join(e.out, "o.txt"), "o")
	in := []byte(fmt.Sprintf(`{"tool_name": "SendUserFile", "cwd": %q, "tool_input": {"files": [%q, %q, "a.txt", %q]}}`,
		alias, a, filepath.Join(alias, "a.txt"), src))
	o := e.decode(e.run(in))
	want := []any{a, filepath.Join(alias, "a.txt"), "a.txt",
		filepath.Join(alias, ".agent-harness", "outbox", digest(t, src), "o.txt")}
	if got := o.files(t); !reflect.DeepEqual(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if _, err := os.Stat(e.copyPath(src)); err != nil {
		t.Error(err)
	}
}

func TestRelativeOutsideAndLinkOut(t *testing.T) {
	e := newEnv(t)
	x := e.file(filepath.Join(e.root, "elsewhere", "x"), "x!")
	target := e.file(filepath.Join(e.out, "real-name.log"), "linked")
	if err := os.Symlink(target, filepath.Join(e.cwd, "link.log")); err != nil {
		t.Fatal(err)
	}
	o := e.stage([]any{"../elsewhere/x", "link.log"})
	want := []any{e.copyPath(x), e.copyPath(target)}
	if got := o.files(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	fi, err := os.Lstat(want[1].(string))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("copy of a link: %v, %v", fi, err)
	}
	if b, _ := os.ReadFile(want[1].(string)); string(b) != "linked" {
		t.Errorf("copy holds %q", b)
	}
}

func TestMixKeepsOrder(t *testing.T) {
	e := newEnv(t)
	in := e.file(filepath.Join(e.cwd, "in.txt"), "in")
	o1 := e.file(filepath.Join(e.out, "o1.txt"), "o1")
	o2 := e.file(filepath.Join(e.out, "o2.txt"), "o2")
	files := []any{in, o1, filepath.Join(e.out, "missing"), 7, o2, "in.txt"}
	o := e.stage(files)
	want := []any{in, e.copyPath(o1), filepath.Join(e.out, "missing"), float64(7), e.copyPath(o2), "in.txt"}
	if got := o.files(t); !reflect.DeepEqual(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if o.SystemMessage != message(fmt.Sprintf(copiedNote, 2)) {
		t.Errorf("systemMessage %q", o.SystemMessage)
	}
}

func TestBudget(t *testing.T) {
	e := newEnv(t)
	a := e.file(filepath.Join(e.out, "a.bin"), strings.Repeat("a", 10))
	b := e.file(filepath.Join(e.out, "b.bin"), strings.Repeat("b", 10))

	t.Run("smaller than the file", func(t *testing.T) {
		o := e.stage([]any{a}, "--max-bytes", "9")
		if o.HookSpecificOutput != nil {
			t.Errorf("staged over the budget: %v", o.files(t))
		}
		if o.SystemMessage != message(fmt.Sprintf(keptNote, "a.bin")) { // the script's source.name
			t.Errorf("systemMessage %q", o.SystemMessage)
		}
		e.noOutbox()
	})
	t.Run("across two files", func(t *testing.T) {
		o := e.stage([]any{a, b}, "--max-bytes", "15")
		if got, want := o.files(t), []any{e.copyPath(a), b}; !reflect.DeepEqual(got, want) {
			t.Errorf("files %v, want %v", got, want)
		}
		if o.SystemMessage != message(fmt.Sprintf(copiedNote, 1), fmt.Sprintf(keptNote, "b.bin")) {
			t.Errorf("systemMessage %q", o.SystemMessage)
		}
	})
	t.Run("equal to what is left", func(t *testing.T) {
		// a is reused now, and still counts.
		o := e.stage([]any{a, b}, "--max-bytes", "20")
		if got, want := o.files(t), []any{e.copyPath(a), e.copyPath(b)}; !reflect.DeepEqual(got, want) {
			t.Errorf("files %v, want %v", got, want)
		}
	})
}

func TestDeadlinePassed(t *testing.T) {
	e := newEnv(t)
	a := e.file(filepath.Join(e.out, "a.txt"), "a")
	inside := e.file(filepath.Join(e.cwd, "in.txt"), "in")
	o := e.stage([]any{inside, a}, "--deadline", "1ns")
	if o.HookSpecificOutput != nil || o.SystemMessage != message(fmt.Sprintf(keptNote, "a.txt")) {
		t.Errorf("got %+v", o)
	}
	e.noOutbox()
}

func TestFailedCopyNextToNULAndGood(t *testing.T) {
	e := newEnv(t)
	bad := e.file(filepath.Join(e.out, "bad.txt"), "bad")
	good := e.file(filepath.Join(e.out, "good.txt"), "good")
	// A directory where bad's copy must go: the rename fails.
	if err := os.MkdirAll(e.copyPath(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	nul := filepath.Join(e.out, "x\x00y")
	o := e.stage([]any{bad, nul, good})
	if got, want := o.files(t), []any{bad, nul, e.copyPath(good)}; !reflect.DeepEqual(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	// Named as the script names a file whose copy failed: the entry's last
	// component.
	if want := message(fmt.Sprintf(copiedNote, 1), fmt.Sprintf(keptNote, "bad.txt, x\x00y")); o.SystemMessage != want {
		t.Errorf("systemMessage %q, want %q", o.SystemMessage, want)
	}
	noTemp(t, e.cwd)
	rows := e.logRows()
	if len(rows) != 1 || rows[0]["deterministic_answer"] != "staged+kept" || rows[0]["kept"] != float64(2) {
		t.Errorf("log %v", rows)
	}
}

func TestGitStatusStaysClean(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	e := newEnv(t)
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = e.cwd, e.environ()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	src := e.file(filepath.Join(e.out, "a.txt"), "a")
	e.stage([]any{src})
	if st := git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status shows the outbox:\n%s", st)
	}
}

func TestReuseAndRewrite(t *testing.T) {
	e := newEnv(t)
	src := e.file(filepath.Join(e.out, "a.txt"), "version 1")
	first := e.stage([]any{src}).files(t)[0].(string)
	ino := func(p string) uint64 {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	ino1 := ino(first)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Dir(first), old, old)

	again := e.stage([]any{src}).files(t)[0].(string)
	if again != first || ino(again) != ino1 {
		t.Errorf("unchanged file: %s (inode %d), want the same copy %s (inode %d)", again, ino(again), first, ino1)
	}
	if fi, _ := os.Stat(filepath.Dir(first)); fi.ModTime().Before(time.Now().Add(-time.Minute)) {
		t.Errorf("a reused copy's folder was not touched")
	}

	t.Run("rewritten", func(t *testing.T) {
		e.file(src, "version 2, longer")
		third := e.stage([]any{src}).files(t)[0].(string)
		if third == first {
			t.Fatalf("rewritten file reuses %s", first)
		}
		if b, _ := os.ReadFile(first); string(b) != "version 1" {
			t.Errorf("old copy now %q", b)
		}
		if b, _ := os.ReadFile(third); string(b) != "version 2, longer" {
			t.Errorf("new copy %q", b)
		}
	})
	t.Run("same size, times restored", func(t *testing.T) {
		before, _ := os.Stat(src)
		prev := e.stage([]any{src}).files(t)[0].(string)
		time.Sleep(10 * time.Millisecond)
		e.file(src, "version 3, longer")
		os.Chtimes(src, before.ModTime(), before.ModTime())
		next := e.stage([]any{src}).files(t)[0].(string)
		if next == prev {
			t.Fatalf("a same-size rewrite with restored times reuses %s", prev)
		}
		if b, _ := os.ReadFile(next); string(b) != "version 3, longer" {
			t.Errorf("new copy %q", b)
		}
	})

	rows := e.logRows()
	if len(rows) < 2 {
		t.Fatalf("log %v", rows)
	}
	for i, want := range [][2]float64{{1, 9}, {1, 0}} {
		if rows[i]["staged"] != want[0] || rows[i]["bytes_staged"] != want[1] {
			t.Errorf("row %d: staged %v bytes_staged %v, want %v", i, rows[i]["staged"], rows[i]["bytes_staged"], want)
		}
	}
}

func TestPrune(t *testing.T) {
	e := newEnv(t)
	outbox := filepath.Join(e.cwd, ".agent-harness", "outbox")
	oldDigest := filepath.Join(outbox, "0123456789abcdef")
	freshDigest := filepath.Join(outbox, "fedcba9876543210")
	oldOther := filepath.Join(outbox, "0123456789ABCDEF")
	oldNamed := filepath.Join(outbox, "keep-me")
	for _, d := range []string{oldDigest, freshDigest, oldOther, oldNamed} {
		e.file(filepath.Join(d, "f.txt"), "x")
	}
	os.Mkdir(filepath.Join(oldDigest, "sub"), 0o755)
	longAgo := time.Now().Add(-15 * 24 * time.Hour)
	for _, d := range []string{oldDigest, oldOther, oldNamed} {
		os.Chtimes(d, longAgo, longAgo)
	}
	// An old digest-named link to a folder outside: neither it nor what it
	// leads to is removed.
	victim := filepath.Join(e.root, "victim")
	e.file(filepath.Join(victim, "f.txt"), "precious")
	os.Chtimes(victim, longAgo, longAgo)
	os.Symlink(victim, filepath.Join(outbox, "aaaaaaaaaaaaaaaa"))
	// A call that stages nothing prunes nothing.
	e.run(e.payload(filepath.Join(e.cwd, "nothing")))
	if _, err := os.Stat(oldDigest); err != nil {
		t.Fatalf("pruned by a call that staged nothing: %v", err)
	}
	e.stage([]any{e.file(filepath.Join(e.out, "a.txt"), "a")})
	if _, err := os.Lstat(oldDigest); err == nil {
		t.Errorf("old digest folder still there")
	}
	for _, d := range []string{freshDigest, oldOther, oldNamed, victim, filepath.Join(outbox, "aaaaaaaaaaaaaaaa")} {
		if _, err := os.Stat(filepath.Join(d, "f.txt")); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}

// TestPlantedLinks: a symbolic link anywhere in the outbox path keeps the
// file, and nothing is written where it leads.
func TestPlantedLinks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(e *env, src string) (victim string)
	}{
		{".agent-harness elsewhere", func(e *env, src string) string {
			v := filepath.Join(e.root, "victim")
			os.Mkdir(v, 0o755)
			os.Symlink(v, filepath.Join(e.cwd, ".agent-harness"))
			return v
		}},
		{".agent-harness inside cwd", func(e *env, src string) string {
			v := filepath.Join(e.cwd, "other")
			os.Mkdir(v, 0o755)
			os.Symlink("other", filepath.Join(e.cwd, ".agent-harness"))
			return v
		}},
		{"outbox", func(e *env, src string) string {
			v := filepath.Join(e.root, "victim")
			os.Mkdir(v, 0o755)
			os.Mkdir(filepath.Join(e.cwd, ".agent-harness"), 0o755)
			os.Symlink(v, filepath.Join(e.cwd, ".agent-harness", "outbox"))
			return v
		}},
		{".gitignore", func(e *env, src string) string {
			v := filepath.Join(e.root, "victim")
			os.Mkdir(v, 0o755)
			e.file(filepath.Join(v, "target"), "precious")
			os.MkdirAll(filepath.Join(e.cwd, ".agent-harness", "outbox"), 0o755)
			os.Symlink(filepath.Join(v, "target"), filepath.Join(e.cwd, ".agent-harness", "outbox", ".gitignore"))
			return v
		}},
		{"digest folder", func(e *env, src string) string {
			v := filepath.Join(e.root, "victim")
			os.Mkdir(v, 0o755)
			os.MkdirAll(filepath.Join(e.cwd, ".agent-harness", "outbox"), 0o755)
			os.Symlink(v, filepath.Dir(e.copyPath(src)))
			return v
		}},
		{"target", func(e *env, src string) string {
			v := filepath.Join(e.root, "victim")
			os.Mkdir(v, 0o755)
			e.file(filepath.Join(v, "target"), "precious")
			os.MkdirAll(filepath.Dir(e.copyPath(src)), 0o755)
			os.Symlink(filepath.Join(v, "target"), e.copyPath(src))
			return v
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			src := e.file(filepath.Join(e.out, "secret.txt"), "payload")
			victim := tc.plant(e, src)
			before := snapshot(t, victim)
			o := e.stage([]any{src})
			if o.HookSpecificOutput != nil || o.SystemMessage != message(fmt.Sprintf(keptNote, "secret.txt")) {
				t.Errorf("got %+v", o)
			}
			if after := snapshot(t, victim); !reflect.DeepEqual(before, after) {
				t.Errorf("written through the link:\nbefore %v\nafter  %v", before, after)
			}
			noTemp(t, e.root)
		})
	}
}

// snapshot lists every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			m[p] = fi.Mode().String() + " " + string(b)
		}
		return nil
	})
	return m
}

func TestPassThrough(t *testing.T) {
	e := newEnv(t)
	src := e.file(filepath.Join(e.out, "a.txt"), "a")
	for name, in := range map[string]string{
		"empty stdin":         ``,
		"bad JSON":            `{"tool_name": "SendUserFile", `,
		"not an object":       `["SendUserFile"]`,
		"no files":            fmt.Sprintf(`{"tool_name": "SendUserFile", "cwd": %q, "tool_input": {}}`, e.cwd),
		"empty files":         fmt.Sprintf(`{"tool_name": "SendUserFile", "cwd": %q, "tool_input": {"files": []}}`, e.cwd),
		"another tool":        fmt.Sprintf(`{"tool_name": "Read", "cwd": %q, "tool_input": {"files": [%q]}}`, e.cwd, src),
		"no cwd":              fmt.Sprintf(`{"tool_name": "SendUserFile", "tool_input": {"files": [%q]}}`, src),
		"relative cwd":        fmt.Sprintf(`{"tool_name": "SendUserFile", "cwd": "ws", "tool_input": {"files": [%q]}}`, src),
		"missing cwd":         fmt.Sprintf(`{"tool_name": "SendUserFile", "cwd": %q, "tool_input": {"files": [%q]}}`, filepath.Join(e.root, "gone"), src),
		"cwd a file":          fmt.Sprintf(`{"tool_name": "SendUserFile", "cwd": %q, "tool_input": {"files": [%q]}}`, src, src),
		"tool_input a string": fmt.Sprintf(`{"tool_name": "SendUserFile", "cwd": %q, "tool_input": "{\"files\": [%s]}"}`, e.cwd, src),
		"files a string":      fmt.Sprintf(`{"tool_name": "SendUserFile", "cwd": %q, "tool_input": {"files": %q}}`, e.cwd, src),
	} {
		t.Run(name, func(t *testing.T) {
			if out := e.run([]byte(in)); len(out) != 0 {
				t.Errorf("output %q, want none", out)
			}
			e.noOutbox()
		})
	}
}

func TestDecisionLog(t *testing.T) {
	e := newEnv(t)
	src := e.file(filepath.Join(e.out, "report.pdf"), "12345")
	missing := filepath.Join(e.out, "a\x00b.png")
	e.stage([]any{src, "inside-missing", missing})
	path := filepath.Join(e.harness, ".local", "state", "agent-harness", "decisions.jsonl")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v", fi.Mode())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("log folder mode %v", di.Mode())
	}
	raw, _ := os.ReadFile(path)
	rows := e.logRows()
	if len(rows) != 1 {
		t.Fatalf("rows %v", rows)
	}
	r := rows[0]
	id, _ := r["decision_id"].(string)
	ts, _ := r["ts"].(string)
	if len(id) < 16 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Errorf("decision_id %q", id)
	}
	if _, err := time.Parse("2006-01-02T15:04:05Z", ts); err != nil {
		t.Errorf("ts %q: %v", ts, err)
	}
	delete(r, "decision_id")
	delete(r, "ts")
	// The script's text: every string entry's last component, as the call
	// left it, joined by ", ".
	input := "report.pdf, inside-missing, a\x00b.png"
	want := map[string]any{
		"kind": "decision", "point": "stage-user-files", "session_id": "sess-1",
		"input": input, "input_sha256": sha256Hex(input),
		"deterministic_answer": "staged+kept", "outcome": nil,
		"staged": float64(1), "kept": float64(1), "files": float64(3), "bytes_staged": float64(5),
		"schema_version": float64(1),
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("row\n got %v\nwant %v", r, want)
	}
	// Keys sorted, written as Python's json.dumps writes them.
	if !bytes.HasPrefix(raw, []byte(`{"bytes_staged": 5, "decision_id": "`)) || !bytes.Contains(raw, []byte(`"input": "report.pdf, inside-missing, a\u0000b.png"`)) {
		t.Errorf("row text %s", raw)
	}

	t.Run("off by config", func(t *testing.T) {
		e.file(filepath.Join(e.harness, ".config", "agent-harness", "config.json"), `{"telemetry": {"decisions": false}}`)
		defer os.Remove(filepath.Join(e.harness, ".config", "agent-harness", "config.json"))
		e.stage([]any{src})
		if n := len(e.logRows()); n != 1 {
			t.Errorf("%d rows, want 1", n)
		}
	})
	t.Run("HOME without HARNESS_HOME", func(t *testing.T) {
		cmd := exec.Command(binary, "hook")
		cmd.Env = []string{"HOME=" + e.home}
		cmd.Stdin = bytes.NewReader(e.payload(src))
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			t.Fatalf("%q, %v", out, err)
		}
		if _, err := os.Stat(filepath.Join(e.home, ".local", "state", "agent-harness", "decisions.jsonl")); err != nil {
			t.Error(err)
		}
	})
	t.Run("a failure to log changes nothing", func(t *testing.T) {
		cmd := exec.Command(binary, "hook")
		cmd.Env = []string{"HOME=" + e.home, "HARNESS_HOME=" + src} // a file: no log folder under it
		cmd.Stdin = bytes.NewReader(e.payload(src))
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte(e.copyPath(src))) {
			t.Errorf("%q, %v", out, err)
		}
	})
}

func TestLogRotation(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.harness, ".local", "state", "agent-harness")
	log := filepath.Join(dir, "decisions.jsonl")
	e.file(log, strings.Repeat("x", 8<<20-1)+"\n")
	for i := 1; i <= 3; i++ {
		e.file(fmt.Sprintf("%s.%d", log, i), fmt.Sprintf("old %d\n", i))
	}
	src := e.file(filepath.Join(e.out, "a.txt"), "a")
	e.stage([]any{src})
	for i, want := range []string{"", strings.Repeat("x", 8<<20-1) + "\n", "old 1\n", "old 2\n"} {
		if i == 0 {
			if n := len(e.logRows()); n != 1 {
				t.Errorf("new log has %d rows", n)
			}
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("%s.%d", log, i))
		if err != nil || string(b) != want {
			t.Errorf("%s.%d: %d bytes, %v", log, i, len(b), err)
		}
	}
	if _, err := os.Stat(log + ".4"); err == nil {
		t.Errorf("a fourth old log was kept")
	}
	// Under the size, no rotation.
	e.stage([]any{src})
	if n := len(e.logRows()); n != 2 {
		t.Errorf("log has %d rows, want 2", n)
	}
}

// TestConcurrentHooks: processes staging the same file at once all succeed
// and the copy is whole.
func TestConcurrentHooks(t *testing.T) {
	e := newEnv(t)
	content := strings.Repeat("0123456789abcdef", 1<<18) // 4 MiB
	src := e.file(filepath.Join(e.out, "big.bin"), content)
	const n = 6
	outs := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(binary, "hook")
			cmd.Env = e.environ()
			cmd.Stdin = bytes.NewReader(e.payload(src))
			outs[i], _ = cmd.Output()
		}()
	}
	wg.Wait()
	want := e.copyPath(src)
	for i, out := range outs {
		if got := e.decode(out).files(t); len(got) != 1 || got[0] != want {
			t.Errorf("process %d: %s", i, out)
		}
	}
	if b, err := os.ReadFile(want); err != nil || string(b) != content {
		t.Errorf("copy: %d bytes, %v", len(b), err)
	}
	noTemp(t, e.cwd)
	if n := len(e.logRows()); n != 6 {
		t.Errorf("%d log rows, want 6", n)
	}
}

func TestTildeExpansion(t *testing.T) {
	e := newEnv(t)
	src := e.file(filepath.Join(e.home, "notes.txt"), "n")
	o := e.stage([]any{"~/notes.txt", "~nosuchuser/x"})
	if got, want := o.files(t), []any{e.copyPath(src), "~nosuchuser/x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
}
