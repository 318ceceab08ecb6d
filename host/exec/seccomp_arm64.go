//go:build linux && arm64

package exec

import "golang.org/x/sys/unix"

const (
	seccompArch = unix.AUDIT_ARCH_AARCH64
	seccompX32  = false
	haveSeccomp = true
)

// legacyRules is empty: arm64 has only the *at forms.
var legacyRules []scRule
