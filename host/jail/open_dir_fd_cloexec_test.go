//go:build linux

package jail_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
	"github.com/agenthost/agenthost/internal/escapetable"
)

// TestOpenDirFdCloseOnExec: every descriptor OpenDirFd returns, for every
// case of the escape table that opens (as written and with a trailing
// slash, under both walks), is close-on-exec, so a command another
// goroutine starts meanwhile does not inherit it, and is an O_PATH
// descriptor on a directory (nothing to read or write through).
func TestOpenDirFdCloseOnExec(t *testing.T) {
	for _, walkOnly := range []bool{false, true} {
		restore := jail.SetNoOpenat2(walkOnly)
		for _, c := range escapetable.Cases {
			t.Run(fmt.Sprintf("%s/walk-only=%v", c.Name, walkOnly), func(t *testing.T) {
				dir := escapetable.Build(t, c.FS)
				j, err := jail.New(filepath.Join(dir, "ws"), []string{filepath.Join(dir, "ws2")}, jail.Jailed, filepath.Join(dir, "home"))
				if err != nil {
					t.Fatal(err)
				}
				defer j.Close()
				cwd := strings.ReplaceAll(c.Cwd, "$T", dir)
				for _, p := range []string{c.Path, c.Path + "/"} {
					p = strings.ReplaceAll(p, "$T", dir)
					fd, _, err := j.OpenDirFd(cwd, p)
					if err != nil {
						continue
					}
					fdFlags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
					if err != nil || fdFlags&unix.FD_CLOEXEC == 0 {
						t.Errorf("OpenDirFd(%q, %q): descriptor flags %#x, %v: not close-on-exec", cwd, p, fdFlags, err)
					}
					fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
					var st unix.Stat_t
					if err != nil || fl&unix.O_PATH == 0 || unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
						t.Errorf("OpenDirFd(%q, %q): status flags %#x, mode %#o, %v: want an O_PATH directory", cwd, p, fl, st.Mode, err)
					}
					jail.CloseFd(fd)
				}
			})
		}
		restore()
	}
}
