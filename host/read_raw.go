package host

import (
	"context"
	"os"
)

// OpenFile opens a regular file inside the jail for reading and returns it
// with its stat, taken from the same descriptor: the bytes as they are,
// with no UTF-8 conversion and no size limit (ReadFile has both), for a
// caller that copies a file (agent-host read) or streams it. See
// ResolveInJail for cwd and path. The caller closes the file. Errors wrap
// ErrEscape, fs.ErrNotExist or ErrNotRegular (a directory, FIFO, socket or
// device: the open never blocks).
func (h *Host) OpenFile(ctx context.Context, cwd, path string) (*os.File, FileStat, error) {
	if err := ctx.Err(); err != nil {
		return nil, FileStat{}, err
	}
	return h.fs.OpenRegular(cwd, path)
}
