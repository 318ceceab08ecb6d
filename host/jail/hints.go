package jail

import (
	"strings"
	"sync"
	"sync/atomic"
)

// maxLinkHints bounds the link hints a Jail keeps: enough for the
// symbolic links a workspace routinely goes through, few enough that a
// tree of many links costs a little memory and nothing else.
const maxLinkHints = 256

// linkHints is the set of canonical paths that were symbolic links when a
// resolution last went through them. A hint decides nothing: it only
// chooses which system call the resolution tries first at that name (read
// the link, rather than open a directory there and fail, after a single
// openat2 for the whole path failed). Every decision is taken on what the
// kernel answers then, so a stale hint costs one failed readlinkat and is
// dropped.
type linkHints struct {
	mu sync.Mutex // serializes writers; readers load m
	m  atomic.Pointer[map[string]struct{}]
}

// any reports whether there is any hint at all (the common case: none).
func (h *linkHints) any() bool {
	m := h.m.Load()
	return m != nil && len(*m) > 0
}

// has reports whether p is hinted.
func (h *linkHints) has(p string) bool {
	m := h.m.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[p]
	return ok
}

// hasBytes is has for a path being built (no allocation).
func (h *linkHints) hasBytes(p []byte) bool {
	m := h.m.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[string(p)]
	return ok
}

// under reports whether a proper prefix of abs below root (by whole
// components) is hinted: a link is likely on abs's way.
func (h *linkHints) under(root, abs string) bool {
	m := h.m.Load()
	if m == nil || len(*m) == 0 {
		return false
	}
	for i := len(root) + 1; i < len(abs); i++ {
		if abs[i] != '/' {
			continue
		}
		if _, ok := (*m)[abs[:i]]; ok {
			return true
		}
	}
	return false
}

func (h *linkHints) add(p string) {
	if h.has(p) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.m.Load()
	n := map[string]struct{}{}
	if old != nil {
		if len(*old) >= maxLinkHints {
			return
		}
		for k := range *old {
			n[k] = struct{}{}
		}
	}
	n[strings.Clone(p)] = struct{}{}
	h.m.Store(&n)
}

func (h *linkHints) drop(p string) {
	if !h.has(p) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.m.Load()
	n := make(map[string]struct{}, len(*old))
	for k := range *old {
		if k != p {
			n[k] = struct{}{}
		}
	}
	h.m.Store(&n)
}
