//go:build linux

package senduserfile_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agenthost/agenthost/internal/testbin"
)

// binary is agent-host, built once for every hook test.
var binary string

func TestMain(m *testing.M) { testbin.Main(m, &binary) }

// env is one test's world: a working directory, a folder outside it, and a
// home and harness home of its own.
type env struct {
	t       testing.TB
	root    string // the temp root; everything below
	cwd     string // root/ws, the session's working directory
	out     string // root/outside
	home    string
	harness string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, root: root, cwd: filepath.Join(root, "ws"), out: filepath.Join(root, "outside"),
		home: filepath.Join(root, "home"), harness: filepath.Join(root, "harness")}
	for _, d := range []string{e.cwd, e.out, e.home, e.harness} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// file writes a file (its folders made) and returns its path.
func (e *env) file(path, content string) string {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// environ is the hook's environment: HOME and HARNESS_HOME in the test's
// folders, git kept away from the user's config.
func (e *env) environ() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + e.home,
		"HARNESS_HOME=" + e.harness,
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
	}
}

// run runs the hook on stdin and returns its standard output. The hook must
// exit 0, print nothing on standard error, and never decide a permission.
func (e *env) run(stdin []byte, args ...string) []byte {
	e.t.Helper()
	cmd := exec.Command(binary, append([]string{"hook"}, args...)...)
	cmd.Dir = e.root
	cmd.Env = e.environ()
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("agent-host hook: %v (stderr %q)", err, stderr.String())
	}
	if stderr.Len() > 0 {
		e.t.Errorf("agent-host hook wrote to stderr: %q", stderr.String())
	}
	if bytes.Contains(stdout.Bytes(), []byte("permissionDecision")) {
		e.t.Errorf("the hook decided a permission: %s", stdout.Bytes())
	}
	return stdout.Bytes()
}

// payload is a SendUserFile PreToolUse input for files.
func (e *env) payload(files ...any) []byte {
	e.t.Helper()
	b, err := json.Marshal(map[string]any{
		"session_id":      "sess-1",
		"hook_event_name": "PreToolUse",
		"tool_name":       "SendUserFile",
		"cwd":             e.cwd,
		"tool_input":      map[string]any{"files": files},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// hookOut is what the hook prints.
type hookOut struct {
	SystemMessage      string `json:"systemMessage"`
	HookSpecificOutput *struct {
		HookEventName string                     `json:"hookEventName"`
		UpdatedInput  map[string]json.RawMessage `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// stage runs the hook on files and decodes its output, which must exist.
func (e *env) stage(files []any, args ...string) hookOut {
	e.t.Helper()
	return e.decode(e.run(e.payload(files...), args...))
}

func (e *env) decode(out []byte) hookOut {
	e.t.Helper()
	var o hookOut
	if len(out) == 0 || out[len(out)-1] != '\n' || bytes.Count(out, []byte("\n")) != 1 {
		e.t.Fatalf("output is not one line of JSON: %q", out)
	}
	if err := json.Unmarshal(out, &o); err != nil {
		e.t.Fatalf("output %q: %v", out, err)
	}
	return o
}

// files returns updatedInput.files (nil when nothing was staged).
func (o hookOut) files(t *testing.T) []any {
	t.Helper()
	if o.HookSpecificOutput == nil {
		return nil
	}
	if o.HookSpecificOutput.HookEventName != "PreToolUse" {
		t.Errorf("hookEventName %q", o.HookSpecificOutput.HookEventName)
	}
	var fs []any
	if err := json.Unmarshal(o.HookSpecificOutput.UpdatedInput["files"], &fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

const (
	copiedNote = "copied %d file(s) from outside the session's working directory into .agent-harness/outbox/, so Remote Control can open them"
	keptNote   = "could not copy %s into the working directory, so Remote Control may not open it"
)

func message(notes ...string) string {
	return "stage-user-files: " + strings.Join(notes, "; ") + "."
}

// digest computes the digest folder of a file the way the issue states it:
// SHA-256 of realpath NUL size NUL mtime_ns NUL ctime_ns, 16 hex digits.
func digest(t testing.TB, path string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(real, &st); err != nil {
		t.Fatal(err)
	}
	text := real + "\x00" + strconv.FormatInt(st.Size, 10) + "\x00" +
		strconv.FormatInt(st.Mtim.Nano(), 10) + "\x00" + strconv.FormatInt(st.Ctim.Nano(), 10)
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])[:16]
}

// copyPath is where the hook stages path for a session in e.cwd.
func (e *env) copyPath(path string) string {
	e.t.Helper()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		e.t.Fatal(err)
	}
	return filepath.Join(e.cwd, ".agent-harness", "outbox", digest(e.t, path), filepath.Base(real))
}

// noOutbox fails when the outbox (or .agent-harness) exists.
func (e *env) noOutbox() {
	e.t.Helper()
	if _, err := os.Lstat(filepath.Join(e.cwd, ".agent-harness")); err == nil {
		e.t.Errorf(".agent-harness was created")
	}
}

// noTemp fails when a temporary file remains anywhere under dir.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && (strings.HasSuffix(p, ".part") || strings.Contains(p, ".agenthost-tmp-")) {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// logRows reads the decision log.
func (e *env) logRows() []map[string]any {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.harness, ".local", "state", "agent-harness", "decisions.jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	var rows []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			e.t.Fatalf("log line %q: %v", line, err)
		}
		rows = append(rows, r)
	}
	return rows
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
