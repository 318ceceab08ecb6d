package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenthost/agenthost/internal/rawname"
)

// Names that are not UTF-8 (see internal/rawname for the rule). A JSON
// string cannot hold a file name's bytes when they are not UTF-8: the
// encoder writes U+FFFD for each bad byte, and "a\xff" and "a\xfe" both
// come out "a\ufffd". So every answer's field X that holds a name or a
// path has a sibling X_b64, set only for such a name, holding its exact
// bytes in standard base64; and every argument that takes a path has a
// sibling X_b64 that, when given, is used instead of X; X must then be
// X_b64's bytes in text, as the listing gave it (see sameText). Handlers see
// neither: declare adds the arguments to the input schema, applyRawArgs
// puts their bytes in place before a handler runs, and fillRaw sets the
// answer's X_b64 fields from their X after it returns.

// pathArgs are the arguments that take a path, by JSON name: each gets a
// sibling NAME_b64 of the same shape (a string, or an array of strings).
var pathArgs = map[string]bool{"path": true, "source": true, "destination": true, "cwd": true, "paths": true, "files": true}

// rawArgDoc is the description of an argument NAME_b64.
func rawArgDoc(name string, array bool) string {
	if array {
		return fmt.Sprintf("for names that are not UTF-8: element i, when not empty, is the exact bytes of %s[i] in standard base64 (as a listing's path_b64 gives them), used instead of it; %s[i] must then be its text as the listing gave it", name, name)
	}
	return fmt.Sprintf("for a name that is not UTF-8: its exact bytes in standard base64 (as a listing's path_b64 gives them), used instead of %s, which must then be its text as the listing gave it (each byte that is not UTF-8 as U+FFFD)", name)
}

// addRawArgs gives sc, a tool's input schema, the sibling NAME_b64 of each
// path argument it has.
func addRawArgs(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	for name, p := range sc.Properties {
		if !pathArgs[name] || p == nil {
			continue
		}
		if _, ok := sc.Properties[name+rawname.Suffix]; ok {
			continue
		}
		switch {
		case p.Type == "string":
			sc.Properties[name+rawname.Suffix] = &jsonschema.Schema{Type: "string", Description: rawArgDoc(name, false)}
		case p.Type == "array" && p.Items != nil && p.Items.Type == "string":
			sc.Properties[name+rawname.Suffix] = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: rawArgDoc(name, true)}
		}
	}
}

// applyRawArgs puts into *in (a tool's decoded arguments, a struct) the
// bytes of each argument NAME_b64 that raw (the arguments as sent) holds:
// the field NAME gets the decoded bytes. A value that is not standard
// base64, or an array longer than NAME's, is an error naming the argument.
func applyRawArgs(raw json.RawMessage, in any) error {
	if len(raw) == 0 || !strings.Contains(string(raw), rawname.Suffix) {
		return nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return nil // not an object: the schema check has said so
	}
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	for key, val := range args {
		name, ok := strings.CutSuffix(key, rawname.Suffix)
		if !ok || !pathArgs[name] {
			continue
		}
		f := fieldByJSONName(v, name)
		if !f.IsValid() || !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			var s string
			if err := json.Unmarshal(val, &s); err != nil {
				return fmt.Errorf("argument %q must be a string of base64", key)
			}
			if s == "" {
				continue
			}
			b, err := rawname.Decode(s)
			if err != nil {
				return fmt.Errorf("argument %q: %w", key, err)
			}
			if err := sameText(key, name, f.String(), b); err != nil {
				return err
			}
			f.SetString(b)
		case reflect.Slice:
			if f.Type().Elem().Kind() != reflect.String {
				continue
			}
			var ss []string
			if err := json.Unmarshal(val, &ss); err != nil {
				return fmt.Errorf("argument %q must be an array of strings of base64", key)
			}
			if len(ss) > f.Len() {
				return fmt.Errorf("argument %q has %d elements, more than %q's %d: element i stands for %s[i]", key, len(ss), name, f.Len(), name)
			}
			for i, s := range ss {
				if s == "" {
					continue
				}
				b, err := rawname.Decode(s)
				if err != nil {
					return fmt.Errorf("argument %q, element %d: %w", key, i, err)
				}
				if err := sameText(fmt.Sprintf("%s[%d]", key, i), fmt.Sprintf("%s[%d]", name, i), f.Index(i).String(), b); err != nil {
					return err
				}
				f.Index(i).SetString(b)
			}
		}
	}
	return nil
}

// ErrRawMismatch is wrapped by the error for an argument X_b64 whose
// bytes are not what X says in text.
var ErrRawMismatch = errors.New("the bytes do not match the text argument")

// sameText checks that text, the argument X, is raw as JSON writes it
// (each byte that is not UTF-8 as U+FFFD), the form a listing gives
// beside X_b64. X_b64 may only say which bytes stand behind each U+FFFD,
// never name another file: a PreToolUse hook, or a log, that reads X sees
// the path the tool acts on.
func sameText(rawArg, textArg, text, raw string) error {
	if want := string([]rune(raw)); text != want {
		return fmt.Errorf("argument %q: %w: its bytes read %+q in text, but argument %q is %+q; send %q as a listing gives it, with %q beside it",
			rawArg, ErrRawMismatch, want, textArg, text, textArg, rawArg)
	}
	return nil
}

// fieldByJSONName is the field of struct v whose JSON name is name, or
// the zero Value.
func fieldByJSONName(v reflect.Value, name string) reflect.Value {
	t := v.Type()
	for i := range t.NumField() {
		if jsonName(t.Field(i)) == name {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	n, _, _ := strings.Cut(tag, ",")
	if n == "" {
		n = f.Name
	}
	return n
}

// rawFields is, for a struct type, the pairs (X, X_b64) of its string
// fields by index, and whether a value of the type can reach any (through
// fields, pointers, slices): types that cannot are not walked.
type rawFields struct {
	pairs   [][2]int
	descend []int // the fields (not strings) that may reach a pair
	reach   bool
}

var rawTypes sync.Map // reflect.Type -> *rawFields

// rawInfo is what fillRaw knows of t, computed once; a type that holds
// itself (a tree node) is seen as reaching what it reaches.
func rawInfo(t reflect.Type, visiting map[reflect.Type]bool) *rawFields {
	if ri, ok := rawTypes.Load(t); ok {
		return ri.(*rawFields)
	}
	ri := &rawFields{}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		if visiting[t] {
			return ri
		}
		visiting[t] = true
		ri.reach = rawInfo(t.Elem(), visiting).reach
		delete(visiting, t)
	case reflect.Struct:
		if visiting[t] {
			return &rawFields{reach: true} // a cycle: decided by the outer call
		}
		visiting[t] = true
		byName := map[string]int{}
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Type.Kind() == reflect.String {
				byName[jsonName(f)] = i
			}
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if n, ok := strings.CutSuffix(jsonName(f), rawname.Suffix); ok && f.Type.Kind() == reflect.String {
				if j, ok := byName[n]; ok {
					ri.pairs = append(ri.pairs, [2]int{j, i})
				}
				continue
			}
			if f.Type.Kind() != reflect.String && rawInfo(f.Type, visiting).reach {
				ri.reach = true
				ri.descend = append(ri.descend, i)
			}
		}
		if len(ri.pairs) > 0 {
			ri.reach = true
		}
		delete(visiting, t)
	default:
		return ri
	}
	rawTypes.Store(t, ri)
	return ri
}

// fillRaw sets, in the answer v points to, every empty string field X_b64
// to rawname.B64 of its sibling X: the exact bytes of each name that is
// not UTF-8, and nothing for one that is.
func fillRaw(v any) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return
	}
	fillRawValue(rv)
}

func fillRawValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			fillRawValue(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		n := v.Len()
		if n == 0 || !rawInfo(v.Type(), map[reflect.Type]bool{}).reach {
			return
		}
		for i := range n {
			fillRawValue(v.Index(i))
		}
	case reflect.Struct:
		ri := rawInfo(v.Type(), map[reflect.Type]bool{})
		if !ri.reach {
			return
		}
		for _, p := range ri.pairs {
			if f := v.Field(p[1]); f.CanSet() && f.String() == "" {
				f.SetString(rawname.B64(v.Field(p[0]).String()))
			}
		}
		for _, i := range ri.descend {
			fillRawValue(v.Field(i))
		}
	}
}

// appendRawName appends to b, a JSON object being written, the member
// ,"key":"..." with rawname.B64 of name when name is not UTF-8, and
// nothing when it is (the check is one pass over name's bytes).
func appendRawName(b []byte, key, name string) []byte {
	if utf8.ValidString(name) {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':', '"')
	b = base64.StdEncoding.AppendEncode(b, []byte(name))
	return append(b, '"')
}

// rawText is a name as a text answer shows it: as it is when it is UTF-8,
// else quoted as a Go string ("a\xff"), which keeps its bytes (a JSON
// string would turn each bad byte into U+FFFD).
func rawText(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	return strconv.Quote(name)
}

// isRawArg says whether n, a property of the input schema sc, is the
// NAME_b64 that addRawArgs added beside a path argument NAME.
func isRawArg(sc *jsonschema.Schema, n string) bool {
	name, ok := strings.CutSuffix(n, rawname.Suffix)
	if !ok || !pathArgs[name] {
		return false
	}
	_, ok = sc.Properties[name]
	return ok
}
