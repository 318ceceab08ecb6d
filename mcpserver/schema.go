package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hints are the annotations of every tool, in one table: what each does to
// the machine. A tool's own Annotations are replaced by its row (addTool);
// TestToolAnnotations checks that every tool the server offers has one.
//
//   - Read-only tools change nothing, so calling one again has no further
//     effect: idempotent.
//   - destructive: may replace or remove what was there (write_file
//     replaces a file, edit_file rewrites one, remove_file removes one,
//     move_file takes the source's name away from it, a command may do
//     anything). create_directory and send_user_file (copies into the
//     outbox) only add.
//   - idempotent: the same call again changes nothing more (the same
//     contents written, the directory exists, the file is gone, the staged
//     copy is reused). edit_file is not (a replace_all edit applies again
//     to what it wrote), nor move_file (the second call fails, and a file
//     made at the source in between is moved over), nor a command.
//   - open world: only a command reaches past the roots.
var hints = map[string]hint{
	"read_file":           readOnly,
	"read_multiple_files": readOnly,
	"read_media_file":     readOnly,
	"stat":                readOnly,
	"list_directory":      readOnly,
	"walk":                readOnly,
	"directory_tree":      readOnly,
	"search_files":        readOnly,
	"check_ignore":        readOnly,
	"list_roots":          readOnly,
	"write_file":          {destructive: true, idempotent: true},
	"edit_file":           {destructive: true},
	"create_directory":    {idempotent: true},
	"remove_file":         {destructive: true, idempotent: true},
	"move_file":           {destructive: true},
	"send_user_file":      {idempotent: true},
	"exec":                {destructive: true, openWorld: true},
	"run_capture":         {destructive: true, openWorld: true},
}

type hint struct{ readOnly, destructive, idempotent, openWorld bool }

var readOnly = hint{readOnly: true, idempotent: true}

// annotations is h as the protocol carries it, every hint stated.
func (h hint) annotations() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		ReadOnlyHint:    h.readOnly,
		DestructiveHint: new(h.destructive),
		IdempotentHint:  h.idempotent,
		OpenWorldHint:   new(h.openWorld),
	}
}

// declare completes t before it is registered: its row of hints (a tool
// without one keeps what it declares), the argument NAME_b64 beside each
// argument that takes a path (see rawnames.go), and
// input and output schemas inferred from In and Out (no output schema when
// Out is any) with a single type for every value, which clients that
// accept only one type per schema (inspector --strict) require. It keeps
// the input schema for checkArguments.
func declare[In, Out any](s *Server, t *mcp.Tool) {
	if h, ok := hints[t.Name]; ok {
		t.Annotations = h.annotations()
	} else if h, ok := referenceHints[t.Name]; ok {
		t.Annotations = h.annotations()
	}
	if t.InputSchema == nil {
		t.InputSchema = strictSchema[In]()
	}
	if t.OutputSchema == nil && reflect.TypeFor[Out]() != reflect.TypeFor[any]() {
		t.OutputSchema = strictSchema[Out]()
	}
	if in, ok := t.InputSchema.(*jsonschema.Schema); ok {
		addRawArgs(in) // path_b64 beside path (rawnames.go)
		s.schemasMu.Lock()
		s.schemas[t.Name] = in
		s.schemasMu.Unlock()
	}
}

// strictSchema is T's inferred schema with every ["null", X] type made X:
// a Go slice or map may be nil, but a client must send an array or an
// object (or leave the argument out).
func strictSchema[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", reflect.TypeFor[T](), err))
	}
	singleTypes(sc)
	return sc
}

func singleTypes(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	if len(sc.Types) > 0 {
		if ts := slices.DeleteFunc(slices.Clone(sc.Types), func(t string) bool { return t == "null" }); len(ts) == 1 {
			sc.Type, sc.Types = ts[0], nil
		}
	}
	for _, p := range sc.Properties {
		singleTypes(p)
	}
	singleTypes(sc.Items)
	singleTypes(sc.AdditionalProperties)
}

// checkArguments answers a tools/call whose arguments do not fit the
// tool's input schema with a result that names the argument and says what
// it must be ("argument \"path\" must be a string, not null"), before the
// SDK's own check, whose messages name schema paths and Go types.
func (s *Server) checkArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		select {
		case <-s.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok || p == nil {
			return next(ctx, method, req)
		}
		s.schemasMu.Lock()
		sc := s.schemas[p.Name]
		s.schemasMu.Unlock()
		if sc == nil {
			return next(ctx, method, req)
		}
		if err := checkArgs(p.Name, sc, p.Arguments); err != nil {
			res := &mcp.CallToolResult{}
			res.SetError(err)
			return res, nil
		}
		return next(ctx, method, req)
	}
}

// checkArgs checks raw, a tool's arguments, against sc.
func checkArgs(tool string, sc *jsonschema.Schema, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return fmt.Errorf("the arguments of %s must be an object of named arguments (%s), not %s", tool, strings.TrimPrefix(names(sc), "no arguments"), kind(raw))
	}
	return checkObject("", sc, raw, tool)
}

func names(sc *jsonschema.Schema) string {
	if len(sc.Properties) == 0 {
		return "no arguments"
	}
	ns := make([]string, 0, len(sc.Properties))
	for n := range sc.Properties {
		if isRawArg(sc, n) {
			continue // path_b64 is said in the schema, not in every message
		}
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return strings.Join(ns, ", ")
}

func checkObject(at string, sc *jsonschema.Schema, raw json.RawMessage, tool string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("argument %s is not valid JSON: %v", argName(at, tool), err)
	}
	for _, r := range sc.Required {
		if _, ok := m[r]; !ok {
			d := ""
			if p := sc.Properties[r]; p != nil && p.Description != "" {
				d = ": " + p.Description
			}
			return fmt.Errorf("missing argument %q%s", join(at, r), d)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p, ok := sc.Properties[k]
		if !ok {
			if sc.AdditionalProperties != nil && sc.AdditionalProperties.Not != nil {
				where := tool + " takes"
				if at != "" {
					where = fmt.Sprintf("%q takes", at)
				}
				return fmt.Errorf("unknown argument %q: %s %s", join(at, k), where, names(sc))
			}
			continue
		}
		if err := checkValue(join(at, k), p, m[k], tool); err != nil {
			return err
		}
	}
	return nil
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

func argName(at, tool string) string {
	if at == "" {
		return "of " + tool
	}
	return fmt.Sprintf("%q", at)
}

// checkValue checks one argument (at names it: "paths[2]", "edits[0].oldText").
func checkValue(at string, sc *jsonschema.Schema, raw json.RawMessage, tool string) error {
	want := sc.Type
	if want == "" {
		return nil // a schema of any type
	}
	bad := func(what string) error {
		k := kind(raw)
		if k != "a string" && k != "a number" {
			return fmt.Errorf("argument %q must be %s, not %s", at, what, k)
		}
		v := string(raw)
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return fmt.Errorf("argument %q must be %s, not %s (%s)", at, what, k, v)
	}
	switch want {
	case "string":
		if raw[0] != '"' {
			return bad("a string")
		}
	case "boolean":
		if string(raw) != "true" && string(raw) != "false" {
			return bad("true or false")
		}
	case "integer", "number":
		if kind(raw) != "a number" {
			return bad("a number")
		}
		if want == "integer" {
			var f float64
			if err := json.Unmarshal(raw, &f); err != nil || math.IsInf(f, 0) || f > math.MaxInt64 || f < math.MinInt64 {
				return fmt.Errorf("argument %q is out of range (%s)", at, raw)
			}
			if f != math.Trunc(f) {
				return fmt.Errorf("argument %q must be a whole number, not %s", at, raw)
			}
		}
	case "array":
		if raw[0] != '[' {
			return bad("an array")
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return bad("an array")
		}
		for i, e := range elems {
			if sc.Items != nil {
				if err := checkValue(fmt.Sprintf("%s[%d]", at, i), sc.Items, e, tool); err != nil {
					return err
				}
			}
		}
	case "object":
		if raw[0] != '{' {
			return bad("an object")
		}
		return checkObject(at, sc, raw, tool)
	}
	return nil
}
