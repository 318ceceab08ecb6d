package mcpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenthost/agenthost/mcpserver"
)

// rawNamesIn makes, in dir, two files whose names differ only in a byte
// that is not UTF-8, each holding "body of NAME", and returns the names;
// it skips when the file system refuses such names.
func rawNamesIn(t *testing.T, dir string) []string {
	t.Helper()
	names := []string{"a\xff", "a\xfe"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body(n)), 0o644); err != nil {
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

// body is what rawNamesIn writes in the file named n: UTF-8 text that
// names it (read_file's text would lose a bad byte).
func body(n string) string { return fmt.Sprintf("body of %x", n) }

// rawOf decodes an X_b64 value, failing t on bad base64.
func rawOf(t *testing.T, b64 string) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("%q is not standard base64: %v", b64, err)
	}
	return string(b)
}

// TestRawNames: walk, list_directory, directory_tree and search_files
// list two files whose names differ only in bytes that are not UTF-8 as
// two entries, each with its exact bytes in X_b64, which read_file and
// stat take back as path_b64 to open that file and not the other; a UTF-8
// name gets no X_b64 field, in the structured content or the text; walk's
// self-encoded answer fits its declared schema.
func TestRawNames(t *testing.T) {
	s := start(t, startOpts{})
	names := rawNamesIn(t, s.ws)
	mustWrite(t, filepath.Join(s.ws, "plain.txt"), "plain")

	// readBack opens the file a listing named by its b64 bytes.
	readBack := func(tool, text, b64 string) string {
		t.Helper()
		raw := rawOf(t, b64)
		got := s.ok("read_file", map[string]any{"path": text, "path_b64": b64})
		if got != body(raw) {
			t.Fatalf("%s: read_file path_b64 %s (%q) gave %q, want the body of %q", tool, b64, raw, got, raw)
		}
		return raw
	}
	check := func(tool string, args map[string]any, list func(m map[string]any) []map[string]any, key string) {
		t.Helper()
		res, err := s.callRaw(tool, args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", tool, err, resultText(res))
		}
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, e := range list(m) {
			text, _ := e[key].(string)
			b64, has := e[key+"_b64"].(string)
			if text == "plain.txt" {
				if has {
					t.Errorf("%s: a UTF-8 name got %s_b64: %v", tool, key, e)
				}
				continue
			}
			if !has {
				t.Fatalf("%s: %q has no %s_b64: %s", tool, text, key, b)
			}
			seen[readBack(tool, text, b64)] = true
		}
		for _, n := range names {
			if !seen[n] {
				t.Fatalf("%s: %q not carried exactly (saw %v): %s", tool, n, seen, b)
			}
		}
		if strings.Contains(string(b), "root_b64") {
			t.Errorf("%s: a UTF-8 root got root_b64: %s", tool, b)
		}
	}
	entries := func(k string) func(m map[string]any) []map[string]any {
		return func(m map[string]any) []map[string]any {
			var out []map[string]any
			l, _ := m[k].([]any)
			for _, e := range l {
				em, _ := e.(map[string]any)
				out = append(out, em)
			}
			return out
		}
	}
	check("walk", map[string]any{}, entries("entries"), "path")
	check("list_directory", map[string]any{"path": "."}, entries("entries"), "path")
	check("directory_tree", map[string]any{}, entries("entries"), "name")
	check("search_files", map[string]any{"pattern": "a*"}, entries("matches"), "path")

	// directory_tree's text is its entries as JSON: name_b64 there too.
	if txt := s.ok("directory_tree", map[string]any{}); !strings.Contains(txt, `"name_b64": "`+base64.StdEncoding.EncodeToString([]byte(names[0]))+`"`) {
		t.Errorf("directory_tree text lacks name_b64: %s", txt)
	}

	// stat answers path_b64 of the canonical path, only for a raw name.
	res, err := s.callRaw("stat", map[string]any{"path": "a\ufffd", "path_b64": base64.StdEncoding.EncodeToString([]byte(names[1]))})
	if err != nil || res.IsError {
		t.Fatalf("stat path_b64: %v %s", err, resultText(res))
	}
	var fi mcpserver.FileInfo
	structured(t, res, &fi)
	if fi.PathB64 == "" || rawOf(t, fi.PathB64) != filepath.Join(s.ws, names[1]) {
		t.Fatalf("stat path_b64: %+v, want the bytes of %q", fi, filepath.Join(s.ws, names[1]))
	}
	// Its text quotes the path as Go does, which keeps the bytes.
	if txt := resultText(res); !strings.Contains(txt, strconv.Quote(filepath.Join(s.ws, names[1]))) {
		t.Errorf("stat text does not quote the raw path: %q", txt)
	}
	res, _ = s.callRaw("stat", map[string]any{"path": "plain.txt"})
	if b, _ := json.Marshal(res.StructuredContent); strings.Contains(string(b), "_b64") {
		t.Errorf("stat of a UTF-8 name: %s", b)
	}
	// check_ignore takes paths_b64 and answers path_b64.
	res, err = s.callRaw("check_ignore", map[string]any{"paths": []string{"a\ufffd", "plain.txt"}, "paths_b64": []string{base64.StdEncoding.EncodeToString([]byte(names[0]))}})
	if err != nil || res.IsError {
		t.Fatalf("check_ignore paths_b64: %v %s", err, resultText(res))
	}
	var ci mcpserver.CheckIgnoreOut
	structured(t, res, &ci)
	if len(ci.Results) != 2 || ci.Results[0].PathB64 == "" || rawOf(t, ci.Results[0].PathB64) != names[0] || ci.Results[1].PathB64 != "" {
		t.Fatalf("check_ignore: %+v", ci)
	}
	// path_b64 says which bytes stand behind each U+FFFD of path, never
	// another file: a hook that reads path sees what the tool opens.
	s.fails("read_file", map[string]any{"path": "plain.txt", "path_b64": base64.StdEncoding.EncodeToString([]byte(names[0]))}, "path_b64", `"a\ufffd"`)
	s.fails("read_file", map[string]any{"path": "a\ufffd", "path_b64": base64.StdEncoding.EncodeToString([]byte("plain.txt"))}, "path_b64")
	s.fails("check_ignore", map[string]any{"paths": []string{"x"}, "paths_b64": []string{base64.StdEncoding.EncodeToString([]byte(names[0]))}}, "paths_b64[0]")
	// Bad base64 is refused, naming the argument.
	s.fails("read_file", map[string]any{"path": "x", "path_b64": "not base64!"}, "path_b64", "base64")

	// Every argument that takes a path has its _b64 sibling.
	tools, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var sc jsonschema.Schema
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"path", "source", "destination", "paths"} {
			if _, ok := sc.Properties[p]; ok {
				if _, ok := sc.Properties[p+"_b64"]; !ok {
					t.Errorf("%s takes %s but not %s_b64", tool.Name, p, p)
				}
			}
		}
		if tool.Name != "walk" {
			continue
		}
		// walk encodes its answer itself: it must fit its schema.
		b, _ = json.Marshal(tool.OutputSchema)
		var osc jsonschema.Schema
		if err := json.Unmarshal(b, &osc); err != nil {
			t.Fatal(err)
		}
		rs, err := osc.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.callRaw("walk", map[string]any{})
		if err != nil || res.IsError {
			t.Fatalf("walk: %v", err)
		}
		var v map[string]any
		structured(t, res, &v)
		if err := rs.Validate(v); err != nil {
			t.Fatalf("walk's answer does not fit its schema: %v", err)
		}
	}
}
