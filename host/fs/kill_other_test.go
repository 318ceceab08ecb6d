//go:build !linux

package fs

// runKillHelper: the kill tests run on Linux only, so no process is one of
// their writers here.
func runKillHelper() {}
