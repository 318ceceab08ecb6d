package host

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines surround each change in a hunk,
// as diff -u and git diff show by default.
const diffContext = 3

// maxDiffEdits bounds the Myers search: past this many inserted plus deleted
// lines the whole changed middle is shown as one replacement, which is a
// correct diff, only a less minimal one. The trace the search keeps grows
// with the square of the edits (8 MB at the bound); edits by a model touch a
// few lines, far below it.
const maxDiffEdits = 1000

// unifiedDiff returns the unified diff that turns a into b, with name as
// both file names, or "" when they are equal.
func unifiedDiff(name, a, b string) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", name, name)
	// Group ops into hunks: runs of changes with up to 2*diffContext equal
	// lines between them.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-diffContext, 0)
		for start < i && ops[start].kind != ' ' {
			start++
		}
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, run)
				break
			}
			end = run
		}
		writeHunk(&out, ops[start:end])
		i = end
	}
	return out.String()
}

func writeHunk(out *strings.Builder, ops []diffOp) {
	aStart, bStart, aN, bN := -1, -1, 0, 0
	for _, op := range ops {
		if op.kind != '+' {
			if aStart < 0 {
				aStart = op.a
			}
			aN++
		}
		if op.kind != '-' {
			if bStart < 0 {
				bStart = op.b
			}
			bN++
		}
	}
	// An empty range is named by the line before it (diff -u's rule).
	if aStart < 0 {
		aStart = ops[0].a - 1
	}
	if bStart < 0 {
		bStart = ops[0].b - 1
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aStart, aN), hunkRange(bStart, bN))
	for _, op := range ops {
		out.WriteByte(op.kind)
		out.WriteString(op.line)
		if !strings.HasSuffix(op.line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits s after each line break; a last line without one is
// kept as it is.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffOp is one line of a diff: kind ' ', '-' or '+', and the 0-based
// index of the line in a (for ' ' and '-') and in b (for ' ' and '+'); for
// an insertion a is the index of the next line of a, and for a deletion b
// that of the next line of b.
type diffOp struct {
	kind byte
	a, b int
	line string
}

// diffLines returns the edit script from a to b: the common prefix and
// suffix are stripped, and the middle is diffed with Myers' O(ND)
// algorithm (bounded by maxDiffEdits).
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', i, i, a[i]})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, diffOp{' ', ai, bi, a[ai]})
	}
	return ops
}

// myers diffs a and b (offset by a0, b0 in the whole files).
func myers(a, b []string, a0, b0 int) []diffOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(a, b, a0, b0)
	}
	maxD := min(n+m, maxDiffEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+4)
	// trace[d] holds v[k] for k in [-d-1, d+1] as it was when round d
	// began: what the walk back needs.
	var trace [][]int
	found := false
	for d := 0; d <= maxD && !found; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return replaceAll(a, b, a0, b0)
	}
	// Walk the trace back from (n, m).
	var rev []diffOp
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		vd := func(k int) int { return trace[d][k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && vd(k-1) < vd(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vd(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, diffOp{' ', a0 + x, b0 + y, a[x]})
		}
		if x == px {
			y--
			rev = append(rev, diffOp{'+', a0 + x, b0 + y, b[y]})
		} else {
			x--
			rev = append(rev, diffOp{'-', a0 + x, b0 + y, a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', a0 + x, b0 + y, a[x]})
	}
	ops := make([]diffOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}

func replaceAll(a, b []string, a0, b0 int) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	for i, l := range a {
		ops = append(ops, diffOp{'-', a0 + i, b0, l})
	}
	for i, l := range b {
		ops = append(ops, diffOp{'+', a0 + len(a), b0 + i, l})
	}
	return ops
}
