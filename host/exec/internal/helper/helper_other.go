//go:build !linux

package helper

// RunIfHelper returns at once: the helper runs on Linux only, and no run
// starts it elsewhere.
func RunIfHelper() {}
