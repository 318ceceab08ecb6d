// Package sniff tells text from binary data, one way for every front end
// of agenthost: MCP read_file and resources/read (mcpserver), and
// agent-host read --json. It links nothing but the standard library's
// unicode/utf8, so agent-host, which must not link net/http (ADR 0011),
// can use it.
package sniff

import (
	"bytes"
	"unicode/utf8"
)

// NULWindow is how many leading bytes are searched for a NUL byte: 8000,
// git's (xdiff's FIRST_FEW_BYTES in buffer_is_binary), so a file that
// git diff calls binary is binary here too.
const NULWindow = 8000

// controlWindow is how many leading bytes of text that is not UTF-8 are
// searched for control bytes: 512, as the WHATWG MIME sniffing standard
// (and net/http.DetectContentType, which follows it) looks at.
const controlWindow = 512

// IsText reports whether b, a file's contents or its first bytes, reads
// as text:
//
//   - false when a NUL byte lies in its first NULWindow bytes, as git
//     decides (a file of zero bytes, a UTF-16 file, an image, an
//     executable), although NUL is valid UTF-8;
//   - else true when b is valid UTF-8;
//   - else true when its first 512 bytes hold none of the bytes the
//     WHATWG MIME sniffing standard calls binary (0x00-0x08, 0x0B,
//     0x0E-0x1A, 0x1C-0x1F): Latin-1 prose, say, which read_file shows
//     with U+FFFD for the bytes that are not UTF-8;
//   - else false.
//
// An empty b is text. A prefix cut in the middle of a character still
// reads as text by the last rule.
func IsText(b []byte) bool {
	if bytes.IndexByte(b[:min(len(b), NULWindow)], 0) >= 0 {
		return false
	}
	if utf8.Valid(b) {
		return true
	}
	for _, c := range b[:min(len(b), controlWindow)] {
		if c <= 0x08 || c == 0x0B || 0x0E <= c && c <= 0x1A || 0x1C <= c && c <= 0x1F {
			return false
		}
	}
	return true
}
