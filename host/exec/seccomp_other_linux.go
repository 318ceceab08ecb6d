//go:build linux && !amd64 && !arm64

package exec

// No filter is built for this architecture: its system call numbers are
// not listed here. A sandbox reports "seccomp" missing.
const (
	seccompArch = 0
	seccompX32  = false
	haveSeccomp = false
)

var legacyRules []scRule
