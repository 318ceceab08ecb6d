package host

import (
	hostfs "github.com/agenthost/agenthost/host/fs"
)

// TempPrefix starts the name of every temporary file the host's writer
// names (see WriteFile). A file so named whose writer is gone is removed
// by the next write to its directory.
const TempPrefix = hostfs.TempPrefix
