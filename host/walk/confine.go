package walk

import (
	"os"
)

// This file is what confines the Cache's reads when a Jail is set: which
// files are read through it, and which configured paths are believed.

// Jail confines what a Cache reads, for a caller (the Host under its
// Jailed policy) whose users may write files inside some roots but must
// learn nothing about files outside them. IsIgnored's answer depends on
// the contents of the files it reads, so a repository configuration that
// names an outside file as core.excludesFile would otherwise let whoever
// writes .git/config test guessed lines of any file on the machine.
//
// With a Jail set:
//
//   - Every file the Cache reads or stats for its contents and existence
//     that lies inside the roots (.gitignore files, .git entries, HEAD,
//     commondir, config and config.worktree, info/exclude, an excludes
//     file, an included config) is opened through Open: a symbolic link on
//     the way, even one swapped in at that moment, is followed only inside
//     the roots, and a file it cannot open counts as absent. A path
//     outside the roots whose symbolic links lead into them is handed to
//     Open from the first point inside, and the file counts as one inside
//     the roots below (a ~/.gitconfig that links into the workspace is the
//     workspace's to write, so it is not trusted).
//   - A path named by a configuration file that was read through Open
//     (core.excludesFile, include.path, includeIf's path) must itself lie
//     inside the roots (by Contains, after "~" expansion and made
//     absolute); one outside is taken as a file that does not exist,
//     whatever is there, so the answers are git's answers for a machine
//     without it. This is the one place where the Cache parts from git on
//     purpose: git would read the named file.
//   - Files outside the roots that the user's own setup names are trusted
//     and read by path as without a Jail: the system and global config
//     files and what they include or name as excludes file, GIT_CONFIG_*
//     variables, and a linked worktree's git directory and common
//     directory (which usually lie outside the worktree) with their
//     config and info/exclude.
//
// What it does not cover: a ".git" file (or commondir file) inside the
// roots may name any directory as the git directory, as for git; what is
// read there is trusted, so files named HEAD, commondir, config and
// info/exclude under a directory of the writer's choosing are consulted
// (never a file of arbitrary name, and never as the excludes file unless
// that directory's own config names it). Walk's own .gitignore reads are
// made relative to its directory descriptors (on Linux) and need no Jail.
// inotify watches stay on paths: an event only makes the Cache re-check,
// and every re-check reads through the Jail.
type Jail interface {
	// Contains reports, lexically and without a system call, whether the
	// absolute, clean path lies under a root.
	Contains(path string) bool
	// Open opens path (absolute) for reading through the jail, following
	// symbolic links inside the roots and refusing any way out; it must
	// not block on a FIFO (open it O_NONBLOCK).
	Open(path string) (*os.File, error)
	// EnterRoots resolves the symbolic links of path (absolute, outside
	// the roots) and reports where the resolution first enters a root,
	// followed by the components still to resolve, for Open to finish from
	// inside; false when it never enters one. The final component is
	// followed only with follow. (jail.Jail.EnterRoots is one.)
	EnterRoots(path string, follow bool) (string, bool)
}

// DirFdOpener is what a Jail may offer besides Open: OpenDirFd opens the
// directory path (absolute) through the jail as Open would (symbolic
// links followed inside the roots, any way out refused) and returns a
// bare descriptor on it, which the Cache closes, or an error (an error
// matching errors.ErrUnsupported, or any other, makes the Cache use Open
// instead). The Cache then looks at a ".gitignore" or ".git" in it with
// fstatat and openat(O_NOFOLLOW) on that descriptor. The Host's jail
// offers it (jail.Jail.OpenDirFd).
type DirFdOpener interface {
	OpenDirFd(path string) (int, error)
}

// readFile reads (or, with statOnly, only identifies) path for load, whose
// stat by path gave key. It returns the file's key and contents (none for
// a file over limit bytes) and whether they were read through c.Jail. Without a Jail, or for a file
// that stays outside the roots, it reads by path.
func (c *Cache) readFile(path string, follow, statOnly bool, key fileKey, limit int64) (fileKey, []byte, bool) {
	j := c.Jail
	if !key.exists {
		// Nothing there by path; through the jail there could only be less.
		return key, nil, j != nil && j.Contains(path)
	}
	if j != nil {
		p, inside := path, j.Contains(path)
		if !inside {
			p, inside = j.EnterRoots(path, follow)
		}
		if inside {
			k, data := readJailed(j, p, follow, statOnly, limit)
			return k, data, true
		}
	}
	var data []byte
	if !statOnly && !key.isDir {
		data, _ = readFileNoFollow(path, follow, limit)
	}
	return key, data, false
}

// confinedPath reports whether a path named by a configuration file may be
// used: always, unless the file was read through the Jail and p (absolute)
// lies outside the roots.
func (c *Cache) confinedPath(fromJailed bool, p string) bool {
	return !fromJailed || c.Jail == nil || c.Jail.Contains(p)
}
