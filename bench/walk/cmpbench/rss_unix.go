//go:build unix

package main

import (
	"os"
	"syscall"
)

// peakRSS is the child's peak resident set size in KiB (Linux units; macOS
// reports bytes, so its figures are 1024 times too large).
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
