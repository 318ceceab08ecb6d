package jail

import (
	"path/filepath"
	"strings"
)

// root is one allowed directory, held open for the life of the Jail.
type root struct {
	canon string // canonical absolute path
	dir   *Dir   // descriptor of canon, opened when the root was added
}

// alias maps a root's given (non-canonical) form to the root.
type alias struct {
	given string
	r     *root
}

// rootSet is an immutable snapshot of the roots; AddRoot publishes a new one.
type rootSet struct {
	list      []*root
	byCanon   map[string]*root
	ancestors map[string]bool // every proper ancestor of a canonical root
	aliases   []alias         // longest given form first
}

func (rs *rootSet) with(r *root) *rootSet {
	n := &rootSet{
		list:      append(append([]*root(nil), rs.list...), r),
		byCanon:   make(map[string]*root, len(rs.byCanon)+1),
		ancestors: make(map[string]bool, len(rs.ancestors)+8),
		aliases:   rs.aliases,
	}
	for k, v := range rs.byCanon {
		n.byCanon[k] = v
	}
	for k := range rs.ancestors {
		n.ancestors[k] = true
	}
	n.byCanon[r.canon] = r
	for p := r.canon; p != "/"; {
		p = filepath.Dir(p)
		n.ancestors[p] = true
	}
	return n
}

func (rs *rootSet) hasAlias(given string) bool {
	for _, a := range rs.aliases {
		if a.given == given {
			return true
		}
	}
	return false
}

func (rs *rootSet) withAlias(given string, r *root) *rootSet {
	n := *rs
	n.aliases = append(append([]alias(nil), rs.aliases...), alias{given, r})
	// Longest first, so that a nested given root wins over its parent.
	for i := len(n.aliases) - 1; i > 0 && len(n.aliases[i].given) > len(n.aliases[i-1].given); i-- {
		n.aliases[i], n.aliases[i-1] = n.aliases[i-1], n.aliases[i]
	}
	return &n
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
