package walk

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReview4WarmSeesOtherThreadsEdit: the warm poll's epoll gate sees an
// edit made on another OS thread just before the question (the editor
// tells the asker over a channel once its system call has returned), for
// every kind of edit: a write in place, a rename over the file, a removal
// and a creation, of the directory's .gitignore and of info/exclude.
func TestReview4WarmSeesOtherThreadsEdit(t *testing.T) {
	e := newGitEnv(t, false)
	e.write("d/a.go", "")
	e.write("d/b.log", "")
	e.write("d/.gitignore", "*.log\n")
	c := e.cache()
	defer c.Close()
	c.Recheck = time.Hour // only the watches can make an edit seen
	ctx := context.Background()
	gi := filepath.Join(e.repo, "d", ".gitignore")
	ex := filepath.Join(e.repo, ".git", "info", "exclude")
	must(t, os.MkdirAll(filepath.Dir(ex), 0o755))

	// want is what the rules now say: ext is ignored ("" none).
	type step struct {
		ext string
		do  func()
	}
	var steps []step
	for i := range 40 {
		ext := []string{".go", ".log"}[i%2]
		rules := []byte("*" + ext + "\n")
		switch i % 5 {
		case 0: // in place
			steps = append(steps, step{ext, func() { must(t, os.WriteFile(gi, rules, 0o644)) }})
		case 1: // renamed over
			steps = append(steps, step{ext, func() {
				tmp := gi + ".tmp"
				must(t, os.WriteFile(tmp, rules, 0o644))
				must(t, os.Rename(tmp, gi))
			}})
		case 2: // removed, then nothing is ignored
			steps = append(steps, step{"", func() { must(t, os.Remove(gi)) }})
			steps = append(steps, step{ext, func() { must(t, os.WriteFile(gi, rules, 0o644)) }})
		case 3: // info/exclude says it, the .gitignore says nothing
			steps = append(steps, step{ext, func() {
				must(t, os.WriteFile(gi, nil, 0o644))
				must(t, os.WriteFile(ex, rules, 0o644))
			}})
			steps = append(steps, step{"", func() { must(t, os.Remove(ex)) }})
		case 4: // in place again
			steps = append(steps, step{ext, func() { must(t, os.WriteFile(gi, rules, 0o644)) }})
		}
	}

	ask := func(label string, want string) int {
		warm := 0
		for _, n := range []string{"a.go", "b.log"} {
			got, ok, err := c.IsIgnoredIfRealRel(ctx, e.repo, "d/"+n, false)
			must(t, err)
			if !ok {
				continue
			}
			warm++
			if w := want != "" && strings.HasSuffix(n, want); got != w {
				t.Errorf("%s: d/%s answered warm %v, want %v", label, n, got, w)
			}
		}
		return warm
	}
	// IsIgnored sets the watches up (the warm path only uses them).
	settle := func(want string) {
		for range 3 {
			for _, n := range []string{"a.go", "b.log"} {
				got, err := c.IsIgnored(ctx, e.repo, filepath.Join(e.repo, "d", n))
				must(t, err)
				if w := want != "" && strings.HasSuffix(n, want); got != w {
					t.Errorf("settle: d/%s is %v, want %v", n, got, w)
				}
			}
		}
	}
	settle(".log")

	next, done := make(chan int), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := range next {
			steps[i].do()
			done <- struct{}{}
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	warm := 0
	for i, s := range steps {
		next <- i
		<-done
		warm += ask("step "+strings.Repeat("+", i%5), s.ext)
		if t.Failed() {
			close(next)
			t.Fatalf("step %d (%d of %d)", i, i+1, len(steps))
		}
		settle(s.ext)
	}
	close(next)
	if warm < len(steps) {
		t.Fatalf("only %d of %d questions answered warm", warm, 2*len(steps))
	}
}
