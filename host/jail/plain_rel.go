package jail

import (
	"path/filepath"
	"strings"
)

// PlainRel is Plain split at the root: for a plain path it returns the
// canonical root the path lies in and the path relative to it (no leading
// or trailing '/', never ""), so that Plain's abs is root+"/"+rel (rel
// after "/" for the root "/"). ok is false exactly when Plain's is. It
// builds no string for the common spellings (a path relative to the
// workspace root, or an absolute one under a root's canonical form): rel
// is then a substring of path. A hot caller that can answer from a
// directory it keys by root and relative path (the walk cache, through
// its inotify watches) so saves the allocation and the copy; like Plain
// it makes no system call and says nothing about symbolic links.
func (j *Jail) PlainRel(path string) (root, rel string, ok bool) {
	// checkPath(path) != nil, written out (checkPath builds its error
	// with fmt and is never inlined).
	if j.policy != Jailed || path == "" || len(path) > MaxPathLen || strings.IndexByte(path, 0) >= 0 {
		return "", "", false
	}
	rs := j.roots.Load()
	if path[0] != '~' && filepath.Separator == '/' {
		if path[0] != '/' {
			if r, rel, done := rs.plainJoined(path); done {
				return r, rel, rel != ""
			}
		} else if r, rel, done := rs.plainAbs(path); done {
			return r, rel, rel != ""
		}
	}
	// Anything else ("~", a root's given form, a nested root's alias):
	// Plain's own way.
	abs, r, ok := j.Plain(path)
	if !ok {
		return "", "", false
	}
	rel = abs[len(r):]
	if r != "/" {
		rel = rel[1:]
	}
	if !cleanRel(rel) {
		return "", "", false
	}
	return r, rel, true
}

// plainJoined is PlainRel for a relative path (no leading '~'), without
// joining it to the workspace root: done is false when an alias's given
// form could rewrite the joined path (the caller then joins). Otherwise
// the answer is the deepest root at or below the workspace root that the
// joined path lies in, by whole components, and rel is "" unless the
// rest after it is clean.
func (rs *rootSet) plainJoined(path string) (root, rel string, done bool) {
	if len(rs.list) == 0 {
		return "", "", true
	}
	ws := rs.list[0].canon
	if ws == "/" {
		return "", "", false
	}
	for _, a := range rs.aliases {
		// The joined path starts with ws: a given form can be a
		// component-wise prefix of it only if it is one of ws, or lies
		// below ws.
		if hasPathPrefix(ws, a.given) || hasPathPrefix(a.given, ws) {
			return "", "", false
		}
	}
	best, rest := rs.list[0], path
	for _, r := range rs.list[1:] {
		if len(r.canon) <= len(best.canon) || !hasPathPrefix(r.canon, ws) || r.canon == ws {
			continue
		}
		// r lies below ws: the joined path lies in r when path starts
		// with r's part below ws, by whole components.
		sub := r.canon[len(ws)+1:]
		if !hasPathPrefix(path, sub) {
			continue
		}
		best, rest = r, path[len(sub):]
		if len(rest) > 0 {
			rest = rest[1:]
			if rest == "" {
				// "sub/": containing would trim the '/' and find r
				// itself, and Plain refuses the rest "" as unclean.
				return "", "", true
			}
		}
	}
	if !cleanRel(rest) {
		return "", "", true
	}
	return best.canon, rest, true
}

// plainAbs is PlainRel for an absolute path: done is false when an
// alias's given form is a prefix of it (the caller rewrites it).
func (rs *rootSet) plainAbs(path string) (root, rel string, done bool) {
	for _, a := range rs.aliases {
		if hasPathPrefix(path, a.given) {
			return "", "", false
		}
	}
	r, rest := rs.containing(path)
	if r == nil || !cleanRel(rest) {
		return "", "", true
	}
	// containing trims every '/' after the root: the path is plain only
	// when there was exactly one.
	if want := len(r.canon) + 1 + len(rest); r.canon == "/" && len(path) != 1+len(rest) || r.canon != "/" && len(path) != want {
		return "", "", true
	}
	return r.canon, rest, true
}
