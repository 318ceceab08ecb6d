package jail

import (
	"path/filepath"
	"strings"
	"sync/atomic"
)

// root is one allowed directory, held open while a root set holds it.
type root struct {
	canon string // canonical absolute path
	dir   *Dir   // descriptor of canon, opened when the root was added

	// sets counts the live root sets that hold this root; the last one to
	// drain closes dir.
	sets atomic.Int64
}

// alias maps a root's given (non-canonical) form to the root.
type alias struct {
	given string
	r     *root
}

// rootSet is an immutable snapshot of the roots; AddRoot and RemoveRoot
// publish a new one. It is reference-counted: the Jail holds one reference
// while the set is current and every operation holds one while it runs
// (acquire, release). When the count reaches zero the set is drained: each
// root it holds loses a holder, and a root no set holds any more has its
// descriptor closed. A drained set is never used again (tryAcquire fails),
// so a descriptor is never closed while an operation may use it, and a
// closed descriptor's number, which the kernel may give to another file,
// is never walked from.
type rootSet struct {
	list      []*root
	byCanon   map[string]*root
	ancestors map[string]bool // every proper ancestor of a canonical root
	aliases   []alias         // longest given form first
	slash     *root           // the Jail's "/" root, held like the others (nil on Windows under Jailed)

	refs atomic.Int64
}

// newRootSet builds a set of list with aliases; it holds each root and
// slash, and starts with the Jail's reference.
func newRootSet(list []*root, aliases []alias, slash *root) *rootSet {
	n := &rootSet{
		list:      list,
		byCanon:   make(map[string]*root, len(list)),
		ancestors: make(map[string]bool, 8*len(list)),
		aliases:   aliases,
		slash:     slash,
	}
	for _, r := range list {
		n.byCanon[r.canon] = r
		for p := r.canon; p != "/" && p != filepath.Dir(p); {
			p = filepath.Dir(p)
			n.ancestors[p] = true
		}
		r.sets.Add(1)
	}
	if slash != nil {
		slash.sets.Add(1)
	}
	n.refs.Store(1)
	return n
}

// tryAcquire takes a reference unless the set has drained.
func (rs *rootSet) tryAcquire() bool {
	for {
		n := rs.refs.Load()
		if n <= 0 {
			return false
		}
		if rs.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference; the last one drains the set.
func (rs *rootSet) release() {
	if rs.refs.Add(-1) != 0 {
		return
	}
	for _, r := range rs.list {
		r.drop()
	}
	if rs.slash != nil {
		rs.slash.drop()
	}
}

// drop removes a holder of r and closes its descriptor after the last.
func (r *root) drop() {
	if r.sets.Add(-1) == 0 {
		r.dir.close()
	}
}

// with returns a new set with r added.
func (rs *rootSet) with(r *root) *rootSet {
	return newRootSet(append(append([]*root(nil), rs.list...), r), rs.aliases, rs.slash)
}

// without returns a new set with r and its aliases removed.
func (rs *rootSet) without(r *root) *rootSet {
	var list []*root
	for _, x := range rs.list {
		if x != r {
			list = append(list, x)
		}
	}
	var aliases []alias
	for _, a := range rs.aliases {
		if a.r != r {
			aliases = append(aliases, a)
		}
	}
	return newRootSet(list, aliases, rs.slash)
}

// withAlias returns a new set in which given also names r.
func (rs *rootSet) withAlias(given string, r *root) *rootSet {
	aliases := append(append([]alias(nil), rs.aliases...), alias{given, r})
	// Longest first, so that a nested given root wins over its parent.
	for i := len(aliases) - 1; i > 0 && len(aliases[i].given) > len(aliases[i-1].given); i-- {
		aliases[i], aliases[i-1] = aliases[i-1], aliases[i]
	}
	return newRootSet(append([]*root(nil), rs.list...), aliases, rs.slash)
}

func (rs *rootSet) hasAlias(given string) bool {
	for _, a := range rs.aliases {
		if a.given == given {
			return true
		}
	}
	return false
}

// lookupGiven returns the root whose canonical path or given form is
// exactly p, or nil.
func (rs *rootSet) lookupGiven(p string) *root {
	if r := rs.byCanon[p]; r != nil {
		return r
	}
	for _, a := range rs.aliases {
		if a.given == p {
			return a.r
		}
	}
	return nil
}

// unalias rewrites an absolute path that starts with a root's given form
// (by whole components) to start with its canonical form.
func (rs *rootSet) unalias(p string) string {
	for _, a := range rs.aliases {
		if hasPathPrefix(p, a.given) {
			return a.r.canon + p[len(a.given):]
		}
	}
	return p
}

// containing returns the deepest root whose canonical path is p or a
// component-wise prefix of p, and the rest of p after it ("" for the root
// itself). It is nil when p lies under no root.
func (rs *rootSet) containing(p string) (*root, string) {
	var best *root
	for _, r := range rs.list {
		if hasPathPrefix(p, r.canon) && (best == nil || len(r.canon) > len(best.canon)) {
			best = r
		}
	}
	if best == nil {
		return nil, ""
	}
	rest := p[len(best.canon):]
	rest = strings.TrimLeft(rest, "/")
	return best, rest
}

// hasPathPrefix reports whether p is prefix or lies below it, by whole
// components: "/tmp/abc" is a prefix of "/tmp/abc/x", not of "/tmp/abcdef".
func hasPathPrefix(p, prefix string) bool {
	if !strings.HasPrefix(p, prefix) {
		return false
	}
	return len(p) == len(prefix) || prefix == "/" || p[len(prefix)] == '/'
}

func (rs *rootSet) canonRoots() []string {
	out := make([]string, len(rs.list))
	for i, r := range rs.list {
		out[i] = r.canon
	}
	return out
}
