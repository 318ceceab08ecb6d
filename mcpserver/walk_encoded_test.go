package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenthost/agenthost/mcpserver"
)

// TestEncodedOutputFitsSchema: walk writes its structured content itself
// (encoded once, not through the SDK's marshal-decode-validate-marshal);
// what it writes must be valid JSON that fits the output schema it
// declares in tools/list, hold every name exactly (quotes, HTML
// characters, a line break, U+2028), in path order, and say when it was
// cut.
func TestEncodedOutputFitsSchema(t *testing.T) {
	s := start(t, startOpts{})
	names := []string{"a<b>&c.txt", `q"uote.txt`, "back\\slash", "line\u2028sep", "x\nSPOOFED.txt", "sub/deep/f.go", "sub/g.go", "z.txt"}
	// Enough entries that the reply's values are lent to the transport
	// (see lender) rather than encoded by the SDK.
	for i := range 1200 {
		names = append(names, fmt.Sprintf("sub/many/<%04d> & \"q\"\n.txt", i))
	}
	for _, f := range names {
		mustWrite(t, filepath.Join(s.ws, f), "x")
	}
	tools, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var resolved *jsonschema.Resolved
	for _, tool := range tools.Tools {
		if tool.Name != "walk" {
			continue
		}
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sc jsonschema.Schema
		if err := json.Unmarshal(raw, &sc); err != nil {
			t.Fatal(err)
		}
		if resolved, err = sc.Resolve(nil); err != nil {
			t.Fatal(err)
		}
	}
	if resolved == nil {
		t.Fatal("walk declares no output schema")
	}
	want := []string{"a<b>&c.txt", "back\\slash", "line\u2028sep", `q"uote.txt`, "sub", "sub/deep", "sub/deep/f.go", "sub/g.go", "sub/many"}
	for i := range 1200 {
		want = append(want, fmt.Sprintf("sub/many/<%04d> & \"q\"\n.txt", i))
	}
	want = append(want, "x\nSPOOFED.txt", "z.txt")
	for _, c := range []struct {
		args      map[string]any
		n         int
		truncated bool
	}{
		{map[string]any{"maxEntries": 50000}, len(want), false},
		{map[string]any{"maxEntries": 3}, 3, true},
	} {
		res, err := s.callRaw("walk", c.args)
		if err != nil || res.IsError {
			t.Fatalf("walk %v: %v %s", c.args, err, resultText(res))
		}
		raw, ok := res.StructuredContent.(json.RawMessage)
		if !ok {
			raw, err = json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("structured content is not JSON: %v: %s", err, raw)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("walk %v: structured content does not fit the declared schema: %v\n%s", c.args, err, raw)
		}
		var out mcpserver.ListOut
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range out.Entries {
			got = append(got, e.Path)
			if wantType := map[bool]string{true: "directory", false: "file"}[e.Path == "sub" || e.Path == "sub/deep" || e.Path == "sub/many"]; e.Type != wantType {
				t.Errorf("%s: type %q, want %q", e.Path, e.Type, wantType)
			}
		}
		if !slices.IsSorted(got) || len(got) != c.n || out.Truncated != c.truncated || out.Root != s.ws {
			t.Errorf("walk %v: %q truncated=%v root=%s; want %d in order, truncated=%v", c.args, got, out.Truncated, out.Root, c.n, c.truncated)
		}
		if !c.truncated && !slices.Equal(got, want) {
			t.Errorf("walk: %q, want %q", got, want)
		}
		txt := resultText(res)
		if strings.Count(txt, "\n") != c.n+map[bool]int{true: 1}[c.truncated] || strings.Contains(txt, "\x00") {
			t.Errorf("walk %v text: %.300q", c.args, txt)
		}
		if !c.truncated && !strings.Contains(txt, `"sub/many/<0007> & \"q\"\n.txt"`+"\n") {
			t.Errorf("walk text lacks a quoted line: %.300q", txt)
		}
	}
}
