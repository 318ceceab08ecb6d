package helper

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestHelperWaitsForGo runs this test binary as the helper (its
// initializer is the helper's) with a command that leaves a mark: the
// command runs only when the late stream ends with the parent's go, not
// when the parent closes the pipe early or sends something else.
func TestHelperWaitsForGo(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		late []byte
		runs bool
	}{
		{"go", Late([]Grant{{Path: "/", Dir: true}}), true},
		{"closed without a word", nil, false},
		{"grants but no go", Late([]Grant{{Path: "/", Dir: true}})[:2], false},
		{"not a grant", []byte("path=/bin/sh\x00go=1\x00"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			mark := filepath.Join(dir, c.name)
			cfg := Config{Confine: true, Path: "/bin/sh", Args: []string{"sh", "-c", `touch "$1"`, "sh", mark},
				DirFD: -1, StatusFD: -1, LateFD: 3}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0])
			cmd.Args = cfg.Argv()
			cmd.Env = append(os.Environ(), Env+"=1")
			cmd.ExtraFiles = []*os.File{r}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r.Close()
			w.Write(c.late)
			w.Close()
			err = cmd.Wait()
			_, statErr := os.Stat(mark)
			if ran := statErr == nil; ran != c.runs {
				t.Fatalf("the command ran: %v, want %v (helper: %v)", ran, c.runs, err)
			}
			if !c.runs && cmd.ProcessState.ExitCode() != 126 {
				t.Errorf("helper exit code %d, want 126", cmd.ProcessState.ExitCode())
			}
		})
	}
}
