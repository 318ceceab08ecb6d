//go:build !linux

package jail

import (
	"errors"
	"io/fs"
	"os"
	"sync/atomic"
)

// noOpenat2 is always set here: only Linux has openat2, and the walk does
// all the work.
var noOpenat2 atomic.Bool

// NoOpenat2Env is the environment variable that switches openat2 off on
// Linux (see there); here there is none to switch off.
const NoOpenat2Env = "AGENTHOST_NO_OPENAT2"

func init() { noOpenat2.Store(true) }

var errNoOpenat2 = errors.New("jail: no openat2 on this platform")

func (d *Dir) openBeneath(rel string, flag int, perm fs.FileMode, name string) (*os.File, error) {
	return nil, errNoOpenat2
}

func (d *Dir) openBeneathFd(rel string, flag int, perm fs.FileMode) (int, error) {
	return -1, errNoOpenat2
}

func (d *Dir) openDirBeneath(rel string) (*Dir, error) { return nil, errNoOpenat2 }
