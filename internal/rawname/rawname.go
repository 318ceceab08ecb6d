// Package rawname carries a file name through JSON without loss.
//
// A JSON string is Unicode text; a file name on Unix is any bytes but
// '/' and NUL. encoding/json writes a name that is not valid UTF-8 with
// each bad byte as U+FFFD, so "a\xff" and "a\xfe" both come out "a\ufffd":
// two files print the same, and neither can be named again from the
// answer. The rule every JSON form of agent-host follows (the CLI's
// --json, the MCP tools' answers and arguments): a field X that holds a
// name or a path keeps its text form (bad bytes as U+FFFD, readable by a
// client that knows nothing more), and when, and only when, X is not
// valid UTF-8 a sibling field X_b64 holds its exact bytes in standard
// base64 (RFC 4648, with padding). A valid UTF-8 name gets no X_b64, so
// answers about ordinary trees are as small as before. An argument X_b64,
// where a tool takes one, is used instead of X.
package rawname

import (
	"encoding/base64"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Suffix is what a field holding a name's raw bytes adds to the name of
// the field holding its text.
const Suffix = "_b64"

// B64 is the X_b64 of a name s: "" when s is valid UTF-8 (no field), else
// s's bytes in standard base64.
func B64(s string) string {
	if utf8.ValidString(s) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(s))
}

// ErrBadBase64 is wrapped by Decode's error for a value that is not
// standard base64.
var ErrBadBase64 = errors.New("not standard base64")

// Decode is the name an X_b64 value b64 holds: its bytes as they are. A
// value that is not standard base64 (padding included) gives an error
// that wraps ErrBadBase64.
func Decode(b64 string) (string, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadBase64, err)
	}
	return string(b), nil
}
