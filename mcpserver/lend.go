package mcpserver

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
)

// A lender hands a reply's large values from a tool handler to the
// server's LineTransport without the SDK between them. The SDK encodes a
// tool's result with encoding/json, which copies and re-checks every
// json.RawMessage and every marshaled value on the way (a walk's
// structuredContent three times over, its text twice): for a walk of
// 16,000 entries that was 26 of its 58 ms. So a handler that encoded a
// value itself lends it: the result holds a placeholder, a JSON string
// with a random token, which the SDK encodes as it is, and the transport
// writes the lent bytes in its place as it writes the line. The bytes of
// the line are exactly those the SDK would have written but for the
// encoding of the values' insides.
//
// A value is lent only when the reply will pass through a LineTransport
// served by the same Server (Server.Run sets it) and no PostToolUse hook
// is configured (a hook must see the real result). A token is 128 random
// bits, made for one reply and forgotten when it is spliced, so nothing a
// client or a file holds can name a lent value. Values never spliced (the
// session ended before the reply was written) are dropped when Run ends.
type lender struct {
	mu   sync.Mutex
	lent map[string][]byte // token -> the value's JSON
}

// lentPrefix starts every placeholder as the SDK writes it: a JSON string
// whose first character is NUL, which no file name and no text of ours
// begins with.
const lentPrefix = `"\u0000lent:`

// lend keeps value (valid JSON, no raw line break) and returns the string
// whose JSON encoding the transport will replace with it.
func (l *lender) lend(value []byte) string {
	var tok [16]byte
	rand.Read(tok[:]) // never fails (crypto/rand)
	key := hex.EncodeToString(tok[:])
	l.mu.Lock()
	if l.lent == nil {
		l.lent = map[string][]byte{}
	}
	l.lent[key] = value
	l.mu.Unlock()
	return "\x00lent:" + key
}

// placeholder is lend's string as encoding/json writes it.
func placeholder(s string) json.RawMessage {
	q, _ := json.Marshal(s)
	return q
}

// splice returns result, an encoded reply's result, in parts with every
// lent value in place of its placeholder (result itself when it holds
// none), and forgets the values it spliced.
func (l *lender) splice(result []byte) [][]byte {
	if l == nil || !bytes.Contains(result, []byte(lentPrefix)) {
		return [][]byte{result}
	}
	var parts [][]byte
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		i := bytes.Index(result, []byte(lentPrefix))
		if i < 0 {
			break
		}
		rest := result[i+len(lentPrefix):]
		end := bytes.IndexByte(rest, '"')
		if end < 0 {
			break
		}
		v, ok := l.lent[string(rest[:end])]
		if !ok {
			parts = append(parts, result[:i+len(lentPrefix)])
			result = rest
			continue
		}
		delete(l.lent, string(rest[:end]))
		parts = append(parts, result[:i], v)
		result = rest[end+1:]
	}
	return append(parts, result)
}

// drop forgets every value lent and not spliced.
func (l *lender) drop() {
	l.mu.Lock()
	l.lent = nil
	l.mu.Unlock()
}
