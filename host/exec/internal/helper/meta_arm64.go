//go:build linux

package helper

import "golang.org/x/sys/unix"

// metaArch is the architecture the metadata filter supervises (arm64 has
// only the *at and f* calls of the supervised families).
const metaArch = unix.AUDIT_ARCH_AARCH64
