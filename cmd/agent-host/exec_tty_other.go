//go:build !linux

package main

import "os"

// isTerminal reports whether f may be a terminal: outside Linux any
// character device is taken for one (so /dev/zero given as input becomes
// /dev/null, as /dev/null itself harmlessly does).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
