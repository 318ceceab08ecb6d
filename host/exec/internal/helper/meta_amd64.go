//go:build linux

package helper

import "golang.org/x/sys/unix"

// metaArch is the architecture the metadata filter supervises.
const metaArch = unix.AUDIT_ARCH_X86_64

// amd64's legacy calls of the supervised families.
func init() {
	metaCalls[unix.SYS_CHMOD] = kChmod
	metaCalls[unix.SYS_CHOWN] = kChown
	metaCalls[unix.SYS_LCHOWN] = kLchown
	metaCalls[unix.SYS_UTIME] = kUtime
	metaCalls[unix.SYS_UTIMES] = kUtimes
	metaCalls[unix.SYS_FUTIMESAT] = kFutimesat
}
