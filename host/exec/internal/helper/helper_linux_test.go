package helper

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// serveHelper starts this test binary as a serving helper (its
// initializer is the helper's) and returns it with the parent's end of
// its socket.
func serveHelper(t *testing.T) (*exec.Cmd, int) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	child := os.NewFile(uintptr(fds[1]), "|helper")
	cmd := exec.Command(os.Args[0])
	cmd.Args = ServeArgv()
	cmd.Env = []string{Env + "=1"}
	cmd.ExtraFiles = []*os.File{child}
	err = cmd.Start()
	child.Close()
	if err != nil {
		syscall.Close(fds[0])
		t.Fatal(err)
	}
	return cmd, fds[0]
}

// TestHelperWaitsForGo: the command runs only when the message ends with
// the parent's go, not when the parent closes the socket early, sends
// something else, or names a descriptor it did not send. The message's
// environment, standard output and start directory are the command's.
func TestHelperWaitsForGo(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		cut  int // bytes of the message left off its end
		bad  string
		runs bool
	}{
		{name: "go", runs: true},
		{name: "closed without a word", cut: -1},
		{name: "no go", cut: 5},
		{name: "not a record", bad: "what=1"},
		{name: "descriptor not sent", bad: "stdin=9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mark := filepath.Join(dir, c.name)
			out := filepath.Join(dir, c.name+".out")
			of, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			defer of.Close()
			d, err := os.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			cfg := Config{Path: "/bin/sh", Args: []string{"sh", "-c", `touch "$1"; echo "$MARK" "$(pwd)"`, "sh", mark},
				Env: []string{"MARK=yes"}, DirFD: 1, Stdio: [3]int{-1, 0, -1}}
			cmd, sock := serveHelper(t)
			msg := mustMessage(t, &cfg)
			if c.bad != "" {
				msg = append(msg[:len(msg)-5], c.bad+"\x00go=1\x00"...)
			}
			switch {
			case c.cut < 0:
				msg = nil
			case c.cut > 0:
				msg = msg[:len(msg)-c.cut]
			}
			if msg != nil {
				rights := syscall.UnixRights(int(of.Fd()), int(d.Fd()))
				if err := syscall.Sendmsg(sock, msg, rights, nil, 0); err != nil {
					t.Fatal(err)
				}
			}
			syscall.Shutdown(sock, syscall.SHUT_WR)
			err = cmd.Wait()
			var status [4]byte
			n, _ := syscall.Read(sock, status[:])
			syscall.Close(sock)
			_, statErr := os.Stat(mark)
			if ran := statErr == nil; ran != c.runs {
				t.Fatalf("the command ran: %v, want %v (helper: %v)", ran, c.runs, err)
			}
			if !c.runs {
				if cmd.ProcessState.ExitCode() != 126 || n != 0 {
					t.Errorf("helper exit code %d and %d status bytes, want 126 and none", cmd.ProcessState.ExitCode(), n)
				}
				return
			}
			if n != 4 || err != nil {
				t.Errorf("status: %d bytes, helper %v", n, err)
			}
			got, _ := os.ReadFile(out)
			if want := "yes " + dir + "\n"; string(got) != want {
				t.Errorf("output %q, want %q", got, want)
			}
		})
	}
}

// TestHelperExitsWithoutParent: a waiting helper whose parent's end of
// the socket closes (the parent exited or died: the kernel closes its
// descriptors) exits at once, starting nothing.
func TestHelperExitsWithoutParent(t *testing.T) {
	cmd, sock := serveHelper(t)
	time.Sleep(20 * time.Millisecond) // waiting in its read by now, usually
	syscall.Close(sock)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		if cmd.ProcessState.ExitCode() != 126 {
			t.Errorf("exit code %d, want 126", cmd.ProcessState.ExitCode())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the helper did not exit when its socket closed")
	}
}
