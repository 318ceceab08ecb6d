//go:build !linux

package jail

import (
	"errors"
	"io/fs"
	"os"
)

var errSlow = errors.New("jail: take the slow path")

func (j *Jail) locateFast(rs *rootSet, abs string) (*Location, error) { return nil, errSlow }

func (j *Jail) openFast(rs *rootSet, abs string, flag int, perm fs.FileMode) (*os.File, string, bool) {
	return nil, "", false
}
