package exec

import "os"

// links is 1 on Windows, whose stat does not give the link count; a hard
// link to a secret is then judged by its path only.
func links(os.FileInfo) uint64 { return 1 }
