package fs

import (
	"errors"
	"os"

	"github.com/agenthost/agenthost/host/jail"
)

// openUnnamed: macOS has no O_TMPFILE; the writer names its temporary
// file.
func openUnnamed(*jail.Dir, os.FileMode) (*os.File, bool) { return nil, false }

func linkUnnamed(*os.File, int, string) error { return errors.New("no unnamed files on this system") }
