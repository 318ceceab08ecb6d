//go:build !linux

package exec

// testRefusals refuses nothing: the refusals TestMain may apply are Linux
// system calls.
func testRefusals() error { return nil }
