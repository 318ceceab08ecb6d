//go:build linux

package fs

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenthost/agenthost/host/jail"
)

// The kill tests of issue 11.2: a writer process is SIGKILLed at a random
// moment of a 1-64 MiB write (64 KiB-4 MiB under -short), 200 times:
// through the library 100 times with O_TMPFILE and 50 on the named
// fallback, and 50 times through `agent-host write`. After every kill, every target
// holds its old contents or the new ones, whole; at most one temporary
// file per directory exists (the killed write's, named only on the
// fallback or in the instant between link and rename); after the next
// completed write to each directory, none.

const killHelperEnv = "AGENTHOST_FS_KILL_HELPER"

// runKillHelper runs the kill tests' writer and exits when this process
// was started as one (killHelperEnv set); otherwise it returns at once.
func runKillHelper() {
	if args := os.Getenv(killHelperEnv); args != "" {
		os.Exit(killHelper(args))
	}
}

// version is the contents of generation gen of a file of size bytes: a
// header naming both, then blocks derived from gen. Any mix of two
// versions, or a short one, fails checkVersion.
func version(gen, size int) []byte {
	b := make([]byte, size)
	copy(b, fmt.Sprintf("gen=%010d size=%012d\n", gen, size))
	blk := block(gen)
	for off := 32; off < size; off += len(blk) {
		copy(b[off:], blk)
	}
	return b
}

func block(gen int) []byte {
	blk := make([]byte, 4096)
	for i := 0; i < len(blk); i += 8 {
		binary.LittleEndian.PutUint64(blk[i:], uint64(gen)*0x9E3779B97F4A7C15+uint64(i))
	}
	return blk
}

// genOf returns the generation of a whole version, or -1.
func genOf(b []byte) int {
	var gen, size int
	if _, err := fmt.Sscanf(string(b[:min(len(b), 32)]), "gen=%d size=%d\n", &gen, &size); err != nil || size != len(b) {
		return -1
	}
	blk := block(gen)
	for off := 32; off < size; off += len(blk) {
		if !bytes.Equal(b[off:min(off+len(blk), size)], blk[:min(len(blk), size-off)]) {
			return -1
		}
	}
	return gen
}

// killHelper is the writer process: "ROOT NAME GEN SIZE FALLBACK". It
// builds the version, prints "go", writes it through the jail and exits.
func killHelper(args string) int {
	a := strings.Fields(args)
	gen, _ := strconv.Atoi(a[2])
	size, _ := strconv.Atoi(a[3])
	switch a[4] {
	case "1":
		noTmpfile.Store(true)
	case "2": // stop between the link and the rename, to be killed there
		afterLink = func() {
			fmt.Println("linked")
			select {}
		}
	}
	j, err := jail.New(a[0], nil, jail.Jailed, "")
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	f := New(j, 0)
	data := version(gen, size)
	fmt.Println("go")
	if _, err := f.WriteFile("", a[1], data); err != nil {
		fmt.Println("error", err)
		return 1
	}
	return 0
}

// tempsIn counts the writer's temporary files in dir.
func tempsIn(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if isTempName(e.Name()) {
			n++
		}
	}
	return n
}

func TestKillDuringWrite(t *testing.T) {
	// The three run side by side, each in a tree of its own.
	t.Run("tmpfile", func(t *testing.T) { t.Parallel(); killWriters(t, 100, "tmpfile") })
	t.Run("fallback", func(t *testing.T) { t.Parallel(); killWriters(t, 50, "fallback") })
	t.Run("agent-host write", func(t *testing.T) { t.Parallel(); killWriters(t, 50, "agent-host") })
}

// killWriters kills writers of mode ("tmpfile", "fallback": the library
// in a helper process; "agent-host": the command) kills times, checking
// the targets and the temporary files after each kill and after the next
// write.
func killWriters(t *testing.T, kills int, mode string) {
	minSize, maxSize := 1<<20, 64<<20
	if testing.Short() {
		minSize, maxSize = 64<<10, 4<<20
	}
	root := t.TempDir()
	dirs := []string{"a", "b/c"}
	targets := []string{"a/one", "a/two", "b/c/one"}
	for _, d := range dirs {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	gens := map[string]int{}
	for i, tg := range targets {
		gens[tg] = i + 1
		os.WriteFile(filepath.Join(root, tg), version(i+1, 100), 0o644)
	}
	nextGen := 100
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	size := func() int { // log-uniform between minSize and maxSize
		return int(float64(minSize) * pow2(rng.Float64()*log2(float64(maxSize)/float64(minSize))))
	}
	var tl struct{ kills, completed, old, new, leftovers, maxPerDir int }
	check := func(tg string, gen int) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, tg))
		if err != nil {
			t.Fatalf("%s after a kill: %v", tg, err)
		}
		switch got := genOf(b); got {
		case gens[tg]:
			tl.old++
		case gen:
			tl.new++
			gens[tg] = gen
		default:
			t.Fatalf("%s after a kill holds neither the old version %d nor the new %d (%d bytes, gen %d)", tg, gens[tg], gen, len(b), got)
		}
		for _, d := range dirs {
			n := tempsIn(t, filepath.Join(root, d))
			tl.leftovers += n
			tl.maxPerDir = max(tl.maxPerDir, n)
			if n > 1 {
				t.Fatalf("%d temporary files in %s after a kill (at most 1 allowed)", n, d)
			}
		}
	}
	start := time.Now()
	for tl.kills < kills {
		tg := targets[rng.IntN(len(targets))]
		nextGen++
		sz := size()
		var cmd *exec.Cmd
		var budget time.Duration
		if mode == "agent-host" {
			cmd = exec.Command(agentHost, "write", "--root", root, tg)
			cmd.Stdin = bytes.NewReader(version(nextGen, sz))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Start, read stdin, write: kill somewhere in that.
			budget = time.Duration(float64(sz)/(150<<20)*float64(time.Second)) + 10*time.Millisecond
		} else {
			fb := "0"
			if mode == "fallback" {
				fb = "1"
			}
			cmd = exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), killHelperEnv+"="+strings.Join([]string{root, tg, strconv.Itoa(nextGen), strconv.Itoa(sz), fb}, " "))
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if line != "go\n" {
				cmd.Wait()
				t.Fatalf("helper: %q", line)
			}
			// A write of sz bytes (memory copy, fsync) takes about
			// sz/500 MiB/s here: kill somewhere in that time.
			budget = time.Duration(float64(sz)/(500<<20)*float64(time.Second)) + 200*time.Microsecond
		}
		time.Sleep(time.Duration(rng.Int64N(int64(budget))))
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
			tl.kills++
		} else if err != nil {
			t.Fatalf("writer: %v", err)
		} else {
			tl.completed++ // done before the signal: not a kill, but checked
		}
		check(tg, nextGen)
	}
	// The next write to each directory, completed: nothing is left.
	j, err := jail.New(root, nil, jail.Jailed, "")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	f := New(j, 0)
	for _, d := range dirs {
		if _, err := f.WriteFile("", d+"/next", []byte("next")); err != nil {
			t.Fatal(err)
		}
		if n := tempsIn(t, filepath.Join(root, d)); n != 0 {
			t.Fatalf("%d temporary files in %s after the next write", n, d)
		}
	}
	t.Logf("%s: %d kills (%d more writes completed first) in %v: %d targets old, %d new, never torn; temporary files after a kill: %d sightings in all, at most %d in a directory; 0 after the next write",
		mode, tl.kills, tl.completed, time.Since(start).Round(time.Millisecond), tl.old, tl.new, tl.leftovers, tl.maxPerDir)
}

// TestKillBetweenLinkAndRename: the one moment an O_TMPFILE write leaves
// a name behind is a kill between linking the new file to its temporary
// name and renaming that over the target. The target is then old, one
// temporary file is there, and the next write removes it.
func TestKillBetweenLinkAndRename(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "f"), version(1, 4096), 0o644)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), killHelperEnv+"="+strings.Join([]string{root, "f", "2", "8192", "2"}, " "))
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	for _, want := range []string{"go\n", "linked\n"} {
		if line, _ := r.ReadString('\n'); line != want {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper said %q, want %q", line, want)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	b, _ := os.ReadFile(filepath.Join(root, "f"))
	if genOf(b) != 1 {
		t.Fatalf("target is not the old version: gen %d", genOf(b))
	}
	if n := tempsIn(t, root); n != 1 {
		t.Fatalf("%d temporary files after the kill, want the one linked", n)
	}
	if _, err := newFS(t, root).WriteFile("", "g", []byte("next")); err != nil {
		t.Fatal(err)
	}
	if n := tempsIn(t, root); n != 0 {
		t.Fatalf("%d temporary files after the next write", n)
	}
}
