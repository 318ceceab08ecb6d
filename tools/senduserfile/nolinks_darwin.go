package senduserfile

import "golang.org/x/sys/unix"

// openNoLinks opens path with flag, refusing a final symbolic link
// (macOS has no openat2; the directories on the way are trusted).
func openNoLinks(path string, flag int) (int, error) {
	for {
		fd, err := unix.Open(path, flag|unix.O_NOFOLLOW, 0)
		if err == unix.EINTR {
			continue
		}
		return fd, err
	}
}
