package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/internal/rawname"
)

// rawNames makes, in dir, two files whose names differ only in a byte
// that is not UTF-8, each holding its own name, and returns the names;
// it skips when the file system refuses such names.
func rawNames(t *testing.T, dir string) []string {
	t.Helper()
	names := []string{"a\xff", "a\xfe"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("body of "+n), 0o644); err != nil {
			t.Skipf("the file system refuses a name that is not UTF-8: %v", err)
		}
	}
	// A system that stores names as UTF-16 (Windows) turns both into one.
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			t.Skipf("the file system does not keep a name that is not UTF-8: %v", err)
		}
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) < len(names) {
		t.Skipf("the file system does not keep names that differ only in bytes that are not UTF-8 (%v)", err)
	}
	return names
}

// TestJSONRawNames: walk --json lists two files whose names differ only in
// bytes that are not UTF-8 as two different entries, each with path_b64
// and abs_b64 holding its exact bytes, by which read opens it again;
// stat, resolve and read --json and an error's JSON carry the same field;
// a UTF-8 name gets none.
func TestJSONRawNames(t *testing.T) {
	w := newWorld(t)
	names := rawNames(t, w.ws)
	w.file("plain.txt", []byte("plain"))

	r := w.run("", "walk", "--json")
	if r.code != 0 {
		t.Fatalf("walk --json: %+v", r)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("walk --json line %q: %v", line, err)
		}
		p, _ := e["path"].(string)
		if p == "plain.txt" {
			if _, ok := e["path_b64"]; ok || strings.Contains(line, "_b64") {
				t.Fatalf("a UTF-8 name got a _b64 field: %s", line)
			}
			continue
		}
		if !strings.HasPrefix(p, "a") {
			continue
		}
		b64, _ := e["path_b64"].(string)
		raw, err := rawname.Decode(b64)
		if err != nil {
			t.Fatalf("walk --json %s: path_b64: %v", line, err)
		}
		absB64, _ := e["abs_b64"].(string)
		abs, err := rawname.Decode(absB64)
		if err != nil || abs != filepath.Join(w.ws, raw) {
			t.Fatalf("walk --json %s: abs_b64 is %q (%v), want %q", line, abs, err, filepath.Join(w.ws, raw))
		}
		seen[raw] = true
		// The decoded bytes name the file again: read gives its body.
		if rr := w.run("", "read", raw); rr.code != 0 || rr.stdout != "body of "+raw {
			t.Fatalf("read %q: %+v", raw, rr)
		}
	}
	for _, n := range names {
		if !seen[n] {
			t.Fatalf("walk --json did not carry %q losslessly (saw %v):\n%s", n, seen, r.stdout)
		}
	}

	want := rawname.B64(filepath.Join(w.ws, names[0]))
	for _, args := range [][]string{{"stat", "--json", names[0]}, {"resolve", "--json", names[0]}, {"read", "--json", names[0]}} {
		rr := w.run("", args...)
		var v map[string]any
		if rr.code != 0 || json.Unmarshal([]byte(rr.stdout), &v) != nil || v["path_b64"] != want {
			t.Fatalf("%s: path_b64 is not %q: %+v", strings.Join(args, " "), want, rr)
		}
	}
	if rr := w.run("", "stat", "--json", "plain.txt"); rr.code != 0 || strings.Contains(rr.stdout, "_b64") {
		t.Fatalf("stat --json of a UTF-8 name: %+v", rr)
	}
	// An error about such a path names it exactly too.
	rr := w.run("", "read", "--json", "missing\xff")
	var e map[string]any
	if json.Unmarshal([]byte(rr.stderr), &e) != nil || e["path_b64"] != rawname.B64("missing\xff") {
		t.Fatalf("read --json of a missing raw name: error without path_b64: %+v", rr)
	}
}
