//go:build !linux

package mcpserver

import (
	"os"
	"time"
)

// fileTimes reports no birth or access time here: get_file_info shows the
// modification time for both.
func fileTimes(*os.File) (birth, access time.Time, ok bool) { return time.Time{}, time.Time{}, false }
