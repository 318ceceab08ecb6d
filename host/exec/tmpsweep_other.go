//go:build !unix

package exec

import "os"

func lockTmp(dir string) (*os.File, error) { return nil, nil }

func sweepDeadTmps() {}
