//go:build linux && !amd64 && !arm64

package helper

// metaArch 0: no metadata supervision on this architecture, as no main
// filter either (host/exec/seccomp_other_linux.go); the run reports it
// missing.
const metaArch = 0
