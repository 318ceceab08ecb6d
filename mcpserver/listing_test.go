package mcpserver_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agenthost/agenthost/mcpserver"
)

// TestListingNamesCannotLie: a file named "x\nSPOOFED.txt" is one entry of
// list_directory and walk: one quoted line of text, and its exact name in
// the structured content.
func TestListingNamesCannotLie(t *testing.T) {
	s := start(t, startOpts{})
	for _, f := range []string{"x\nSPOOFED.txt", "plain.txt", "sub/tab\there"} {
		mustWrite(t, filepath.Join(s.ws, f), "x")
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"list_directory", map[string]any{"path": "."}, []string{"plain.txt", "sub", "x\nSPOOFED.txt"}},
		{"walk", map[string]any{}, []string{"plain.txt", "sub", "sub/tab\there", "x\nSPOOFED.txt"}},
	} {
		res, err := s.callRaw(c.tool, c.args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", c.tool, err, resultText(res))
		}
		var out mcpserver.ListOut
		structured(t, res, &out)
		var got []string
		for _, e := range out.Entries {
			got = append(got, e.Path)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) || out.Root != s.ws {
			t.Errorf("%s structured: %q (root %s), want %q", c.tool, got, out.Root, c.want)
		}
		txt := resultText(res)
		if !strings.Contains(txt, `"x\nSPOOFED.txt"`+"\n") || strings.Contains(txt, "\nSPOOFED.txt") {
			t.Errorf("%s text: %q", c.tool, txt)
		}
		if lines := strings.Count(txt, "\n"); lines != len(c.want) {
			t.Errorf("%s: %d lines for %d entries: %q", c.tool, lines, len(c.want), txt)
		}
	}
}
