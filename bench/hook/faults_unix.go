//go:build unix

package main

import (
	"os"
	"syscall"
)

// pageFaults is the minor page faults a process that ended took: each is a
// page of the binary, its data, its heap or its stacks touched for the
// first time, most of what a short process spends after exec.
func pageFaults(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Minflt)
	}
	return 0
}
