package exec

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/agenthost/agenthost/host/exec/internal/helper"

	"golang.org/x/sys/unix"
)

// The system calls are made directly (the ABI probe here, the ruleset in
// internal/helper) rather than through github.com/landlock-lsm/go-landlock:
// the helper needs three calls on one locked thread right before a fork
// (go-landlock restricts every thread of the process through psx, which
// the helper does not want: its own waiting threads stay free), and the
// rule set is small and fixed.

// landlockABI is the Landlock ABI version of the running kernel, 0 when
// Landlock is missing or disabled.
var landlockABI = sync.OnceValue(func() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
})

// Filesystem rights.
const (
	llRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// llFileRead is llRead for a rule on a file (not a directory).
	llFileRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE
	// llWriteV1 are the ABI 1 rights to change a hierarchy. Devices
	// (MAKE_CHAR, MAKE_BLOCK) are granted nowhere.
	llWriteV1 = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llDevices = unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
)

// llHandledFS returns the filesystem rights the ruleset handles at abi
// (everything it knows but IOCTL_DEV, which would make terminal ioctls
// on /dev/tty fail) and the rights of a writable directory.
func llHandledFS(abi int) (handled, write uint64) {
	handled = llRead | llWriteV1 | llDevices
	write = llWriteV1
	if abi >= 2 {
		handled |= unix.LANDLOCK_ACCESS_FS_REFER
		write |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		handled |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
		write |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	return handled, write
}

// llFileWrite are the rights of a writable device file (/dev/null).
func llFileWrite(abi int) uint64 {
	r := uint64(llFileRead | unix.LANDLOCK_ACCESS_FS_WRITE_FILE)
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	return r
}

// readGrant is one path a sandboxed command may read beneath.
type readGrant = helper.Grant

// readGrants returns the paths to grant reading beneath so that
// everything is readable except the paths in deny: Landlock only adds
// rights, so where "/" would hold a denied path, each of its entries is
// granted instead, down to the denied path's siblings. An entry created
// after the rules were made in a directory on the way (the home
// directory, say) is not readable by the command.
//
// nested says the process runs inside another sandboxed run (heldEnv is
// set): a directory it may not list is then granted whole, and whole
// reports that some were, so that the caller can say the run's own deny
// list is not fully enforced (the outer run's is).
func readGrants(deny []string, nested bool) (grants []readGrant, whole bool) {
	var clean []string
	for _, d := range deny {
		if d = filepath.Clean(d); filepath.IsAbs(d) && d != "/" {
			clean = append(clean, d)
		}
	}
	sort.Strings(clean)
	var out []readGrant
	var grant func(dir string, isDir bool)
	grant = func(dir string, isDir bool) {
		holds := false
		for _, d := range clean {
			if d == dir {
				return // denied
			}
			if isDir && strings.HasPrefix(d, dir) && (dir == "/" || d[len(dir)] == '/') {
				holds = true
			}
		}
		if !holds {
			out = append(out, readGrant{Path: dir, Dir: isDir})
			return
		}
		f, err := os.Open(dir)
		if err != nil {
			if nested && errors.Is(err, os.ErrPermission) {
				// Inside another run's sandbox, which lets this
				// directory be read but not listed: it is granted
				// whole, and the outer sandbox's own denials apply
				// beneath it.
				out = append(out, readGrant{Path: dir, Dir: isDir})
				whole = true
			}
			return
		}
		ents, _ := f.ReadDir(-1)
		f.Close()
		for _, e := range ents {
			child := filepath.Join(dir, e.Name())
			t := e.Type()
			if t&os.ModeSymlink != 0 {
				// A link needs no rule: Landlock checks what a path
				// leads to, and wherever the target lies it is under
				// "/", so granted (or denied) where it is.
				continue
			}
			grant(child, t.IsDir())
		}
	}
	grant("/", true)
	return out, whole
}
