//go:build !linux

package walk

// stampOf is false outside Linux, where a walk holds a directory by path,
// not by an open descriptor to stat: no sorted listing is kept there, and
// each page of a large directory reads it (see listing.go).
func stampOf(dirHandle) (dirStamp, bool) { return dirStamp{}, false }
