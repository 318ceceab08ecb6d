package exec

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A run killed before its after-run check (SIGKILL of the agent or of
// agent-host mcp, a closed terminal) used to leave what its command
// planted for the next run's baseline to accept. So each run writes its
// baseline, per root, to a journal beneath that root before the command
// starts, and removes it once its check is done. A run that finds a
// journal under the root's lock (which the dead run no longer holds)
// first checks the root against it, as the dead run would have, and
// then takes its own baseline. In the view the journal is masked (an
// empty read-only mount over its directory), so the command can neither
// read nor change it; without a view it relies on Landlock alone, which
// lets a command beneath the root delete it, and the check then falls
// back to the next run's baseline, as before.

// journalDir is where, beneath a root, the journal lies (hidden from git
// by a .gitignore of "*", as the cache is).
const journalDir = ".agent-harness/journal"

const journalName = "baseline.json"

// maxJournalBytes bounds what is read back: a baseline holds protected
// files of at most maxProtectedBytes each, and few of them.
const maxJournalBytes = 64 << 20

type journalEntry struct {
	Rel       string   `json:"rel"`
	Mode      uint32   `json:"mode"`
	Link      string   `json:"link,omitempty"`
	Data      []byte   `json:"data,omitempty"`
	Big       bool     `json:"big,omitempty"`
	Stamp     [4]int64 `json:"stamp,omitempty"`
	GitConfig bool     `json:"git_config,omitempty"`
}

type journal struct {
	Version int            `json:"version"`
	Watch   []string       `json:"watch,omitempty"`
	Entries []journalEntry `json:"entries"`
}

// openJournalDir opens (making it when mk) the journal's directory
// beneath root, following no link; -1 when it cannot.
func openJournalDir(root string, mk bool) int {
	rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	defer unix.Close(rfd)
	return openDirsNoFollow(rfd, strings.Split(journalDir, "/"), mk, 0o755)
}

// writeJournals writes each root's part of the baseline beneath it and
// returns the roots where it could not (a link in the way, a read-only
// root, a run inside another's view): those keep no journal.
func (p *protectSnap) writeJournals() (failed []string) {
	for i, root := range p.roots {
		j := journal{Version: 1, Watch: p.watch[i]}
		size := 0
		for k, e := range p.entries {
			idx, rel := splitKey(k)
			if idx != i {
				continue
			}
			size += len(rel) + len(e.link) + len(e.data)
			j.Entries = append(j.Entries, journalEntry{Rel: rel, Mode: uint32(e.mode), Link: e.link, Data: e.data,
				Big: e.big, Stamp: e.stamp, GitConfig: e.gitConfig})
		}
		// A root whose protected files add up past what a journal is
		// read back at (base64 makes them a third larger) keeps none:
		// said, not written for nothing at every run.
		if size > maxJournalBytes/2 {
			failed = append(failed, root)
			continue
		}
		b, err := json.Marshal(j)
		if err != nil {
			failed = append(failed, root)
			continue
		}
		dfd := openJournalDir(root, true)
		if dfd < 0 {
			failed = append(failed, root)
			continue
		}
		ensureGitignore(dfd)
		tmp := journalName + ".tmp-" + strconv.FormatUint(rand.Uint64(), 36)
		fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			f := os.NewFile(uintptr(fd), tmp)
			_, werr := f.Write(b)
			if cerr := f.Close(); werr == nil && cerr == nil {
				err = unix.Renameat(dfd, tmp, dfd, journalName)
			} else {
				err = errors.Join(werr, cerr)
			}
			if err != nil {
				unix.Unlinkat(dfd, tmp, 0)
			}
		}
		if err != nil {
			failed = append(failed, root)
		}
		unix.Close(dfd)
	}
	return failed
}

// removeJournals removes the journals writeJournals wrote, and their
// directories when nothing else is in them (a workspace outside git
// keeps no trace of the run).
func (p *protectSnap) removeJournals() {
	parts := strings.Split(journalDir, "/")
	for _, root := range p.roots {
		// Each directory beneath a descriptor opened without following
		// a link (a command may have put one at .agent-harness).
		rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		hfd := openDirsNoFollow(rfd, parts[:1], false, 0)
		if hfd < 0 {
			unix.Close(rfd)
			continue
		}
		if dfd := openDirsNoFollow(hfd, parts[1:], false, 0); dfd >= 0 {
			unix.Unlinkat(dfd, journalName, 0)
			// Where .agent-harness holds another directory (a git work
			// tree's sandbox cache), it stays, and so does the journal's
			// directory with its .gitignore, for the next run: making
			// and removing them cost about 1.8 ms of every run.
			// Elsewhere the directories go, so a workspace outside git
			// keeps no trace of the run. (A file system that does not
			// count subdirectories in a directory's links, btrfs, always
			// removes them.)
			var st unix.Stat_t
			keep := unix.Fstat(hfd, &st) == nil && st.Nlink > 3
			if !keep {
				unix.Unlinkat(dfd, ".gitignore", 0)
			}
			unix.Close(dfd)
			if !keep {
				unix.Unlinkat(hfd, parts[1], unix.AT_REMOVEDIR)
				unix.Unlinkat(rfd, parts[0], unix.AT_REMOVEDIR)
			}
		}
		unix.Close(hfd)
		unix.Close(rfd)
	}
}

// recoverJournals checks each root that holds a journal (a run that
// died before its check: the caller holds the root's lock, so it is no
// live run's) against that journal, puts back what changed since, and
// removes the journal. It returns what it put back and what it could
// not.
func (p *protectSnap) recoverJournals() (restored, failed []string) {
	for _, root := range p.roots {
		dfd := openJournalDir(root, false)
		if dfd < 0 {
			continue
		}
		j, ok := readJournal(dfd)
		if !ok {
			unix.Close(dfd)
			continue
		}
		old := &protectSnap{roots: []string{root}, extra: p.extra, homes: p.homes,
			entries: map[string]protEntry{}, watch: [][]string{j.Watch}}
		for _, e := range j.Entries {
			old.entries[protKey(0, e.Rel)] = protEntry{mode: os.FileMode(e.Mode), link: e.Link, data: e.Data,
				big: e.Big, stamp: e.Stamp, gitConfig: e.GitConfig}
		}
		r, f := old.restoreAll()
		restored, failed = append(restored, r...), append(failed, f...)
		if len(f) == 0 {
			unix.Unlinkat(dfd, journalName, 0)
		}
		unix.Close(dfd)
	}
	return restored, failed
}

func readJournal(dfd int) (journal, bool) {
	var j journal
	fd, err := unix.Openat(dfd, journalName, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return j, false
	}
	f := os.NewFile(uintptr(fd), journalName)
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxJournalBytes {
		return j, false
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil && st.Size() > 0 {
		return j, false
	}
	if json.Unmarshal(b, &j) != nil || j.Version != 1 {
		return j, false
	}
	return j, true
}

// journalPaths are the journal directories of roots, which the view
// masks.
func journalPaths(roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = filepath.Join(r, journalDir)
	}
	return out
}
