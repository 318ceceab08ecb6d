package mcpserver

import (
	"encoding/base64"
	"unicode/utf8"
)

// treeWriter writes directory_tree's JSON as the entries of a sorted walk
// come (a directory's entry, then everything below it, each directory's
// names in byte order), with no node kept: the array of the top entries,
// each a {name, name_b64, type, children} object. Indented, it is the
// text answer, byte for byte what the reference server writes
// (JSON.stringify(tree, null, 2)); compact, it is the entries of the
// structured content, escaped as encoding/json escapes.
//
// A directory's children are decided by the entry after it: one a level
// deeper opens its array; any other closes the directory with
// "children": [] when the walk entered it (below maxDepth), without the
// field when it did not.
type treeWriter struct {
	b        []byte
	indent   bool
	maxDepth int // the walk's: a directory at that depth was not entered (0: none)
	open     int // the children arrays open, the top array not counted
	any      bool
	pending  int // the depth of the directory whose object is still open, 0 for none
}

// appendIndent appends a line break and level steps of two spaces.
func (w *treeWriter) newline(level int) {
	if !w.indent {
		return
	}
	w.b = append(w.b, '\n')
	for range level {
		w.b = append(w.b, ' ', ' ')
	}
}

// member appends the member key of a node at depth d, after a comma when
// it is not the first.
func (w *treeWriter) member(d int, first bool, key string) {
	if !first {
		w.b = append(w.b, ',')
	}
	w.newline(2 * d)
	w.b = append(w.b, '"')
	w.b = append(w.b, key...)
	w.b = append(w.b, '"', ':')
	if w.indent {
		w.b = append(w.b, ' ')
	}
}

// str appends s as a JSON string: as JSON.stringify writes it for the
// text, as encoding/json does for the structured content.
func (w *treeWriter) str(s string) {
	if w.indent {
		w.b = appendJSText(w.b, s)
	} else {
		w.b = appendJSONString(w.b, s)
	}
}

// closePending closes the open directory object, if any: its children
// ([] when entered, the field left out when known unknown).
func (w *treeWriter) closePending(entered bool) {
	if w.pending == 0 {
		return
	}
	d := w.pending
	if entered && (w.maxDepth == 0 || d < w.maxDepth) {
		w.member(d, false, "children")
		w.b = append(w.b, '[', ']')
	}
	w.newline(2*d - 1)
	w.b = append(w.b, '}')
	w.pending = 0
}

// entry writes the node of name, a directory or not, at depth d (1 for the
// top entries). Its parent's entry came before it.
func (w *treeWriter) entry(name string, isDir bool, d int) {
	if w.pending != 0 && d == w.pending+1 {
		// The first child of the open directory.
		w.member(w.pending, false, "children")
		w.b = append(w.b, '[')
		w.open++
		w.pending = 0
		w.any = false
	} else {
		w.closePending(true)
		for w.open > d-1 {
			w.newline(2 * w.open)
			w.b = append(w.b, ']')
			w.newline(2*w.open - 1)
			w.b = append(w.b, '}')
			w.open--
			w.any = true
		}
	}
	if w.any {
		w.b = append(w.b, ',')
	}
	w.any = true
	w.newline(2*d - 1)
	w.b = append(w.b, '{')
	w.member(d, true, "name")
	w.str(name)
	if !utf8.ValidString(name) {
		w.member(d, false, "name_b64")
		w.b = appendB64(w.b, name)
	}
	w.member(d, false, "type")
	if isDir {
		w.b = append(w.b, `"directory"`...)
		w.pending = d
		return
	}
	w.b = append(w.b, `"file"`...)
	w.newline(2*d - 1)
	w.b = append(w.b, '}')
}

// finish closes every open object and array. cut says the walk stopped
// before its end: the last directory's entries are then not known, and it
// gets no children.
func (w *treeWriter) finish(cut bool) {
	w.closePending(!cut)
	for w.open > 0 {
		w.newline(2 * w.open)
		w.b = append(w.b, ']')
		w.newline(2*w.open - 1)
		w.b = append(w.b, '}')
		w.open--
		w.any = true
	}
	if w.any {
		w.newline(0)
	}
	w.b = append(w.b, ']')
}

// appendB64 appends the exact bytes of s in standard base64, as a JSON
// string.
func appendB64(b []byte, s string) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, []byte(s))
	return append(b, '"')
}
