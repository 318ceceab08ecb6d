//go:build !linux

package exec

import "os"

// dirPath falls back to the path cwd outside Linux (see Request.Dir).
func dirPath(dir *os.File, cwd string) string { return cwd }
