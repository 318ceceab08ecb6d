//go:build linux && amd64

package exec

import "golang.org/x/sys/unix"

const (
	seccompArch = unix.AUDIT_ARCH_X86_64
	seccompX32  = true // x32 numbers (bit 30) share the architecture
	haveSeccomp = true
)

// legacyRules are the calls amd64 has beside their *at forms.
var legacyRules = []scRule{
	{nr: unix.SYS_CHMOD, arg: 1, mask: setid, errno: unix.EPERM},
	{nr: unix.SYS_OPEN, arg: 2, mask: setid, errno: unix.EPERM},
	{nr: unix.SYS_CREAT, arg: 1, mask: setid, errno: unix.EPERM},
	{nr: unix.SYS_MKNOD, arg: 1, mask: setid, errno: unix.EPERM},
}
