package exec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSandboxScrubsEnvClasses runs a real sandboxed command with every
// variable of scrubEnvCases in the environment it inherits, and reads the
// command's environment from outside it (/proc/<pid>/environ of the
// running process, found by its argv[0]), so a command cannot hide what
// it got: no credential of the table reached it, by name or by value,
// and every ordinary variable did.
func TestSandboxScrubsEnvClasses(t *testing.T) {
	if compareWith != "" {
		t.Skip("the table of our scrub, not another sandbox's")
	}
	f := newSBFixture(t)
	req := f.request("", f.sandbox())
	// The request's own variables (HOME, GIT_CONFIG_GLOBAL, GIT_AUTHOR_*,
	// ...) are passed as given and replace inherited ones; PATH stays the
	// test's so that the command can be found.
	own := map[string]bool{"PATH": true}
	for _, kv := range req.Env {
		name, _, _ := strings.Cut(kv, "=")
		own[name] = true
	}
	for _, c := range scrubEnvCases {
		name, val, _ := strings.Cut(c.kv, "=")
		if !own[name] {
			t.Setenv(name, val)
		}
	}

	marker := fmt.Sprintf("agenthost-envscrub-%d-%d", os.Getpid(), time.Now().UnixNano())
	req.Command = "exec -a " + marker + " sleep 60"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.r.Exec(ctx, req)
		done <- err
	}()
	defer func() {
		cancel()
		<-done
	}()

	environ, err := environOf(marker, done, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if name, val, ok := strings.Cut(string(kv), "="); ok {
			got[name] = val
		}
	}
	for _, c := range scrubEnvCases {
		name, val, _ := strings.Cut(c.kv, "=")
		switch {
		case own[name]:
		case c.drop:
			if _, ok := got[name]; ok {
				t.Errorf("%s: %s reached the command", c.class, name)
			}
			if len(val) >= 8 && bytes.Contains(environ, []byte(val)) {
				t.Errorf("%s: the value of %s reached the command", c.class, name)
			}
		case got[name] != val:
			t.Errorf("%s: %s reached the command as %q, want %q", c.class, name, got[name], val)
		}
	}
}

// environOf waits for the process whose argv[0] is marker and returns its
// /proc/<pid>/environ, as read from outside it.
func environOf(marker string, done <-chan error, timeout time.Duration) ([]byte, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			return nil, fmt.Errorf("the command ended before its environment was read: %v", err)
		default:
		}
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if _, err := strconv.Atoi(e.Name()); err != nil {
				continue
			}
			cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil {
				continue
			}
			if argv0, _, _ := bytes.Cut(cmdline, []byte{0}); string(argv0) != marker {
				continue
			}
			environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			if err != nil {
				return nil, fmt.Errorf("reading the command's environment from outside: %w", err)
			}
			return environ, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, fmt.Errorf("no process %q within %v", marker, timeout)
}
