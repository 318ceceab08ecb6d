//go:build linux

package walk

import "golang.org/x/sys/unix"

// stampOf is the open directory h's identity and change stamp (see
// dirStamp); false when it cannot be had.
func stampOf(h dirHandle) (dirStamp, bool) {
	var st unix.Stat_t
	if _, err := retryEINTR(func() (int, error) { return 0, unix.Fstat(int(h), &st) }); err != nil {
		return dirStamp{}, false
	}
	return dirStamp{
		dev: uint64(st.Dev), ino: st.Ino,
		ctime: st.Ctim.Nano(), mtime: st.Mtim.Nano(),
		size: st.Size, nlink: uint64(st.Nlink),
	}, true
}
