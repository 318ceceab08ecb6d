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

// openOnlyNoLinks: macOS cannot tell that no directory on the way is a
// link, so the answer is always "don't know" (the hook then takes the
// real path as Python does).
func openOnlyNoLinks(string, int) (int, error) { return -1, unix.ENOTSUP }

// realNoLinks: macOS cannot tell (see openOnlyNoLinks).
func realNoLinks(string) (string, bool) { return "", false }

// canTellNoLinks: realNoLinks and openSourceNoLinks never answer here.
const canTellNoLinks = false
