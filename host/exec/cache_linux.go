package exec

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// cacheGitignore is the cache's .gitignore: everything in it, the file
// itself included, is ignored.
const cacheGitignore = "*\n"

// workspaceCache makes CacheDir beneath root, the workspace root the
// caller opened (through the jail), when it is missing, and returns its
// path beneath rootPath, root's path. Every step is relative to the
// descriptor before it and follows no link, so a link a command left at
// .agent-harness or sandbox-cache (pointing at the home directory, say)
// is refused, not followed: then, or on any other failure, it returns ""
// and the run keeps its caches in its private temporary directory. So it
// does when rootPath is not in a git work tree as workTree
// (Sandbox.WorkTree) sees it: the cache's .gitignore would hide it from
// nothing (the Host's walk is git's view, which outside a repository
// lists every file), and every listing of the workspace would carry
// thousands of cache files. A nil workTree is no answer, so it returns ""
// too: this package cannot know how the caller's listings see the tree.
func workspaceCache(root *os.File, rootPath string, workTree func(string) bool) string {
	if workTree == nil || !workTree(rootPath) {
		return ""
	}
	dfd := openDirsNoFollow(int(root.Fd()), strings.Split(CacheDir, "/"), true, 0o755)
	if dfd < 0 {
		return ""
	}
	defer unix.Close(dfd)
	if !ensureGitignore(dfd) {
		return ""
	}
	return filepath.Join(rootPath, CacheDir)
}

// ensureGitignore gives the directory dfd its .gitignore when it has
// none: written whole beside it, then renamed to its name unless a file
// came there meanwhile, so no reader ever sees half of it. Whatever is
// already there (the user's own) is kept. It reports whether a
// .gitignore is there.
func ensureGitignore(dfd int) bool {
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, ".gitignore", &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		return true
	} else if !errors.Is(err, unix.ENOENT) {
		return false
	}
	tmp := ".gitignore.tmp-" + strconv.FormatUint(rand.Uint64(), 36)
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return false
	}
	n, err := unix.Write(fd, []byte(cacheGitignore))
	unix.Close(fd)
	if err == nil && n == len(cacheGitignore) {
		err = unix.Renameat2(dfd, tmp, dfd, ".gitignore", unix.RENAME_NOREPLACE)
	} else if err == nil {
		err = unix.EIO
	}
	if err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return errors.Is(err, unix.EEXIST) // another run made it just now
	}
	return true
}
