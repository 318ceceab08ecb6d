package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agenthost/agenthost/host"
)

// maxNearby is how many names near a missing path an error lists: enough to
// spot a typo or a wrong extension, few enough not to flood the context.
const maxNearby = 12

// explain turns a Host error about path into one a model can act on: what
// went wrong in plain words, what to do instead (the roots to stay in, the
// names that exist near a missing path), then the Host's own text.
func (s *Server) explain(ctx context.Context, path string, err error) error {
	if err == nil {
		return nil
	}
	var esc *host.EscapeError
	switch {
	case errors.As(err, &esc):
		return fmt.Errorf("%s is outside the directories this server may touch. Allowed roots: %s. Use a path inside one of them (relative paths start at %s); list_roots shows them",
			quote(path), strings.Join(esc.Roots, ", "), s.h.WorkspaceRoot())
	case errors.Is(err, host.ErrEscape):
		return fmt.Errorf("%s is outside the directories this server may touch. Allowed roots: %s (%v)",
			quote(path), strings.Join(s.h.Roots(), ", "), err)
	case errors.Is(err, host.ErrInvalidPath):
		return fmt.Errorf("%s is not a usable path: it is empty, holds a NUL byte or is longer than %d bytes (%v)", quote(path), host.MaxPathLen, err)
	case errors.Is(err, host.ErrTooManyLinks), errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%s goes through too many symbolic links (a loop?) (%v)", quote(path), err)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%s, or a directory on its way, is a file, not a directory (%v)", quote(path), err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist. %s(%v)", quote(path), s.nearby(ctx, path), err)
	case errors.Is(err, host.ErrTooLarge):
		return fmt.Errorf("%s is too large to read whole (%v). Read a part of it with exec (head, sed -n), or look for what you need with walk", quote(path), err)
	case errors.Is(err, syscall.EISDIR):
		// The Host's text says "is a directory" already; repeating it
		// (twice, with the errno) says nothing more.
		return fmt.Errorf("%s is a directory, not a file: use list_directory or walk to see what it holds", quote(path))
	case errors.Is(err, host.ErrNotRegular):
		return fmt.Errorf("%s is a directory or not a regular file: use list_directory or walk for a directory (%v)", quote(path), err)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s already exists (%v)", quote(path), err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("permission denied for %s: the server's user may not do this (%v)", quote(path), err)
	}
	return fmt.Errorf("%s: %v", quote(path), err)
}

// missingParent is the error for creating path when a directory on its way
// is missing (err wraps fs.ErrNotExist): it names that directory, the
// first one missing, as the CLI does, and what its parent holds. nil when
// err is something else (the caller explains it).
func (s *Server) missingParent(ctx context.Context, path string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, host.ErrEscape) {
		return nil
	}
	dir, missing, nerr := s.h.NearestDir(ctx, "", path)
	if nerr != nil || missing == "" {
		return nil
	}
	return fmt.Errorf("cannot create %s: directory %s does not exist (create_directory makes it, with its parents). %s(%w)",
		quote(path), filepath.Join(dir, missing), s.nearby(ctx, filepath.Join(dir, missing)), err)
}

// quote shows a path as the model wrote it, quoted only when it would
// otherwise be ambiguous (spaces, control characters, empty).
func quote(p string) string {
	if p == "" || strings.ContainsAny(p, " \t\n\r\x00\"'") || !isPrint(p) {
		return fmt.Sprintf("%q", p)
	}
	return p
}

func isPrint(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}

// nearby says what exists near a missing path: the deepest directory on its
// way that exists, and the names in it closest to the missing one. The
// Host's jail finds that directory (links followed inside the roots, ".."
// as the kernel means it), so it says nothing about what lies outside the
// roots.
func (s *Server) nearby(ctx context.Context, path string) string {
	dir, want, err := s.h.NearestDir(ctx, "", path)
	if err != nil || want == "" {
		return "" // outside the jail, unreadable, or not missing after all
	}
	names, err := s.listNames(ctx, dir)
	if err != nil {
		return ""
	}
	if len(names) == 0 {
		return fmt.Sprintf("Its nearest existing directory %s is empty. ", dir)
	}
	rankByLikeness(names, want)
	more := ""
	if len(names) > maxNearby {
		more = fmt.Sprintf(", and %d more", len(names)-maxNearby)
		names = names[:maxNearby]
	}
	return fmt.Sprintf("Its nearest existing directory %s holds (closest to %q first): %s%s. ", dir, want, strings.Join(names, ", "), more)
}

// rankByLikeness sorts names so that those most like want come first: an
// exact match ignoring case, then a shared prefix, then a small edit
// distance.
func rankByLikeness(names []string, want string) {
	lw := strings.ToLower(want)
	score := func(n string) int {
		ln := strings.ToLower(strings.TrimSuffix(n, "/"))
		if ln == lw {
			return -1000
		}
		d := editDistance(ln, lw)
		p := 0
		for p < len(ln) && p < len(lw) && ln[p] == lw[p] {
			p++
		}
		return d - 2*p
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if sa, sb := score(a), score(b); sa != sb {
			return sa - sb
		}
		return strings.Compare(a, b)
	})
}

// editDistance is the Levenshtein distance between a and b, by bytes, with
// the strings cut to 64 bytes (names longer than that are alike enough by
// then).
func editDistance(a, b string) int {
	a, b = a[:min(len(a), 64)], b[:min(len(b), 64)]
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
