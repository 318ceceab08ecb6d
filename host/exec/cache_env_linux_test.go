package exec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/walk"
	"github.com/agenthost/agenthost/internal/gittest"
)

// TestWorkTreeByWalkReadsNoConfig: the work-tree answer of a run given no
// Sandbox.WorkTree opens nothing of the user's git configuration (the
// fake HOME's .gitconfig, its XDG git directory), and still knows the
// repository. A walk.Cache with the process's environment does open the
// configuration (checked, so the watch can see what it must not).
func TestWorkTreeByWalkReadsNoConfig(t *testing.T) {
	g := gittest.New(t)
	g.Setenv(t)
	ws := t.TempDir()
	g.Init(t, ws)
	must(t, os.MkdirAll(filepath.Join(g.XDG, "git"), 0o755))
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	must(t, err)
	defer unix.Close(fd)
	for _, d := range []string{g.Home, filepath.Join(g.XDG, "git")} {
		_, err := unix.InotifyAddWatch(fd, d, unix.IN_OPEN)
		must(t, err)
	}
	opened := func() (names []string) {
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if n <= 0 || err != nil {
				return names
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				names = append(names, string(bytes.TrimRight(name, "\x00")))
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
	if !workTreeByWalk(ws) {
		t.Fatalf("workTreeByWalk(%s) = false for a repository", ws)
	}
	if got := opened(); len(got) > 0 {
		t.Errorf("workTreeByWalk opened the user's configuration: %q", got)
	}
	c := walk.Cache{NoWatch: true}
	if !c.InWorkTree(ws) {
		t.Fatalf("InWorkTree(%s) = false for a repository", ws)
	}
	if got := opened(); len(got) == 0 {
		t.Fatal("a Cache with the process's environment opened nothing the watch saw: the test shows nothing")
	}
}
