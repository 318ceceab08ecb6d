//go:build linux

package fs

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agenthost/agenthost/host/jail"
)

// TestSweepRemovesOnlyDeadWritersFiles: the sweep of the next write
// removes a TempPrefix file no writer holds, and leaves a live writer's
// (flock held), a link, a directory, a user's own file that merely starts
// with the prefix, and any other name alone.
func TestSweepRemovesOnlyDeadWritersFiles(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	dead, live := TempPrefix+"00112233445566aa", TempPrefix+"ffeeddccbbaa9988"
	users := TempPrefix + "notes.txt" // the user's, not of our form
	os.WriteFile(p(users), []byte("mine"), 0o600)
	os.WriteFile(p(dead), []byte("leftover"), 0o600)
	os.WriteFile(p(live), []byte("being written"), 0o600)
	os.WriteFile(p("outside"), []byte("x"), 0o600)
	os.Symlink("outside", p(TempPrefix+"0000000000000001"))
	os.Mkdir(p(TempPrefix+"0000000000000002"), 0o755)
	os.WriteFile(p(".f.tmp-123456"), []byte("not ours"), 0o600)
	holder, err := os.Open(p(live))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	j, err := jail.New(dir, nil, jail.Jailed, "")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := New(j, 0).WriteFile("", "target", []byte("t")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p(dead)); !os.IsNotExist(err) {
		t.Errorf("a dead writer's file stayed: %v", err)
	}
	for _, n := range []string{live, users, TempPrefix + "0000000000000001", TempPrefix + "0000000000000002", ".f.tmp-123456", "outside"} {
		if _, err := os.Lstat(p(n)); err != nil {
			t.Errorf("%s was removed: %v", n, err)
		}
	}
	// Once its writer is gone (the lock dropped), the next write removes it.
	holder.Close()
	if _, err := New(j, 0).WriteFile("", "target", []byte("t2")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p(live)); !os.IsNotExist(err) {
		t.Errorf("the file stayed after its writer was gone: %v", err)
	}
}
