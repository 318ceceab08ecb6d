package fs

import (
	"syscall"

	"golang.org/x/sys/unix"
)

func ctimeOf(st *syscall.Stat_t) int64  { return st.Ctim.Nano() }
func ctimeOfUnix(st *unix.Stat_t) int64 { return st.Ctim.Nano() }
