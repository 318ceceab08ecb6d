package walk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthost/agenthost/internal/gittest"
)

// selfIncluding appends n lines "path = config" under [include] to the
// config of the repository at repo: git refuses it at once ("exceeded
// maximum include depth"); followed without git's limit it is n^10
// readings (n = 4 took 17 s and n = 6 more than a minute).
func selfIncluding(t *testing.T, repo string, n int) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("[include]\n" + strings.Repeat("\tpath = config\n", n)); err != nil {
		t.Fatal(err)
	}
}

// bounded runs f and fails t when it takes longer than d or allocates
// more than maxAlloc bytes (the test runs alone: parallel tests wait).
func bounded(t *testing.T, what string, d time.Duration, maxAlloc uint64, f func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if took > d {
		t.Errorf("%s took %v (bound %v)", what, took, d)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxAlloc {
		t.Errorf("%s allocated %d MiB (bound %d MiB)", what, alloc>>20, maxAlloc>>20)
	}
}

// hostileRepo makes a repository whose config includes itself n times,
// with a .gitignore ignoring *.log and the files a.log and b.txt.
func hostileRepo(t *testing.T, e *gittest.Env, dir string, n int) {
	t.Helper()
	e.Init(t, dir)
	selfIncluding(t, dir, n)
	for name, body := range map[string]string{".gitignore": "*.log\n", "a.log": "", "b.txt": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConfigSelfIncludeWalk: Walk of a repository whose config includes
// itself returns at once with ErrIncludeDepth (git refuses every command
// there), within its 2 s context and a memory bound; before, the config
// was followed 4^10 times and the context never looked at.
func TestConfigSelfIncludeWalk(t *testing.T) {
	e := gittest.New(t)
	repo := filepath.Join(t.TempDir(), "repo")
	hostileRepo(t, e, repo, 4)
	if _, code := e.Run(t, repo, "", "check-ignore", "a.log"); code != 128 {
		t.Fatalf("git check-ignore exits %d, want 128 (git refuses the config)", code)
	}
	c := &Cache{Getenv: e.Getenv}
	defer c.Close()
	var err error
	var n int
	bounded(t, "Walk", 3*time.Second, 64<<20, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var mu sync.Mutex
		err = c.Walk(ctx, repo, Options{}, func(Entry) error {
			mu.Lock()
			n++
			mu.Unlock()
			return nil
		})
	})
	var pe *PartialError
	if !errors.As(err, &pe) || !errors.Is(err, ErrIncludeDepth) {
		t.Fatalf("Walk: %v, want a *PartialError wrapping ErrIncludeDepth", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(repo, ".git", "config")) {
		t.Errorf("Walk: %q does not name the config", err)
	}
	bounded(t, "IsIgnored", 3*time.Second, 64<<20, func() {
		_, err = c.IsIgnored(context.Background(), repo, filepath.Join(repo, "a.log"))
	})
	if !errors.Is(err, ErrIncludeDepth) {
		t.Errorf("IsIgnored: %v, want ErrIncludeDepth (git check-ignore dies)", err)
	}
	// Watched (the warm path of a long-lived Cache) as unwatched.
	if _, _, err := c.IsIgnoredIfReal(context.Background(), repo, filepath.Join(repo, "a.log")); !errors.Is(err, ErrIncludeDepth) {
		t.Errorf("IsIgnoredIfReal: %v, want ErrIncludeDepth", err)
	}
	if _, _, err := c.IsIgnoredIfReal(context.Background(), repo, filepath.Join(repo, "a.log")); !errors.Is(err, ErrIncludeDepth) {
		t.Errorf("IsIgnoredIfReal again: %v, want ErrIncludeDepth", err)
	}

	// Mended, the repository answers as git does.
	e.Init(t, repo+"2")
	cfg, _ := os.ReadFile(filepath.Join(repo+"2", ".git", "config"))
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	c2 := &Cache{Getenv: e.Getenv}
	defer c2.Close()
	ign, err := c2.IsIgnored(context.Background(), repo, filepath.Join(repo, "a.log"))
	if _, code := e.Run(t, repo, "", "check-ignore", "-q", "a.log"); err != nil || ign != (code == 0) {
		t.Errorf("mended: IsIgnored = %v, %v; git check-ignore exits %d", ign, err, code)
	}
}

// TestConfigSelfIncludeVendored: a parent repository holding a vendored
// repository whose config includes itself is walked at once: the
// vendored config's fault is reported (a *PartialError), every other
// entry listed, and the parent's own paths judged as git judges them.
func TestConfigSelfIncludeVendored(t *testing.T) {
	e := gittest.New(t)
	parent := filepath.Join(t.TempDir(), "parent")
	e.Init(t, parent)
	for name, body := range map[string]string{".gitignore": "*.tmp\n", "src/x.go": "", "src/y.tmp": ""} {
		p := filepath.Join(parent, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vendored := filepath.Join(parent, "vendored")
	hostileRepo(t, e, vendored, 6)
	c := &Cache{Getenv: e.Getenv}
	defer c.Close()
	var err error
	got := map[string]bool{}
	bounded(t, "Walk", 3*time.Second, 64<<20, func() {
		var mu sync.Mutex
		err = c.Walk(context.Background(), parent, Options{}, func(en Entry) error {
			mu.Lock()
			got[en.Path] = true
			mu.Unlock()
			return nil
		})
	})
	if !errors.Is(err, ErrIncludeDepth) || !strings.Contains(err.Error(), filepath.Join(vendored, ".git", "config")) {
		t.Fatalf("Walk: %v, want ErrIncludeDepth naming the vendored config", err)
	}
	for _, p := range []string{"src/x.go", "vendored/b.txt"} {
		if !got[filepath.Join(parent, p)] {
			t.Errorf("Walk did not list %s", p)
		}
	}
	if got[filepath.Join(parent, "src/y.tmp")] {
		t.Errorf("Walk listed src/y.tmp, which the parent ignores")
	}
	// The parent's paths are the parent's: git answers there.
	for _, p := range []string{"src/y.tmp", "src/x.go"} {
		ign, err := c.IsIgnored(context.Background(), parent, filepath.Join(parent, p))
		if _, code := e.Run(t, parent, "", "check-ignore", "-q", p); err != nil || ign != (code == 0) {
			t.Errorf("%s: IsIgnored = %v, %v; git check-ignore exits %d", p, ign, err, code)
		}
	}
}

// TestConfigCancelRace cancels the context while a repository's config is
// being read, from another goroutine (run with -race): the call ends with
// the context's error or its answer, within a bound; and what was cut short
// is kept nowhere: the next call, with a live context, answers as git.
func TestConfigCancelRace(t *testing.T) {
	e := gittest.New(t)
	repo := filepath.Join(t.TempDir(), "repo")
	e.Init(t, repo)
	// A config git reads in full (no include too deep) that takes some
	// milliseconds: 8^4 readings of the innermost file.
	var b strings.Builder
	b.WriteString("[include]\n")
	b.WriteString(strings.Repeat("\tpath = f1\n", 8))
	f, _ := os.OpenFile(filepath.Join(repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(b.String())
	f.Close()
	for i := 1; i < 4; i++ {
		body := "[core]\n\tbare = false\n[include]\n" + strings.Repeat("\tpath = f"+string(rune('1'+i))+"\n", 8)
		os.WriteFile(filepath.Join(repo, ".git", "f"+string(rune('0'+i))), []byte(body), 0o644)
	}
	os.WriteFile(filepath.Join(repo, ".git", "f4"), []byte("[core]\n\tignorecase = false\n"), 0o644)
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("*.log\n"), 0o644)
	if out, code := e.Run(t, repo, "", "check-ignore", "x.log"); code != 0 || out != "x.log\n" {
		t.Fatalf("git check-ignore: %q, exit %d", out, code)
	}
	cancelledOnce := false
	for i := 0; i < 20; i++ {
		c := &Cache{Getenv: e.Getenv} // a new one: the config is read again
		ctx, cancel := context.WithCancel(context.Background())
		go func(d time.Duration) {
			time.Sleep(d)
			cancel()
		}(time.Duration(i%10) * 500 * time.Microsecond)
		start := time.Now()
		ign, err := c.IsIgnored(ctx, repo, filepath.Join(repo, "x.log"))
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("IsIgnored took %v", d)
		}
		switch {
		case errors.Is(err, context.Canceled):
			cancelledOnce = true
		case err != nil || !ign:
			t.Fatalf("IsIgnored = %v, %v; want true (git)", ign, err)
		}
		cancel()
		if ign, err := c.IsIgnored(context.Background(), repo, filepath.Join(repo, "x.log")); err != nil || !ign {
			t.Fatalf("after a cancelled call: IsIgnored = %v, %v; want true (git)", ign, err)
		}
		if ign, ok, err := c.IsIgnoredIfReal(context.Background(), repo, filepath.Join(repo, "x.log")); err != nil || ok && !ign {
			t.Fatalf("after a cancelled call: IsIgnoredIfReal = %v, %v, %v; want true (git)", ign, ok, err)
		}
		c.Close()
	}
	t.Logf("cancelled in the middle at least once: %v", cancelledOnce)
}

// TestConfigCancelInTheMiddle cancels the context while the config is
// being read, at a point the test chooses (as the files to read are
// listed), with IsIgnored, IsIgnoredIfReal and Walk, in a repository with
// an ordinary config and in one whose config includes itself four times
// (before, its reading took seconds and did not look at the context):
// each call ends with the context's error within a bound, and what was
// cut short is kept nowhere: a later call answers as git (for the
// hostile config, with git's refusal).
func TestConfigCancelInTheMiddle(t *testing.T) {
	e := gittest.New(t)
	for _, hostile := range []bool{false, true} {
		repo := filepath.Join(t.TempDir(), "repo")
		e.Init(t, repo)
		if hostile {
			selfIncluding(t, repo, 4)
		}
		os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("*.log\n"), 0o644)
		os.WriteFile(filepath.Join(repo, "x.log"), nil, 0o644)
		for _, call := range []string{"IsIgnored", "IsIgnoredIfReal", "Walk"} {
			t.Run(fmt.Sprintf("%s/hostile=%v", call, hostile), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				armed := false
				c := &Cache{Getenv: func(k string) string {
					if k == "GIT_CONFIG_GLOBAL" && armed {
						cancel() // read as the config files are listed, before any is read
					}
					return e.Getenv(k)
				}}
				defer c.Close()
				var err error
				if call == "IsIgnoredIfReal" {
					// The watches set up by a first question, and the
					// repository forgotten (its config changed): the
					// next question reads it again from the watched path.
					c.IsIgnored(context.Background(), repo, filepath.Join(repo, "y"))
					cfg := filepath.Join(repo, ".git", "config")
					b, _ := os.ReadFile(cfg)
					os.WriteFile(cfg, append(b, "[x]\n\ty = 1\n"...), 0o644)
				}
				armed = true
				bounded(t, call, 2*time.Second, 64<<20, func() {
					switch call {
					case "IsIgnored":
						_, err = c.IsIgnored(ctx, repo, filepath.Join(repo, "x.log"))
					case "IsIgnoredIfReal":
						_, _, err = c.IsIgnoredIfReal(ctx, repo, filepath.Join(repo, "x.log"))
					case "Walk":
						err = c.Walk(ctx, repo, Options{}, func(Entry) error { return nil })
					}
				})
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: %v, want context.Canceled", call, err)
				}
				armed = false
				ign, err := c.IsIgnored(context.Background(), repo, filepath.Join(repo, "x.log"))
				if hostile && !errors.Is(err, ErrIncludeDepth) || !hostile && (err != nil || !ign) {
					t.Fatalf("then IsIgnored = %v, %v; want git's answer (hostile: %v)", ign, err, hostile)
				}
				var listed []string
				var mu sync.Mutex
				err = c.Walk(context.Background(), repo, Options{}, func(en Entry) error {
					mu.Lock()
					listed = append(listed, filepath.Base(en.Path))
					mu.Unlock()
					return nil
				})
				if hostile && !errors.Is(err, ErrIncludeDepth) || !hostile && err != nil {
					t.Fatalf("then Walk: %v (hostile: %v)", err, hostile)
				}
				for _, n := range listed {
					if n == "x.log" {
						t.Errorf("then Walk listed x.log, which the .gitignore ignores")
					}
				}
			})
		}
	}
}
