package exec

import (
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The protected set is listed twice per sandboxed command, and a
// protected name can appear in any directory (.envrc, a nested
// repository), so the walk visits every directory of the roots. What
// makes it cost little for a directory that did not change is a memo:
// for each directory, its identity and change stamps when it was last
// listed, and what the walk took from the listing (the protected names,
// the .git directories, whether it looks like a git directory, its
// subdirectories). A directory whose stamps are the same is not listed
// again: its memo is replayed (the protected paths in it are still read
// and recorded afresh, each time), and a leaf directory is not even
// opened, one fstatat tells.
//
// The stamps are the device, inode, modification and change times. Every
// change to a directory's entries (create, remove, rename, link, mkdir,
// chmod of the directory) sets its change time to the present, and no
// program can set a change time back (utimensat sets the change time to
// now). A time equal to the one remembered is trusted only when the
// remembered one lies well before the listing (by racyWindow): a
// filesystem's clock ticks coarsely (a jiffy; a second or two on some
// filesystems), so a directory changed within the same tick as the
// listing could keep its stamp. The memo is kept only on filesystems
// whose timestamps are fine-grained and local (ext4, tmpfs, xfs, btrfs,
// f2fs, bcachefs); elsewhere (NFS, FUSE, FAT) every directory is listed
// each time, as before.

// dirMemo is what the walk keeps of one directory's listing.
type dirMemo struct {
	dev, ino     uint64
	mtime, ctime unix.Timespec
	listed       time.Time // just before the directory was stat-ed and listed
	gitLike      bool      // looksLikeGitDir
	gitDots      []string  // entries named .git that are directories
	prot         []string  // entries matching a protected pattern
	subs         []string  // the other subdirectories
}

// racyWindow is how far before its listing a directory's stamps must lie
// for the memo to be trusted: a tick of the kernel's coarse clock with a
// wide margin for a timestamp with nanoseconds, two seconds and then some
// for one without (a filesystem with whole-second times).
func racyWindow(t unix.Timespec) time.Duration {
	if t.Nsec == 0 {
		return 3 * time.Second
	}
	return 50 * time.Millisecond
}

// valid reports whether st (of the directory now) shows it unchanged
// since m was made.
func (m *dirMemo) valid(st *unix.Stat_t) bool {
	if m == nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || uint64(st.Dev) != m.dev || st.Ino != m.ino ||
		st.Mtim != m.mtime || st.Ctim != m.ctime {
		return false
	}
	for _, t := range []unix.Timespec{m.mtime, m.ctime} {
		if !time.Unix(t.Unix()).Before(m.listed.Add(-racyWindow(t))) {
			return false
		}
	}
	return true
}

// rootMemo is the memo of one root: directory (relative path) → memo.
type rootMemo struct {
	dirs map[string]*dirMemo
}

var (
	protMemoMu sync.Mutex
	protMemos  = map[string]*rootMemo{}
)

// maxMemoRoots bounds the roots a process keeps memos for; past it they
// are all dropped (and rebuilt on the next scans).
const maxMemoRoots = 64

// memoFor returns the memo of root for the protected patterns pats, or
// nil when root's filesystem does not qualify (see above). The caller
// holds the root (lockRoots), so nobody else uses the memo meanwhile.
func memoFor(root string, pats [][]string) *rootMemo {
	var sfs unix.Statfs_t
	if unix.Statfs(root, &sfs) != nil || !fineTimes(int64(sfs.Type)) {
		return nil
	}
	var key strings.Builder
	key.WriteString(root)
	for _, p := range pats {
		key.WriteString("\x00" + strings.Join(p, "/"))
	}
	protMemoMu.Lock()
	defer protMemoMu.Unlock()
	m := protMemos[key.String()]
	if m == nil {
		if len(protMemos) >= maxMemoRoots {
			clear(protMemos)
		}
		m = &rootMemo{dirs: map[string]*dirMemo{}}
		protMemos[key.String()] = m
	}
	return m
}

// fineTimes reports whether a filesystem of type t (statfs) keeps
// directory times locally with sub-second precision.
func fineTimes(t int64) bool {
	switch t {
	case unix.EXT4_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.BCACHEFS_SUPER_MAGIC:
		return true
	}
	return false
}

func newDirMemo(st *unix.Stat_t, listed time.Time) *dirMemo {
	return &dirMemo{dev: uint64(st.Dev), ino: st.Ino, mtime: st.Mtim, ctime: st.Ctim, listed: listed}
}
