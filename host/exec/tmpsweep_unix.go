//go:build unix

package exec

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A Runner's private temporary directory (sessionTmp) lives as long as
// the Runner; Close removes it. A process killed without Close (SIGKILL
// of the agent, a closed terminal) used to leave it in /tmp for ever. So
// the Runner holds an exclusive flock on the directory for its life, and
// the first Runner of a process to make one sweeps the directories of
// dead Runners: those of this user whose lock no one holds.

// tmpLockName marks a directory whose Runner holds a flock on it (on
// the directory itself, which a command cannot replace); one without it
// (made by an older version, which held no lock, or whose command
// removed the mark) is swept only when it has not changed for
// staleUnlockedTmp.
const tmpLockName = ".agenthost-lock"

const staleUnlockedTmp = 7 * 24 * time.Hour

// lockTmp takes the Runner's hold on its temporary directory dir.
func lockTmp(dir string) (*os.File, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	if m, err := os.OpenFile(filepath.Join(dir, tmpLockName), os.O_RDONLY|os.O_CREATE|unix.O_NOFOLLOW, 0o600); err == nil {
		m.Close()
	}
	return f, nil
}

var sweepOnce sync.Once

// sweepDeadTmps removes, once per process and in the background, the
// temporary directories of Runners that are gone.
func sweepDeadTmps() {
	sweepOnce.Do(func() { go sweepTmps(os.TempDir(), time.Now()) })
}

// sweepTmps is sweepDeadTmps' work in dir, now being the time; it
// returns the directories it removed.
func sweepTmps(dir string, now time.Time) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	uid := os.Getuid()
	var removed []string
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "agenthost-sandbox-") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil || int(st.Uid) != uid || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		if _, err := os.Lstat(filepath.Join(p, tmpLockName)); err != nil {
			// No mark: an older Runner's, which may be alive.
			if now.Sub(time.Unix(st.Mtim.Unix())) < staleUnlockedTmp {
				continue
			}
		}
		lock, err := os.OpenFile(p, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		if unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			lock.Close() // its Runner is alive
			continue
		}
		// Held by us now, until the directory is gone.
		defer lock.Close()
		if os.RemoveAll(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
