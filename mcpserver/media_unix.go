//go:build unix

package mcpserver

import "syscall"

// openNonblock keeps opening a FIFO from blocking (readRaw).
const openNonblock = syscall.O_NONBLOCK
