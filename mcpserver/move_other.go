//go:build !linux && !darwin

package mcpserver

import "errors"

// move is not offered on this platform yet: the jail's directories here are
// os.Root values, which rename only within one root.
func (s *Server) move(src, dst string) (from, to string, err error) {
	return "", "", errors.New("move_file is not supported on this platform yet")
}
