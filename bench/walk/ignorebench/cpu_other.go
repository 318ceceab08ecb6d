//go:build !unix

package main

import "time"

// cpuTime is 0 where it is not measured: the CPU figures read 0.
func cpuTime() time.Duration { return 0 }
