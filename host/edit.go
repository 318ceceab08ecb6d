package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Edit is one exact replacement of EditFile: OldText, exactly as it is in
// the file (whitespace and line breaks included), becomes NewText.
type Edit struct {
	// OldText is the text to find; it must not be empty.
	OldText string
	// NewText is the text put in its place.
	NewText string
	// ReplaceAll replaces every occurrence (at least one must exist)
	// instead of requiring exactly one.
	ReplaceAll bool
	// Expected, when positive, replaces every occurrence, and only if
	// there are exactly that many (with ReplaceAll or without). Zero
	// means exactly one, unless ReplaceAll; a negative count is refused.
	Expected int
}

// EditOptions shape EditFile; the zero value writes the edit.
type EditOptions struct {
	// DryRun computes the edit and its diff and writes nothing.
	DryRun bool
}

// EditResult is what EditFile did.
type EditResult struct {
	// Path is the canonical path of the file edited.
	Path string
	// Diff is the unified diff from the file as read to the file as
	// edited (both named Path, three lines of context as diff -u), or ""
	// when the edits change nothing.
	Diff string
	// Replacements is the number of occurrences replaced, all edits
	// counted.
	Replacements int
	// Written is true when the file was replaced: false for a dry run and
	// for edits that leave the contents as they were.
	Written bool
	// Stat is the file's stat after the write, or as read when nothing was
	// written.
	Stat FileStat
}

// Errors of EditFile's edits, wrapped by an *EditError (errors.Is sees
// them). The file is never written when one is returned.
var (
	// ErrEditInvalid: no edits, an empty OldText or a negative Expected.
	ErrEditInvalid = errors.New("invalid edit")
	// ErrEditNotFound: an OldText does not occur in the file (as the
	// edits before it left it).
	ErrEditNotFound = errors.New("text not found")
	// ErrEditAmbiguous: an OldText occurs more than once and the edit
	// sets neither ReplaceAll nor Expected.
	ErrEditAmbiguous = errors.New("text occurs more than once")
	// ErrEditCount: an OldText occurs a number of times other than the
	// edit's Expected.
	ErrEditCount = errors.New("text occurs a number of times other than expected")
	// ErrNotText: the file is not valid UTF-8, so an edit of its text
	// would change bytes the edit does not name.
	ErrNotText = errors.New("not valid UTF-8 text")
)

// EditError is EditFile's refusal of an edit: which one, why, and what
// the file holds that a caller (or a model) needs to correct it. Nothing
// was written.
type EditError struct {
	// Path is the canonical path of the file.
	Path string
	// Edit is the 1-based index of the edit refused, or 0 when the
	// refusal is of the whole call (no edits, a file that is not text).
	Edit int
	// Err is one of ErrEditInvalid, ErrEditNotFound, ErrEditAmbiguous,
	// ErrEditCount or ErrNotText.
	Err error
	// Count is how many times OldText occurs (ErrEditAmbiguous,
	// ErrEditCount; 0 for ErrEditNotFound).
	Count int
	// Expected is the edit's Expected (ErrEditCount, ErrEditInvalid).
	Expected int
	// Lines are the 1-based line numbers where OldText starts, at most 10
	// (ErrEditAmbiguous, ErrEditCount).
	Lines []int
	// Hint, for ErrEditNotFound, says what may be wrong when it can tell:
	// a match that differs only in whitespace or indentation, CRLF line
	// endings, or a first line that occurs with different lines after it.
	Hint string
	// Detail names what is invalid (ErrEditInvalid).
	Detail string
}

// Error says which edit was refused and why, with the lines and the hint.
func (e *EditError) Error() string {
	var b strings.Builder
	if e.Edit > 0 {
		fmt.Fprintf(&b, "edit %d: ", e.Edit)
	}
	switch e.Err {
	case ErrEditInvalid:
		fmt.Fprintf(&b, "%s: %s", e.Err, e.Detail)
	case ErrEditNotFound:
		fmt.Fprintf(&b, "OldText not found in %s", e.Path)
		if e.Hint != "" {
			fmt.Fprintf(&b, " (%s)", e.Hint)
		}
	case ErrEditAmbiguous:
		fmt.Fprintf(&b, "OldText occurs %d times in %s (at lines %s): give more context, ReplaceAll or Expected", e.Count, e.Path, joinLines(e.Lines))
	case ErrEditCount:
		fmt.Fprintf(&b, "OldText occurs %d times in %s (at lines %s), not the %d expected", e.Count, e.Path, joinLines(e.Lines), e.Expected)
	case ErrNotText:
		fmt.Fprintf(&b, "%s is %s", e.Path, e.Err)
	default:
		fmt.Fprintf(&b, "%s: %v", e.Path, e.Err)
	}
	b.WriteString("; nothing was written")
	return b.String()
}

// Unwrap returns Err.
func (e *EditError) Unwrap() error { return e.Err }

// errEditNoWrite tells UpdateFile to leave the file alone (a dry run, or
// edits that change nothing).
var errEditNoWrite = errors.New("no write")

// EditFile applies edits, in order, each to the text the ones before it
// left, to the regular file at path (see ResolveInJail for cwd and path),
// all or nothing, and returns the unified diff of the whole change. It is
// UpdateFile's read-modify-write: the file replaced is the file read, under
// its lock, so no WriteFile, UpdateFile or EditFile through any Host in any
// process is lost, and the file is replaced atomically (or not at all).
//
// Errors: an *EditError wrapping ErrEditInvalid, ErrEditNotFound,
// ErrEditAmbiguous, ErrEditCount or ErrNotText when an edit cannot be
// applied as asked (nothing written); one wrapping ErrChanged when a
// program outside agenthost wrote the file in between (nothing written);
// otherwise UpdateFile's (ErrEscape, fs.ErrNotExist, ErrNotRegular,
// ErrTooLarge, ...). A dry run, and edits that change nothing, write
// nothing and return the result with Written false. The invocation in ctx
// records a confirmed content change when the file is written.
func (h *Host) EditFile(ctx context.Context, cwd, path string, edits []Edit, opts EditOptions) (EditResult, error) {
	if len(edits) == 0 {
		return EditResult{}, &EditError{Path: path, Err: ErrEditInvalid, Detail: "no edits given"}
	}
	var res EditResult
	st, err := h.UpdateFile(ctx, cwd, path, func(r FileRead) ([]byte, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Path, res.Stat = r.Path, r.Stat
		out, n, err := applyEdits(r, edits)
		if err != nil {
			return nil, err
		}
		res.Replacements = n
		res.Diff = unifiedDiff(r.Path, r.Contents, out)
		if opts.DryRun || out == r.Contents {
			return nil, errEditNoWrite
		}
		return []byte(out), nil
	})
	switch {
	case err == nil:
		res.Written, res.Stat = true, st
		return res, nil
	case errors.Is(err, errEditNoWrite):
		return res, nil
	}
	return EditResult{}, err
}

// applyEdits applies the edits in order to r's contents, all or nothing,
// and returns the text and the number of occurrences replaced.
func applyEdits(r FileRead, edits []Edit) (string, int, error) {
	if int64(len(r.Contents)) != r.Stat.Size {
		// ReadFile's text has U+FFFD for each byte that is not UTF-8.
		return "", 0, &EditError{Path: r.Path, Err: ErrNotText}
	}
	out, total := r.Contents, 0
	for i, e := range edits {
		fail := func(err error) *EditError {
			return &EditError{Path: r.Path, Edit: i + 1, Err: err, Expected: e.Expected}
		}
		if e.OldText == "" {
			ee := fail(ErrEditInvalid)
			ee.Detail = "OldText is empty (to replace the whole file, write it)"
			return "", 0, ee
		}
		if e.Expected < 0 {
			ee := fail(ErrEditInvalid)
			ee.Detail = fmt.Sprintf("Expected is %d; it must be a positive count (or 0)", e.Expected)
			return "", 0, ee
		}
		n := strings.Count(out, e.OldText)
		switch {
		case n == 0:
			ee := fail(ErrEditNotFound)
			ee.Hint = notFoundHint(out, e.OldText)
			return "", 0, ee
		case e.Expected > 0 && n != e.Expected:
			ee := fail(ErrEditCount)
			ee.Count, ee.Lines = n, occurrenceLines(out, e.OldText, 10)
			return "", 0, ee
		case n > 1 && !e.ReplaceAll && e.Expected == 0:
			ee := fail(ErrEditAmbiguous)
			ee.Count, ee.Lines = n, occurrenceLines(out, e.OldText, 10)
			return "", 0, ee
		}
		out = strings.ReplaceAll(out, e.OldText, e.NewText) // n is 1, or every occurrence is meant
		total += n
	}
	return out, total, nil
}

// notFoundHint says what might be wrong with an oldText that does not
// occur: a match that differs only in whitespace or line endings, or a
// first line that occurs with other lines after it ("" when none).
func notFoundHint(content, old string) string {
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if strings.Contains(content, "\r\n") && !strings.Contains(old, "\r\n") && strings.Contains(content, strings.ReplaceAll(old, "\n", "\r\n")) {
		return "the file has CRLF line endings: use \\r\\n in the text"
	}
	if strings.Contains(squash(content), squash(old)) {
		return "a match exists that differs only in whitespace or indentation"
	}
	if first, _, _ := strings.Cut(strings.TrimSpace(old), "\n"); first != "" && strings.Contains(content, first) {
		return fmt.Sprintf("its first line occurs at line %s, but what follows differs", joinLines(occurrenceLines(content, first, 3)))
	}
	return ""
}

// occurrenceLines lists the 1-based line numbers where sub starts, at most
// max of them.
func occurrenceLines(s, sub string, max int) []int {
	var lines []int
	off, line := 0, 1
	for len(lines) < max {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			break
		}
		line += strings.Count(s[off:off+i], "\n")
		lines = append(lines, line)
		line += strings.Count(sub, "\n")
		off += i + len(sub)
	}
	return lines
}

// joinLines is line numbers as a list: "3, 7, 12".
func joinLines(lines []int) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, l)
	}
	return b.String()
}
