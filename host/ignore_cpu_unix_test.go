//go:build unix

package host_test

import "syscall"

// cpuNanos is the CPU time (user and system) the process has used so far,
// for the ignore benchmarks' cpu-ns/path (less moved by a loaded machine
// than the wall time: time spent waiting for a core is not counted).
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
