//go:build !unix

package mcpserver

// openNonblock is 0 where there is no O_NONBLOCK (readRaw).
const openNonblock = 0
