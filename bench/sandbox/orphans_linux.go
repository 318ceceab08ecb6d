package main

import (
	"syscall"
	"time"
)

// adoptOrphans makes this process the subreaper of everything the
// variants start: a process a variant leaves behind when it exits (a
// sandbox helper that tears its namespaces down after the run's end, ADR
// 0028) is reparented here, not to init, so reapOrphans can count its CPU.
func adoptOrphans() {
	const prSetChildSubreaper = 36
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// reapOrphans waits for every process left to this one and returns the
// CPU time they used: the variant's tree's, though its leader did not
// wait for them.
func reapOrphans() time.Duration {
	var total time.Duration
	for {
		var ru syscall.Rusage
		_, err := syscall.Wait4(-1, nil, 0, &ru)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return total // ECHILD: none left
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
}
