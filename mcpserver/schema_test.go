package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// strictSchemaProblems applies the rules of strict clients (single-type
// schema readers such as inspector --cli --strict) to one schema: every
// "type" one string and never "null", an object's required names among
// its properties, an array's items given, the top an object.
func strictSchemaProblems(at string, v any, top bool) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return []string{at + ": not an object"}
	}
	var out []string
	switch ty := m["type"].(type) {
	case string:
		if ty == "null" {
			out = append(out, at+`: type "null"`)
		}
		if top && ty != "object" {
			out = append(out, at+": the top is not an object")
		}
		if ty == "array" && m["items"] == nil {
			out = append(out, at+": an array without items")
		}
	case nil:
		if _, ref := m["$ref"]; !ref {
			out = append(out, at+": no type")
		}
	default:
		out = append(out, fmt.Sprintf("%s: type %v is not one string", at, ty))
	}
	props, _ := m["properties"].(map[string]any)
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				out = append(out, fmt.Sprintf("%s: required %q is not a property", at, r))
			}
		}
	}
	for k, p := range props {
		out = append(out, strictSchemaProblems(at+"."+k, p, false)...)
	}
	if it, ok := m["items"]; ok {
		out = append(out, strictSchemaProblems(at+"[]", it, false)...)
	}
	if defs, ok := m["$defs"].(map[string]any); ok {
		for k, d := range defs {
			out = append(out, strictSchemaProblems(at+".$defs."+k, d, false)...)
		}
	}
	return out
}

// want are the hints each tool must state: what it does, written out here
// independently of the server's table.
var wantHints = map[string]string{
	"read_file": "ro", "read_multiple_files": "ro", "read_media_file": "ro", "stat": "ro", "list_directory": "ro",
	"walk": "ro", "directory_tree": "ro", "search_files": "ro", "check_ignore": "ro", "list_roots": "ro",
	"write_file": "destructive idempotent", "edit_file": "destructive", "create_directory": "idempotent",
	"remove_file": "destructive idempotent", "move_file": "destructive", "send_user_file": "idempotent",
	"read_text_file": "ro", "get_file_info": "ro", "list_allowed_directories": "ro", "list_directory_with_sizes": "ro",
	"exec": "destructive openworld", "run_capture": "destructive openworld",
}

// TestToolSchemasStrict: every tool's input and output schema passes the
// strict rules with no problem, and its annotations state all four hints,
// truthfully: read-only tools are idempotent and not destructive, and so
// on (wantHints). The tools are listed by a real client of a real server.
func TestToolSchemasStrict(t *testing.T) {
	s := start(t, startOpts{args: []string{"--allow-exec"}})
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool)
		var m map[string]any
		json.Unmarshal(b, &m)
		probs := strictSchemaProblems(tool.Name+".inputSchema", m["inputSchema"], true)
		if o, ok := m["outputSchema"]; ok {
			probs = append(probs, strictSchemaProblems(tool.Name+".outputSchema", o, true)...)
		}
		for _, p := range probs {
			t.Error(p)
		}
		a, _ := m["annotations"].(map[string]any)
		var got []string
		for _, h := range []struct{ key, name string }{{"readOnlyHint", "ro"}, {"destructiveHint", "destructive"}, {"idempotentHint", "idempotent"}, {"openWorldHint", "openworld"}} {
			v, ok := a[h.key].(bool)
			if !ok {
				t.Errorf("%s: %s not stated (%v)", tool.Name, h.key, a)
			}
			if v && !(h.name == "idempotent" && a["readOnlyHint"] == true) {
				got = append(got, h.name)
			}
		}
		want, ok := wantHints[tool.Name]
		if !ok {
			t.Errorf("%s: no expected hints", tool.Name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: hints %q, want %q (%v)", tool.Name, strings.Join(got, " "), want, a)
		}
		if a["readOnlyHint"] == true && a["idempotentHint"] != true {
			t.Errorf("%s: read-only but not idempotent", tool.Name)
		}
	}
}

// TestBadArguments: a wrong argument is an error result that names it and
// says what it must be, never "<invalid reflect.Value>" nor a Go type.
func TestBadArguments(t *testing.T) {
	r := startRaw(t)
	for i, c := range []struct{ tool, args, want string }{
		{"read_file", `{"path":null}`, `argument "path" must be a string, not null`},
		{"read_file", `{"path":5}`, `argument "path" must be a string, not a number (5)`},
		{"read_file", `{}`, `missing argument "path"`},
		{"read_file", `null`, `missing argument "path"`},
		{"read_file", `"x"`, `must be an object of named arguments (head, path, tail), not a string`},
		{"read_file", `[1]`, `not an array`},
		{"read_file", `{"path":"x","head":"3"}`, `argument "head" must be a number, not a string ("3")`},
		{"read_file", `{"path":"x","head":1.5}`, `argument "head" must be a whole number, not 1.5`},
		{"read_file", `{"path":"x","head":1e30}`, `argument "head" is out of range (1e30)`},
		{"read_file", `{"path":"x","bogus":1}`, `unknown argument "bogus": read_file takes head, path, tail`},
		{"check_ignore", `{"paths":"a"}`, `argument "paths" must be an array, not a string ("a")`},
		{"check_ignore", `{"paths":null}`, `argument "paths" must be an array, not null`},
		{"read_multiple_files", `{"paths":["a",1]}`, `argument "paths[1]" must be a string, not a number (1)`},
		{"edit_file", `{"path":"x","edits":[{"oldText":1,"newText":"b"}]}`, `argument "edits[0].oldText" must be a string`},
		{"edit_file", `{"path":"x","edits":[{"oldText":"a"}]}`, `missing argument "edits[0].newText"`},
		{"edit_file", `{"path":"x","edits":[{"oldText":"a","newText":"b","x":1}]}`, `unknown argument "edits[0].x"`},
		{"edit_file", `{"path":"x","edits":[{"oldText":"a","newText":"b"}],"dryRun":"yes"}`, `argument "dryRun" must be true or false, not a string`},
		{"list_roots", `{"x":1}`, `unknown argument "x": list_roots takes no arguments`},
	} {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i, c.tool, c.args))
		var reply struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			} `json:"result"`
		}
		l := r.line()
		if err := json.Unmarshal([]byte(l), &reply); err != nil || !reply.Result.IsError || len(reply.Result.Content) == 0 {
			t.Errorf("%s %s: %s", c.tool, c.args, l)
			continue
		}
		txt := reply.Result.Content[0].Text
		if !strings.Contains(txt, c.want) || strings.Contains(txt, "reflect") || strings.Contains(txt, "Go value") || strings.Contains(txt, "mcpserver.") {
			t.Errorf("%s %s: %q, want %q", c.tool, c.args, txt, c.want)
		}
	}
}
