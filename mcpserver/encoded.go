package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addEncodedTool registers a tool as addTool does (the same schemas, hooks,
// invocation and errors), for a handler fn that encodes its structured
// output itself, as JSON that fits Out's schema (Out is only the schema's
// source, for tools/list). The SDK's typed handler marshals the output,
// decodes that again into maps and slices to check it against the schema,
// and marshals the maps once more: for a walk of 16,000 entries that was
// most of the call. Here the output is encoded once, by fn, and put in
// structuredContent as it is; the tests check that what fn writes fits the
// schema (TestEncodedOutputFitsSchema).
func addEncodedTool[In, Out any](s *Server, t *mcp.Tool, fn func(ctx context.Context, in In) (*mcp.CallToolResult, json.RawMessage, error)) {
	declare[In, Out](s, t)
	sc, ok := t.InputSchema.(*jsonschema.Schema)
	if !ok {
		panic(fmt.Sprintf("mcpserver: %s: input schema is a %T", t.Name, t.InputSchema))
	}
	rs, err := sc.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: %s: input schema: %v", t.Name, err))
	}
	hooks := len(s.opts.Hooks) > 0
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := decodeArguments[In](rs, req.Params.Arguments)
		if err == nil {
			err = applyRawArgs(req.Params.Arguments, &in)
		}
		if err != nil {
			return errorResult(err), nil
		}
		res, out, err := invoke(s, ctx, t.Name, req, in, hooks, fn)
		if err != nil {
			if wire, ok := err.(*jsonrpc.Error); ok {
				return nil, wire
			}
			return errorResult(err), nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if out != nil {
			if res.Content == nil {
				res.Content = []mcp.Content{&mcp.TextContent{Text: string(out)}}
			}
			res.StructuredContent = out
			if len(out) >= lendAbove && s.lending.Load() {
				// Large: past the SDK's encoder (see lender).
				res.StructuredContent = placeholder(s.lend.lend(out))
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok && len(tc.Text) >= lendAbove {
						// Room for the escapes: directory_tree's indented
						// JSON escapes some 15% of its bytes (quotes and
						// line breaks), so that a buffer of a fixed
						// margin would be grown, and copied, once more.
						tc.Text = s.lend.lend(appendJSONString(make([]byte, 0, escapedLen(tc.Text)), tc.Text))
					}
				}
			}
		}
		return res, nil
	})
}

// lendAbove is the size from which a result's values are lent to the
// transport rather than encoded by the SDK.
const lendAbove = 32 << 10

// decodeArguments is what the SDK's typed handler does with a call's
// arguments: defaults applied, checked against the input schema, decoded
// into In.
func decodeArguments[In any](rs *jsonschema.Resolved, raw json.RawMessage) (In, error) {
	var in In
	v := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return in, fmt.Errorf("unmarshaling arguments: %w", err)
		}
	}
	if err := rs.ApplyDefaults(&v); err != nil {
		return in, fmt.Errorf("applying schema defaults: %w", err)
	}
	if err := rs.Validate(&v); err != nil {
		return in, fmt.Errorf("validating \"arguments\": %v", err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return in, err
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, err
	}
	return in, nil
}

// errorResult is a tool result with isError set and err's text.
func errorResult(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// escapedLen is the length of appendJSONString's encoding of s, exactly,
// in one pass that writes nothing.
func escapedLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n++
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 5
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5 // one byte becomes \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 3 // three bytes become \u2028
		}
		i += size
	}
	return n
}

// appendJSONString appends s as encoding/json encodes a string, byte for
// byte (its appendString with HTML escaping: <, > and & escaped, U+2028
// and U+2029 escaped, invalid UTF-8 as U+FFFD), without json.Marshal's
// buffer and copy: runs of plain bytes are copied whole.
func appendJSONString(b []byte, s string) []byte { return appendQuoted(b, s, true) }

// appendJSText appends s as JSON.stringify writes a string: '"' and '\'
// escaped, control characters as \b, \f, \n, \r, \t or \u00xx, everything
// else as it is (no HTML escaping, U+2028 and U+2029 as they are). Each
// byte that is not UTF-8 is U+FFFD, as node decodes such a name.
func appendJSText(b []byte, s string) []byte { return appendQuoted(b, s, false) }

// appendQuoted is appendJSONString (goJSON) or appendJSText: the two
// differ only in <, > and &, U+2028 and U+2029, and in writing U+FFFD
// escaped or as it is.
func appendQuoted(b []byte, s string, goJSON bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!goJSON || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			if goJSON {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, "\ufffd"...)
			}
			start = i + size
		case goJSON && (r == '\u2028' || r == '\u2029'):
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
