package walk

import (
	"bytes"
	"context"
	"math/bits"
	"strings"
	"unsafe"
)

// This file parses and matches one ignore file (a .gitignore, info/exclude
// or the global excludes file). It never touches the filesystem: the
// walker and IsIgnored hand it bytes and relative paths.

// maxIgnoreFileSize is git's PATTERN_MAX_FILE_SIZE: a larger ignore file is
// skipped entirely (git warns "ignoring excessively large pattern file").
const maxIgnoreFileSize = 100 << 20

// Rule flags, as gitignore(5) reads a line.
const (
	ruleNegative  uint8 = 1 << iota // "!pattern"
	ruleMustBeDir                   // "pattern/": directories only
	ruleNoDir                       // no '/' inside: matched against the basename
	ruleEndsWith                    // "*literal": a suffix compare suffices
)

// rule is one pattern line, compiled: 64 bytes, its strings pieces of
// the one copy of the file its ruleSet shares.
type rule struct {
	pattern string // without '!', the trailing '/' and (for path rules) the leading '/'
	text    string // the line as written (after trimming), for diagnostics
	// need, for a glob, is a run of literal bytes every matching text
	// holds (see requiredLiteral): a text without it is refused before
	// the glob engine runs. "" when there is none, or with case folding.
	need   string
	prefix int32 // length of the literal prefix of pattern
	line   int32 // 1-based line number in its file
	flags  uint8
	kind   ruleKind // which of its ruleSet's lists holds it
}

// ruleSize is what one rule takes in a ruleSet's list.
const ruleSize = int(unsafe.Sizeof(rule{}))

// ruleKind says how a rule is found: by a map keyed by the name, by the
// extension (then matched), by the path, or tried as a glob.
type ruleKind uint8

const (
	kindName ruleKind = iota
	kindExt
	kindPath
	kindGlob
)

// ruleSet is one ignore file compiled for one directory. Rules are tried
// last to first and the first that matches decides; the maps find the
// candidates for literal names, extensions and literal paths without trying
// every glob.
type ruleSet struct {
	source string // file the rules came from, for diagnostics
	base   string // directory of the file relative to the repository root: "" or "dir/sub/"
	fold   bool   // core.ignorecase: keys below are ASCII-lower-cased
	rules  []rule

	// The maps hold, for each key, the last rule with it; same[i] is the
	// rule before i with i's key (-1: none), so the candidates for a key
	// are a chain from last to first, with no list allocated per key.
	byName map[string]int32 // literal basename patterns ("node_modules", "Makefile/")
	byExt  map[string]int32 // basename globs ending in ".ext" ("*.ext"), keyed by what follows the last '.'
	byPath map[string]int32 // literal path patterns ("/build", "docs/out")
	same   []int32          // by rule: the previous rule with its key
	globs  []int32          // everything else, in file order

	hasDirOnly bool // some rule ends in '/': the answer may depend on the type
	needsPath  bool // some rule is matched against the path, not just the basename

	// nmBits, extBits and pthBits have keyBit(k) set for each key k of
	// byName, byExt and byPath (flat.go's filter): match looks up no key
	// whose bit is clear, and most names are in none of the maps.
	// nmBits2, extBits2 and pthBits2 have keyBit2 of each key (of a
	// path's last component), a second bit for the walk's ruleFilter.
	// All bits are set with plain.
	nmBits, extBits, pthBits    uint64
	nmBits2, extBits2, pthBits2 uint64

	// plain, set by tests, compiles every rule as written: no "**/name"
	// rewritten to "name", no required-literal filter and no extension
	// key for a glob that is not "*literal", so that the tests can hold
	// these shortcuts to the plain matcher.
	plain bool
}

// parseRules compiles the contents of an ignore file whose directory is
// base (relative to the repository root, "" or ending in '/'). It follows
// git's reader: a UTF-8 BOM is skipped, lines end at LF with an optional CR
// before it, blank lines and lines starting with '#' are skipped, a line is
// cut at a NUL byte, and unescaped trailing spaces are trimmed.
//
// The rules' texts share data's memory: data must not be modified after.
func parseRules(data []byte, source, base string, fold bool) *ruleSet {
	rs, _ := parseRulesCtx(context.Background(), data, source, base, fold)
	return rs
}

// parseRulesCtx is parseRules that stops when ctx ends: it looks at ctx
// every parseCheckLines lines and then returns nil and ctx.Err(). A file
// of parseAsideBytes or more is compiled on a goroutine of its own, and
// parseRulesCtx returns as soon as ctx ends, whatever that goroutine is
// doing: it stops at its next look at ctx, keeping nothing.
func parseRulesCtx(ctx context.Context, data []byte, source, base string, fold bool) (*ruleSet, error) {
	rs := &ruleSet{source: source, base: base, fold: fold}
	if len(data) < parseAsideBytes || ctx.Done() == nil {
		return parseRulesAsCtx(ctx, rs, data)
	}
	type compiled struct {
		rs  *ruleSet
		err error
	}
	done := make(chan compiled, 1)
	go func() {
		rs, err := parseRulesAsCtx(ctx, rs, data)
		done <- compiled{rs, err}
	}()
	select {
	case r := <-done:
		return r.rs, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// parseAsideBytes is the size from which an ignore file is compiled
// aside (see parseRulesCtx), some 80,000 rules: a compile has steps that
// cannot look at the context, the one allocation of the rule list above
// all (64 bytes a rule: half a GiB for a file of git's largest size, 100
// MiB, and the collector's assist it brings), which took up to 2 s after
// a cancel on a loaded machine.
const parseAsideBytes = 1 << 20

// parseCheckLines is how many lines parseRulesCtx compiles between two
// looks at its context: about a millisecond's work.
const parseCheckLines = 4096

// parseRulesAs is parseRules into rs (empty, its fields set).
func parseRulesAs(rs *ruleSet, data []byte) *ruleSet {
	rs, _ = parseRulesAsCtx(context.Background(), rs, data)
	return rs
}

// parseRulesAsCtx is parseRulesCtx into rs (empty, its fields set).
func parseRulesAsCtx(ctx context.Context, rs *ruleSet, data []byte) (*ruleSet, error) {
	if len(data) > maxIgnoreFileSize {
		return rs, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	// The list is sized once, for the lines that may hold a rule (a file
	// of a million rules would otherwise copy it some twenty times over).
	n := 0
	for lines, rest := 0, data; len(rest) > 0; lines++ {
		if lines%(16*parseCheckLines) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(line) > 0 && line[0] != '#' {
			n++
		}
	}
	rs.rules = make([]rule, 0, n)
	rs.same = make([]int32, 0, n)
	// The rules' texts are pieces of the file's bytes, which the caller
	// keeps unchanged (the Cache holds them as the file's contents): no
	// copy, and no allocation a line.
	str := unsafe.String(unsafe.SliceData(data), len(data))
	for lineno, at := 1, 0; at < len(data); lineno++ {
		if lineno%parseCheckLines == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		line := data[at:]
		start := at
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
			at += i + 1
		} else {
			at = len(data)
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if i := bytes.IndexByte(line, 0); i >= 0 {
			line = line[:i]
		}
		rs.add(str[start:start+len(trimTrailingSpaces(line))], lineno)
	}
	if err := rs.index(ctx); err != nil {
		return nil, err
	}
	return rs, nil
}

// index fills byName, byExt and byPath (and same) from the rules' kinds,
// each map made once at the size of its rules (a map grown one key at a
// time rehashes its keys some twenty times over for a million of them).
// It stops when ctx ends.
func (rs *ruleSet) index(ctx context.Context) error {
	var nName, nExt, nPath int
	for i := range rs.rules {
		switch rs.rules[i].kind {
		case kindName:
			nName++
		case kindExt:
			nExt++
		case kindPath:
			nPath++
		}
	}
	if nName > 0 {
		rs.byName = make(map[string]int32, nName)
	}
	if nExt > 0 {
		rs.byExt = make(map[string]int32, nExt)
	}
	if nPath > 0 {
		rs.byPath = make(map[string]int32, nPath)
	}
	for i := range rs.rules {
		if i%parseCheckLines == parseCheckLines-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := &rs.rules[i]
		var m map[string]int32
		var k string
		switch r.kind {
		case kindName:
			m, k = rs.byName, r.pattern
		case kindExt:
			m, k = rs.byExt, rs.extKey(r)[1:]
		case kindPath:
			m, k = rs.byPath, r.pattern
		default:
			continue
		}
		if rs.fold {
			k = lowerASCII(k)
		}
		if prev, ok := m[k]; ok {
			rs.same[i] = prev
		}
		m[k] = int32(i)
	}
	return nil
}

// cost is an over-estimate of the bytes rs holds beyond the file's
// contents (which its strings share): its lists and maps, for the
// Cache's bound. A map slot is counted at 64 bytes (key header, value,
// control byte, and the growth slack of a table at 7/8 load at most
// half-used after doubling).
func (rs *ruleSet) cost() int {
	if rs == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*rs)) + cap(rs.rules)*ruleSize + 4*cap(rs.same) + 4*cap(rs.globs)
	return n + 64*(len(rs.byName)+len(rs.byExt)+len(rs.byPath))
}

// trimTrailingSpaces drops trailing spaces unless a backslash quotes them.
// A line ending in a lone backslash keeps its spaces (and never matches).
func trimTrailingSpaces(b []byte) []byte {
	lastSpace := -1
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(b) {
				return b
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return b[:lastSpace]
	}
	return b
}

// add compiles one pattern line.
func (rs *ruleSet) add(text string, lineno int) {
	r := rule{line: int32(lineno), text: text}
	p := text
	if strings.HasPrefix(p, "!") {
		r.flags |= ruleNegative
		p = p[1:]
	}
	n := len(p)
	if n > 0 && p[n-1] == '/' {
		n--
		r.flags |= ruleMustBeDir
	}
	if strings.IndexByte(p[:n], '/') < 0 {
		r.flags |= ruleNoDir
	}
	r.prefix = int32(min(simpleLength(p), n))
	if strings.HasPrefix(p, "*") && simpleLength(p[1:]) == len(p)-1 {
		r.flags |= ruleEndsWith
	}
	r.pattern = p[:n]
	if r.flags&ruleNoDir == 0 && strings.HasPrefix(r.pattern, "/") {
		// Anchored: the leading slash only says "relative to this file".
		r.pattern = r.pattern[1:]
		r.prefix--
	}
	if lit, ok := strings.CutPrefix(r.pattern, "**/"); ok && !rs.plain && r.flags&ruleNoDir == 0 &&
		lit != "" && strings.IndexByte(lit, '/') < 0 && simpleLength(lit) == len(lit) {
		// "**/name" matches name in every directory below the file's, as
		// the pattern "name" does (gitignore(5) says as much): the leading
		// "**/" spans zero or more whole directories and name holds no
		// '/' or glob. Matched as a basename, it is one map lookup instead
		// of a glob against every path.
		r.pattern, r.prefix = lit, int32(len(lit))
		r.flags |= ruleNoDir
	}
	if !rs.plain && !rs.fold && int(r.prefix) < len(r.pattern) && r.flags&ruleEndsWith == 0 {
		r.need = requiredLiteral(r.pattern[r.prefix:])
	}

	idx := int32(len(rs.rules))
	rs.rules = append(rs.rules, r)
	rs.same = append(rs.same, -1)
	if rs.plain {
		rs.nmBits, rs.extBits, rs.pthBits = ^uint64(0), ^uint64(0), ^uint64(0)
		rs.nmBits2, rs.extBits2, rs.pthBits2 = ^uint64(0), ^uint64(0), ^uint64(0)
	}
	if r.flags&ruleMustBeDir != 0 {
		rs.hasDirOnly = true
	}
	// The maps are filled by index, once every rule is in; the bits are
	// those of the keys ASCII-lower-cased with fold (foldBit), built
	// here without the lower-cased strings.
	fold := rs.fold
	switch ext := rs.extKey(&r); {
	case r.flags&ruleNoDir != 0 && int(r.prefix) == len(r.pattern):
		k := r.pattern
		rs.nmBits |= foldBit(k, fold)
		rs.nmBits2 |= foldBit2(k, fold)
		rs.rules[idx].kind = kindName
	case r.flags&ruleNoDir != 0 && ext != "":
		// A basename ending in ".tar.gz" has "gz" after its last dot, so the
		// map can be keyed by what follows the pattern's last dot.
		k := ext[1:]
		rs.extBits |= foldBit(k, fold)
		rs.extBits2 |= foldBit2(k, fold)
		rs.rules[idx].kind = kindExt
	case r.flags&ruleNoDir == 0 && int(r.prefix) == len(r.pattern):
		k := r.pattern
		rs.pthBits |= foldBit(k, fold)
		rs.pthBits2 |= foldBit2(k[strings.LastIndexByte(k, '/')+1:], fold)
		rs.rules[idx].kind = kindPath
		rs.needsPath = true
	default:
		rs.globs = append(rs.globs, idx)
		rs.rules[idx].kind = kindGlob
		if r.flags&ruleNoDir == 0 {
			rs.needsPath = true
		}
	}
}

// extKey is, for a basename glob, the literal end of its pattern from its
// last '.' on (".gz" for "*.tar.gz", ".txt" for "[a-c]*.txt"), or "" when
// the pattern's literal end holds no '.': every name the glob matches
// ends in that text, so what follows a matching name's last dot is what
// follows the '.' here, and byExt can be keyed by it. The literal end is
// what follows the last byte that is special to the glob engine (or ends
// a bracket); nothing after it can match anything but itself.
func (rs *ruleSet) extKey(r *rule) string {
	p := r.pattern
	if int(r.prefix) == len(p) {
		return "" // a literal name: byName
	}
	if r.flags&ruleEndsWith == 0 && rs.plain {
		return ""
	}
	i := len(p)
	for i > 0 && !isGlobSpecial(p[i-1]) && p[i-1] != ']' {
		i--
	}
	tail := p[i:]
	if d := strings.LastIndexByte(tail, '.'); d >= 0 {
		return tail[d:]
	}
	return ""
}

// requiredLiteral is the longest run of literal bytes, none of them '/',
// in glob pattern p before its first '[' or '\': every text p matches
// holds it. A literal byte matches only itself (without case folding),
// and '*', '?' and "**" only add bytes around the runs; a '/' is left out
// because "**/" and "/**/" may match a shorter stretch than they spell,
// and what follows a bracket or an escape is not scanned (where a bracket
// ends is the engine's business). "" when there is no run of two bytes or
// more (one byte filters too little to pay for the scan).
func requiredLiteral(p string) string {
	best, start := "", -1
	for i := 0; i <= len(p); i++ {
		end := i == len(p) || p[i] == '[' || p[i] == '\\'
		if end || p[i] == '*' || p[i] == '?' || p[i] == '/' {
			if start >= 0 && i-start > len(best) {
				best = p[start:i]
			}
			start = -1
			if end {
				break
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if len(best) < 2 {
		return ""
	}
	return best
}

// empty reports whether the set has no rules at all.
func (rs *ruleSet) empty() bool { return rs == nil || len(rs.rules) == 0 }

// match returns the index of the last rule that matches, or -1. path is
// relative to rs.base (it may end in '/', as a path given to check-ignore
// may), name is its last component, and isDir says whether rules ending in
// '/' may apply.
func (rs *ruleSet) match(path, name string, isDir bool) int {
	best := -1
	fold := rs.fold
	// pick tries the rules keyed by k in m, last to first.
	pick := func(m map[string]int32, k string, ok func(r *rule) bool) {
		head, found := m[k]
		if !found {
			return
		}
		for ci := head; ci >= 0; ci = rs.same[ci] {
			c := int(ci)
			if c <= best {
				return
			}
			r := &rs.rules[c]
			if r.flags&ruleMustBeDir != 0 && !isDir {
				continue
			}
			if ok == nil || ok(r) {
				best = c
				return
			}
		}
	}
	if rs.nmBits&foldBit(name, fold) != 0 {
		k := name
		if fold {
			k = lowerASCII(k)
		}
		pick(rs.byName, k, nil)
	}
	if rs.extBits != 0 {
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 && rs.extBits&foldBit(name[dot+1:], fold) != 0 {
			k := name[dot+1:]
			if fold {
				k = lowerASCII(k)
			}
			pick(rs.byExt, k, func(r *rule) bool { return matchBasename(r, name, fold) })
		}
	}
	if rs.pthBits&foldBit(path, fold) != 0 {
		k := path
		if fold {
			k = lowerASCII(k)
		}
		pick(rs.byPath, k, nil)
	}
	for i := len(rs.globs) - 1; i >= 0; i-- {
		c := int(rs.globs[i])
		if c <= best {
			break
		}
		r := &rs.rules[c]
		if r.flags&ruleMustBeDir != 0 && !isDir {
			continue
		}
		if r.flags&ruleNoDir != 0 {
			if matchBasename(r, name, fold) {
				best = c
				break
			}
		} else if matchPathname(r, path, fold) {
			best = c
			break
		}
	}
	return best
}

// foldBit is keyBit of k, ASCII-lower-cased with fold, without building
// the lower-cased string (keyBit reads only the length and the last byte).
func foldBit(k string, fold bool) uint64 {
	if k == "" {
		return 1
	}
	last := k[len(k)-1]
	if fold {
		last = toLowerASCII(last)
	}
	return 1 << ((uint(len(k))*7 + uint(last)) & 63)
}

// keyBit2 is a second 64-bit mask with one bit for k, from its first
// byte and its length (keyBit's are the length and the last byte): two
// keys with different bits differ, and a key set whose keyBit and keyBit2
// are both set for k holds k far less often than one of them alone says.
func keyBit2(k string) uint64 { return foldBit2(k, false) }

// foldBit2 is keyBit2 of k ASCII-lower-cased with fold.
func foldBit2(k string, fold bool) uint64 {
	if k == "" {
		return 1
	}
	first := k[0]
	if fold {
		first = toLowerASCII(first)
	}
	return 1 << ((uint(first)*5 + uint(len(k))*3) & 63)
}

// matchBasename matches a pattern without a slash against the last path
// component, as git does: a literal compare, a suffix compare for
// "*literal", else a glob in which '*' may match anything.
func matchBasename(r *rule, name string, fold bool) bool {
	p := r.pattern
	if int(r.prefix) == len(p) {
		return equalFold(p, name, fold)
	}
	if r.flags&ruleEndsWith != 0 {
		suf := p[1:]
		return len(suf) <= len(name) && equalFold(suf, name[len(name)-len(suf):], fold)
	}
	if r.need != "" && !strings.Contains(name, r.need) {
		return false
	}
	var flags uint8
	if fold {
		flags = wmCasefold
	}
	return wildmatch(p, name, flags)
}

// matchPathname matches a pattern with a slash against the path relative
// to the ignore file's directory: the literal prefix is compared first and
// only the rest goes to the glob engine, which then treats the rest as the
// start of a pattern (so "foo**/bar" lets the "**" span directories, as in
// git).
func matchPathname(r *rule, path string, fold bool) bool {
	p, name := r.pattern, path
	if n := int(r.prefix); n > 0 {
		if n > len(name) || !equalFold(p[:n], name[:n], fold) {
			return false
		}
		p, name = p[n:], name[n:]
		if p == "" && name == "" {
			return true
		}
	}
	if r.need != "" && !strings.Contains(name, r.need) {
		return false
	}
	flags := wmPathname
	if fold {
		flags |= wmCasefold
	}
	return wildmatch(p, name, flags)
}

// ruleFilter is, for one directory of a walk, what the rules in force
// there can match at all (the directory's .gitignore and those above it,
// info/exclude and the global excludes file): the keyBit of every literal
// name and extension they are keyed by, of every literal path turned to
// the directory's depth, and for the globs a literal run of bytes that
// the entry's name must hold for the glob to match it there. A glob with
// no such run (or one that the directory's own path already holds) can
// match anything, and then so can the filter. An entry that the filter
// turns away is matched by no rule (decide finds none), so the walk does
// not ask decide about it: most names of a tree are in no ignore file.
type ruleFilter struct {
	all    bool   // some glob can match any name here, or the sets disagree on fold
	fold   bool   // core.ignorecase (the same for every set, else all)
	set    bool   // fold is known
	names  uint64 // nmBits
	names2 uint64 // nmBits2
	paths  uint64 // pthBits turned to the entry's name
	paths2 uint64 // pthBits2
	exts   uint64 // extBits
	exts2  uint64 // extBits2
	// needs[:nneeds]: a name that holds none of them is matched by none
	// of the globs (more than fit: all).
	needs  [4]string
	nneeds int
}

// filterFor is the ruleFilter of the directory whose context is x (its
// own .gitignore included).
func filterFor(x *dirCtx) ruleFilter {
	var f ruleFilter
	if x.repo == nil {
		return f
	}
	for n := x.chain; n != nil; n = n.parent {
		f.add(n.rules, x.rel)
	}
	f.add(x.repo.exclude, x.rel)
	f.add(x.repo.global, x.rel)
	return f
}

// add takes in rs, in force in the directory rel (relative to the
// repository root, "" or ending in '/'; rs's own directory is rel or
// above it).
func (f *ruleFilter) add(rs *ruleSet, rel string) {
	if rs.empty() {
		return
	}
	if f.set && f.fold != rs.fold {
		f.all = true
	}
	f.fold, f.set = rs.fold, true
	if rs.plain {
		f.all = true
	}
	f.names |= rs.nmBits
	f.names2 |= rs.nmBits2
	f.exts |= rs.extBits
	f.exts2 |= rs.extBits2
	f.paths2 |= rs.pthBits2
	// match is handed the path below rs's directory: dir, then the name.
	dir := rel[min(len(rs.base), len(rel)):]
	if rs.pthBits != 0 {
		// It looks that path up in byPath. keyBit's bit for a string s
		// bytes longer with the same last byte is the name's turned left
		// by 7*s, so turning the keys' bits right by as much gives the
		// bits of the names whose paths they are.
		f.paths |= bits.RotateLeft64(rs.pthBits, -int(uint(7*len(dir))&63))
	}
	for _, g := range rs.globs {
		if !f.all {
			f.glob(&rs.rules[g], rs.fold, dir)
		}
	}
}

// glob takes in the glob rule r, matched (by match) against the path
// dir+name (a basename glob: against the name).
func (f *ruleFilter) glob(r *rule, fold bool, dir string) {
	if fold {
		f.all = true // no literal run is kept with core.ignorecase
		return
	}
	if r.flags&ruleNoDir != 0 {
		// matchBasename: a name without r.need, or without the suffix
		// of "*literal", is not matched.
		need := r.need
		if need == "" && r.flags&ruleEndsWith != 0 {
			need = r.pattern[1:]
		}
		f.need(need)
		return
	}
	// matchPathname: the path starts with the literal prefix, and what
	// follows it holds r.need. Neither the prefix's rest nor the need can
	// run from dir into the name: dir ends in '/', which a name never
	// holds, and the need holds none.
	lit := r.pattern[:r.prefix]
	if len(dir) >= len(lit) {
		if dir[:len(lit)] != lit {
			return // not below the prefix: never matches here
		}
		if rest := dir[len(lit):]; r.need == "" || strings.Contains(rest, r.need) {
			f.all = true
			return
		}
		f.need(r.need)
		return
	}
	if lit[:len(dir)] != dir {
		return
	}
	rest := lit[len(dir):] // the name must start with it
	if strings.IndexByte(rest, '/') >= 0 {
		return // a name holds no '/'
	}
	f.need(rest)
}

// need records that some glob can match only names holding s ("": any).
func (f *ruleFilter) need(s string) {
	if s == "" || f.nneeds == len(f.needs) {
		f.all = true
		return
	}
	f.needs[f.nneeds] = s
	f.nneeds++
}

// mayMatch reports whether some rule in force could match the entry
// name (false: none does, whatever its type).
func (f *ruleFilter) mayMatch(name string) bool {
	if f.all {
		return true
	}
	// A path key matches only the entry whose name is its last
	// component: keyBit2 of that component is the name's.
	b, b2 := foldBit(name, f.fold), foldBit2(name, f.fold)
	if f.names&b != 0 && f.names2&b2 != 0 || f.paths&b != 0 && f.paths2&b2 != 0 {
		return true
	}
	if f.exts != 0 {
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			e := name[dot+1:]
			if f.exts&foldBit(e, f.fold) != 0 && f.exts2&foldBit2(e, f.fold) != 0 {
				return true
			}
		}
	}
	for _, s := range f.needs[:f.nneeds] {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}
