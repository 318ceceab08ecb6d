package jail

import "golang.org/x/sys/unix"

// oPath: macOS has no O_PATH; a directory is opened for reading.
const oPath = unix.O_RDONLY
