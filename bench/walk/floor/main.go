//go:build linux

// Command floor is the floor of a walk in Go: it lists the tree under the
// current directory (or its argument) depth-first on one goroutine with
// raw openat/getdents64/close calls, skipping ".git", and writes each
// file's path to standard output in 64 KiB writes, applying no ignore
// rules and reading no index. What it costs over an empty Go program is
// what listing the tree costs at least (the kernel's directory reads and
// the runtime's start and monitor thread), the floor that agent-host walk
// is measured against in bench/walk/run.sh's small/ section. With -empty
// it exits at once: an empty Go program of the same build. With -calls
// it reads directory paths from standard input, one a line (as
// "agent-host walk --dirs | grep /$" prints them; "." is added), and
// times the system calls listing them takes, with nothing else: openat,
// getdents64 up to the call that returns 0, close, 21 passes, and prints
// the median pass and its parts (the kernel's share of a walk of exactly
// those directories).
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-empty" {
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "-calls" {
		calls()
		return
	}
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	w := &walker{out: make([]byte, 0, 64<<10)}
	w.walk(fd, "")
	w.flush()
}

type walker struct {
	out  []byte
	bufs [][]byte
}

func (w *walker) flush() {
	os.Stdout.Write(w.out)
	w.out = w.out[:0]
}

func (w *walker) walk(fd int, prefix string) {
	var buf []byte
	if n := len(w.bufs); n > 0 {
		buf, w.bufs = w.bufs[n-1][:0], w.bufs[:n-1]
	} else {
		buf = make([]byte, 0, 32<<10)
	}
	for {
		if cap(buf)-len(buf) < 4096 {
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
		r, _, e := syscall.RawSyscall(syscall.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(buf[len(buf):cap(buf)]))), uintptr(cap(buf)-len(buf)))
		if e != 0 || int(r) <= 0 {
			break
		}
		buf = buf[:len(buf)+int(r)]
	}
	var dirs []string
	for off := 0; off+19 <= len(buf); {
		reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
		typ := buf[off+18]
		name := buf[off+19 : off+reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		off += reclen
		if len(name) == 0 || name[0] == '.' && (len(name) == 1 || name[1] == '.' && len(name) == 2) || string(name) == ".git" {
			continue
		}
		if typ == syscall.DT_DIR {
			dirs = append(dirs, string(name))
			continue
		}
		if len(w.out)+len(prefix)+len(name)+1 > cap(w.out) {
			w.flush()
		}
		w.out = append(append(append(w.out, prefix...), name...), '\n')
	}
	w.bufs = append(w.bufs, buf)
	for _, d := range dirs {
		p := append([]byte(d), 0)
		cfd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0, 0, 0)
		if e != 0 {
			continue
		}
		w.walk(int(cfd), prefix+d+"/")
	}
	syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
}

// calls is -calls (see the package comment).
func calls() {
	in, _ := io.ReadAll(os.Stdin)
	dirs := []string{"."}
	for _, l := range strings.Split(string(in), "\n") {
		if l = strings.TrimSuffix(l, "/"); l != "" {
			dirs = append(dirs, l)
		}
	}
	buf := make([]byte, 32<<10)
	const passes = 21
	type pass struct{ open, first, rest, close, all time.Duration }
	var ps []pass
	n := 0
	for range passes {
		var p pass
		n = 0
		for _, d := range dirs {
			name := append([]byte(d), 0)
			t0 := time.Now()
			fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(unix_AT_FDCWD), uintptr(unsafe.Pointer(&name[0])), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0, 0, 0)
			t1 := time.Now()
			if e != 0 {
				continue
			}
			for i := 0; ; i++ {
				r, _, e := syscall.RawSyscall(syscall.SYS_GETDENTS64, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
				n++
				if i == 0 {
					p.first += time.Since(t1)
				}
				if e != 0 || int(r) <= 0 {
					break
				}
			}
			t2 := time.Now()
			syscall.RawSyscall(syscall.SYS_CLOSE, fd, 0, 0)
			t3 := time.Now()
			p.open += t1.Sub(t0)
			p.rest += t2.Sub(t1)
			p.close += t3.Sub(t2)
			p.all += t3.Sub(t0)
		}
		p.rest -= p.first
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b pass) int { return int(a.all - b.all) })
	m := ps[passes/2]
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	fmt.Printf("%d directories, %d getdents64 calls: median pass %.0f us (openat %.0f, first getdents64 %.0f, the rest %.0f, close %.0f)\n",
		len(dirs), n, us(m.all), us(m.open), us(m.first), us(m.rest), us(m.close))
}

// unix_AT_FDCWD is AT_FDCWD (-100) as a uintptr argument.
const unix_AT_FDCWD = ^uintptr(99)
