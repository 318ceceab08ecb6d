package senduserfile

import "golang.org/x/sys/unix"

// openNoLinks opens path with flag, refusing a symbolic link anywhere on
// the way (ELOOP). Without openat2 (Linux before 5.6) only the final
// component is refused.
func openNoLinks(path string, flag int) (int, error) {
	how := unix.OpenHow{Flags: uint64(flag), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &how)
		switch err {
		case unix.EINTR, unix.EAGAIN:
			continue
		case unix.ENOSYS, unix.EPERM:
			return unix.Open(path, flag|unix.O_NOFOLLOW, 0)
		}
		return fd, err
	}
}
