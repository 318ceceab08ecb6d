package jail

import "golang.org/x/sys/unix"

// oPath opens a directory only to resolve names under it: no read
// permission is needed, as for the kernel's own path walk.
const oPath = unix.O_PATH
